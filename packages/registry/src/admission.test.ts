/**
 * The store's admission phases on a real etcd: what each phase sees (operation, objects,
 * options, namespace), that mutations are validated, that refusals write nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forbidden, type KubeObject } from '@kapi/machinery';
import { createEtcdStorage, type EtcdStorage } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { admissionChain, type AdmissionAttributes, type AdmissionPlugin } from './admission.js';
import { createRegistry, type Registry } from './registry.js';
import { rejectsWithStatus, resource } from './testing/index.js';

interface Seen {
  phase: 'admit' | 'validate';
  operation: string;
  name: string;
  namespace: string;
  subresource: string;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  options: KubeObject | undefined;
  dryRun: boolean;
}

const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data,
});

void describe('admission in the generic store', () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  let registry: Registry;
  const seen: Seen[] = [];
  let mutate: ((a: AdmissionAttributes) => void) | undefined;
  let refuse: ((a: AdmissionAttributes) => boolean) | undefined;
  const record = (phase: Seen['phase']) => (a: AdmissionAttributes) => {
    seen.push({ phase, operation: a.operation, name: a.name, namespace: a.namespace, subresource: a.subresource, object: structuredClone(a.object), oldObject: structuredClone(a.oldObject), options: a.options, dryRun: a.dryRun });
    if (phase === 'admit') mutate?.(a);
    if (phase === 'validate' && refuse?.(a) === true) throw forbidden({ group: '', resource: a.resource.resource }, a.name, 'refused by the test');
  };
  const plugin: AdmissionPlugin = { name: 'Recorder', handles: () => true, admit: record('admit'), validate: record('validate') };

  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
    registry = createRegistry({
      storage,
      prefix: uniquePrefix('admission'),
      admission: (d) => (d.plural === 'configmaps' || d.plural === 'namespaces' ? admissionChain([plugin]) : undefined),
    });
    await registry.ensureSystemNamespaces();
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });
  const reset = () => {
    seen.length = 0;
    mutate = undefined;
    refuse = undefined;
  };

  void it('create: mutating sees the decoded object with CreateOptions, validating the prepared one; a mutation is stored', async () => {
    reset();
    mutate = (a) => {
      a.object!.metadata.labels = { added: 'yes' };
    };
    const configmaps = resource(registry, 'configmaps');
    const created = await configmaps.creater.create({ namespace: 'default' }, cm('a', { k: 'v' }), { fieldManager: 'me' });
    assert.deepEqual(created.metadata.labels, { added: 'yes' });
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit CREATE', 'validate CREATE']);
    const [admit, validate] = seen;
    assert.equal(admit!.namespace, 'default');
    assert.equal(admit!.name, 'a');
    assert.equal(admit!.object!.metadata.uid, undefined, 'mutating admission runs before preparation');
    assert.equal(typeof validate!.object!.metadata.uid, 'string', 'validating admission sees the prepared object');
    assert.deepEqual(validate!.object!.metadata.labels, { added: 'yes' });
    assert.deepEqual(admit!.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'me' });
  });

  void it('a mutation that makes the object invalid is refused by validation (422) and nothing is stored', async () => {
    reset();
    mutate = (a) => {
      a.object!.metadata.labels = { 'bad key!': 'x' };
    };
    const configmaps = resource(registry, 'configmaps');
    await rejectsWithStatus(configmaps.creater.create({ namespace: 'default' }, cm('b'), {}), { code: 422, reason: 'Invalid' });
    assert.deepEqual(seen.map((s) => s.phase), ['admit'], 'validating admission does not run after a failed validation');
    await rejectsWithStatus(configmaps.getter.get({ namespace: 'default' }, 'b', {}), { code: 404 });
  });

  void it('a validating refusal stores nothing; dryRun reaches admission', async () => {
    reset();
    refuse = () => true;
    const configmaps = resource(registry, 'configmaps');
    await rejectsWithStatus(configmaps.creater.create({ namespace: 'default' }, cm('c'), { dryRun: true }), { code: 403, message: 'configmaps "c" is forbidden: refused by the test' });
    assert.equal(seen[0]!.dryRun, true);
    assert.deepEqual(seen[0]!.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
    await rejectsWithStatus(configmaps.creater.create({ namespace: 'default' }, cm('c'), {}), { code: 403 });
    await rejectsWithStatus(configmaps.getter.get({ namespace: 'default' }, 'c', {}), { code: 404 });
  });

  void it('update and patch: UPDATE with the old object and UpdateOptions; a mutation of a patch is stored', async () => {
    reset();
    const configmaps = resource(registry, 'configmaps');
    await configmaps.creater.create({ namespace: 'default' }, cm('u', { k: '1' }), {});
    reset();
    const current = await configmaps.getter.get({ namespace: 'default' }, 'u', {});
    await configmaps.updater.update({ namespace: 'default' }, 'u', { ...current, data: { k: '2' } }, {});
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit UPDATE', 'validate UPDATE']);
    assert.deepEqual(seen[0]!.oldObject!['data'], { k: '1' });
    assert.deepEqual(seen[0]!.object!['data'], { k: '2' });
    assert.equal(seen[0]!.options!['kind'], 'UpdateOptions');
    reset();
    mutate = (a) => {
      (a.object as KubeObject & { data: Record<string, string> }).data['m'] = 'mutated';
    };
    const patched = await configmaps.patcher.patch({ namespace: 'default' }, 'u', { type: 'application/merge-patch+json', body: { data: { k: '3' } } }, {});
    assert.deepEqual(patched.object['data'], { k: '3', m: 'mutated' });
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit UPDATE', 'validate UPDATE']);
    // Apply that creates is a CREATE.
    reset();
    await configmaps.patcher.patch({ namespace: 'default' }, 'applied', { type: 'application/apply-patch+yaml', body: cm('applied') }, { fieldManager: 'x' });
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit CREATE', 'validate CREATE']);
  });

  void it('delete: both phases with the object deleted as oldObject and DeleteOptions; a refusal keeps it', async () => {
    reset();
    const configmaps = resource(registry, 'configmaps');
    await configmaps.creater.create({ namespace: 'default' }, cm('d', {}, { l: 'v' }), {});
    reset();
    refuse = () => true;
    await rejectsWithStatus(configmaps.deleter.delete({ namespace: 'default' }, 'd', { gracePeriodSeconds: 0 }), { code: 403 });
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit DELETE', 'validate DELETE']);
    assert.equal(seen[0]!.object, undefined);
    assert.deepEqual(seen[0]!.oldObject!.metadata.labels, { l: 'v' });
    assert.deepEqual(seen[0]!.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0 });
    await configmaps.getter.get({ namespace: 'default' }, 'd', {});
    reset();
    await configmaps.deleter.delete({ namespace: 'default' }, 'd', {});
    await rejectsWithStatus(configmaps.getter.get({ namespace: 'default' }, 'd', {}), { code: 404 });
    // An absent object is the store's 404, before admission.
    reset();
    await rejectsWithStatus(configmaps.deleter.delete({ namespace: 'default' }, 'd', {}), { code: 404 });
    assert.equal(seen.length, 0);
  });

  void it('the namespace object: its own name is the namespace of updates and deletes, "" on create', async () => {
    const namespaces = resource(registry, 'namespaces');
    reset();
    await namespaces.creater.create({ namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } }, {});
    assert.equal(seen[0]!.namespace, '');
    reset();
    await namespaces.deleter.delete({ namespace: '' }, 'n1', {});
    assert.equal(seen[0]!.operation, 'DELETE');
    assert.equal(seen[0]!.namespace, 'n1');
  });
});
