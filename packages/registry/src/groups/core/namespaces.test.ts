import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { parseFieldSelector } from '@kapi/machinery';
import { uniquePrefix } from '@kapi/storage/testing';
import { createRegistry, SYSTEM_NAMESPACES, type Registry } from '../../registry.js';
import { clusterScope, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

void describe('namespaces', () => {
  let fx: Fixture;
  let registry: Registry;
  const namespaces = () => resource(registry, 'namespaces');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('ensureSystemNamespaces is idempotent and safe when replicas race', async () => {
    const prefix = uniquePrefix('race');
    const replicas = [createRegistry({ storage: fx.storage, prefix }), createRegistry({ storage: fx.storage, prefix })];
    await Promise.all([...replicas.map((r) => r.ensureSystemNamespaces()), ...replicas.map((r) => r.ensureSystemNamespaces())]);
    const list = await resource(replicas[0]!, 'namespaces').lister.list(clusterScope, {});
    assert.deepEqual(list.items.map((i) => i.metadata.name), [...SYSTEM_NAMESPACES].sort());
  });

  void it('create sets phase Active, the kubernetes finalizer and the name label; clears a client namespace', async () => {
    const created = await namespaces().creater.create(
      clusterScope,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', namespace: 'ignored' }, status: { phase: 'Terminating' } },
      {},
    );
    assert.deepEqual(created['status'], { phase: 'Active' });
    assert.deepEqual(created['spec'], { finalizers: ['kubernetes'] });
    assert.deepEqual(created.metadata.labels, { 'kubernetes.io/metadata.name': 'team-a' });
    assert.equal(created.metadata.namespace, undefined);
  });

  void it('status and spec.finalizers are ignored on update', async () => {
    const created = await namespaces().creater.create(clusterScope, { metadata: { name: 'status-test' } }, {});
    const { object } = await namespaces().updater.update(
      clusterScope,
      'status-test',
      { ...created, status: { phase: 'Terminating' }, spec: { finalizers: [] }, metadata: { ...created.metadata, labels: { team: 'x' } } },
      {},
    );
    assert.deepEqual(object['status'], { phase: 'Active' });
    assert.deepEqual(object['spec'], { finalizers: ['kubernetes'] });
    assert.deepEqual(object.metadata.labels, { team: 'x', 'kubernetes.io/metadata.name': 'status-test' });
    const unchanged = await namespaces().updater.update(clusterScope, 'status-test', { ...object, status: { phase: 'Terminating' } }, {});
    assert.equal(unchanged.object.metadata.resourceVersion, object.metadata.resourceVersion);
  });

  void it('names must be DNS-1123 labels', async () => {
    const status = await rejectsWithStatus(namespaces().creater.create(clusterScope, { metadata: { name: 'a.b' } }, {}), { code: 422 });
    assert.equal(status.message, 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
  });

  void it('spec.finalizers must be qualified names or the standard one', async () => {
    const status = await rejectsWithStatus(
      namespaces().creater.create(clusterScope, { metadata: { name: 'fin' }, spec: { finalizers: ['custom'] } }, {}),
      { code: 422 },
    );
    assert.equal(status.message, 'Namespace "fin" is invalid: spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified');
  });

  void it('the immortal namespaces cannot be deleted', async () => {
    await rejectsWithStatus(namespaces().deleter.delete(clusterScope, 'default', {}), {
      code: 403,
      reason: 'Forbidden',
      message: 'namespaces "default" is forbidden: this namespace may not be deleted',
    });
  });

  void it('delete marks the namespace Terminating; /finalize emptying spec.finalizers removes it', async () => {
    await namespaces().creater.create(clusterScope, { metadata: { name: 'doomed' } }, {});
    const result = await namespaces().deleter.delete(clusterScope, 'doomed', {});
    assert.equal(result.deletedImmediately, false);
    const marked = result.object as KubeObject;
    assert.equal(marked.metadata.name, 'doomed');
    assert.ok(marked.metadata.deletionTimestamp);
    assert.equal(marked.metadata.deletionGracePeriodSeconds, undefined);
    assert.deepEqual(marked['status'], { phase: 'Terminating' });
    const terminating = await namespaces().lister.list(clusterScope, { fieldSelector: parseFieldSelector('status.phase=Terminating') });
    assert.deepEqual(terminating.items.map((i) => i.metadata.name), ['doomed']);
    // Still held by the kubernetes spec finalizer: a DELETE answers it unchanged.
    const again = await namespaces().deleter.delete(clusterScope, 'doomed', {});
    assert.equal(again.deletedImmediately, false);
    assert.equal((again.object as KubeObject).metadata.resourceVersion, marked.metadata.resourceVersion);
    // Another metadata update keeps it (spec.finalizers still holds it).
    const labelled = await namespaces().updater.update(clusterScope, 'doomed', { ...marked, metadata: { ...marked.metadata, labels: { a: 'b' } } }, {});
    assert.ok(labelled.object.metadata.deletionTimestamp);
    assert.equal((await namespaces().getter.get(clusterScope, 'doomed', {})).metadata.labels?.['a'], 'b');
    // /finalize that empties spec.finalizers removes it in the same write (kube's shouldDeleteNamespaceDuringUpdate).
    const finalize = namespaces().subresources.get('finalize')!.updater!;
    await finalize.update(clusterScope, 'doomed', { ...labelled.object, spec: { finalizers: [] } }, {});
    await rejectsWithStatus(namespaces().getter.get(clusterScope, 'doomed', {}), { code: 404, message: 'namespaces "doomed" not found' });
  });

  void it('a wrong UID precondition is a 409 on a namespace DELETE', async () => {
    await namespaces().creater.create(clusterScope, { metadata: { name: 'uid-ns' } }, {});
    await rejectsWithStatus(namespaces().deleter.delete(clusterScope, 'uid-ns', { preconditions: { uid: 'nope' } }), { code: 409 });
  });

  void it('field selector status.phase; other fields are not supported', async () => {
    const active = await namespaces().lister.list(clusterScope, { fieldSelector: parseFieldSelector('status.phase=Active,metadata.name=kube-system') });
    assert.deepEqual(active.items.map((i) => i.metadata.name), ['kube-system']);
    const terminating = await namespaces().lister.list(clusterScope, { fieldSelector: parseFieldSelector('status.phase=Terminating') });
    assert.deepEqual(terminating.items, []);
    await rejectsWithStatus(namespaces().lister.list(clusterScope, { fieldSelector: parseFieldSelector('spec.x=1') }), {
      code: 400,
      message: 'field label not supported: spec.x',
    });
  });
});
