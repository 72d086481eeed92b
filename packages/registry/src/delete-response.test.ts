import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from './registry.js';
import { resource, startFixture, type Fixture } from './testing/registry-fixture.js';

/**
 * Per resource, as kube's registries are configured: what a DELETE answers
 * (ReturnDeletedObject) and whether metadata.generation is managed (none of these types is).
 */
interface Case {
  plural: string;
  group: string;
  version: string;
  namespace: string;
  returnsObject: boolean;
  body(name: string): KubeObject;
  /** A change to something other than metadata and status. */
  change(obj: KubeObject): KubeObject;
}

const cases: Case[] = [
  {
    plural: 'configmaps', group: '', version: 'v1', namespace: 'default', returnsObject: false,
    body: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }),
    change: (obj) => ({ ...obj, data: { a: '2' } }),
  },
  {
    plural: 'secrets', group: '', version: 'v1', namespace: 'default', returnsObject: false,
    body: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { a: 'MQ==' } }),
    change: (obj) => ({ ...obj, data: { a: 'Mg==' } }),
  },
  {
    plural: 'events', group: '', version: 'v1', namespace: 'default', returnsObject: false,
    body: (name) => ({
      apiVersion: 'v1', kind: 'Event', metadata: { name },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Started', type: 'Normal',
    }),
    change: (obj) => ({ ...obj, message: 'changed' }),
  },
  {
    plural: 'leases', group: 'coordination.k8s.io', version: 'v1', namespace: 'default', returnsObject: false,
    body: (name) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: 'a' } }),
    change: (obj) => ({ ...obj, spec: { holderIdentity: 'b' } }),
  },
  {
    plural: 'serviceaccounts', group: '', version: 'v1', namespace: 'default', returnsObject: true,
    body: (name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }),
    change: (obj) => ({ ...obj, automountServiceAccountToken: false }),
  },
  {
    plural: 'namespaces', group: '', version: 'v1', namespace: '', returnsObject: true,
    body: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    change: (obj) => ({ ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, x: 'y' } } }),
  },
];

void describe('delete responses and generation, per resource', () => {
  let fx: Fixture;
  let registry: Registry;

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  for (const c of cases) {
    void it(`${c.plural}: ${c.returnsObject ? 'the deleted object' : 'a success Status'}; no generation`, async () => {
      const res = resource(registry, c.plural, c.group, c.version);
      const req = { namespace: c.namespace };
      const created = await res.creater.create(req, c.body('gen'), {});
      assert.equal(created.metadata.generation, undefined, 'create sets no generation');
      const { object: updated } = await res.updater.update(req, 'gen', c.change(created), {});
      assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(updated.metadata.generation, undefined, 'update sets no generation');

      let result = await res.deleter.delete(req, 'gen', {});
      if (c.plural === 'namespaces') {
        // A namespace is first marked Terminating; it goes once its spec finalizers are gone.
        assert.equal(result.deletedImmediately, false);
        const marked = result.object as KubeObject;
        // /finalize emptying spec.finalizers removes it in the same write, answering the object.
        const { object: removed } = await res.subresources.get('finalize')!.updater!.update(req, 'gen', { ...marked, spec: { finalizers: [] } }, {});
        await assert.rejects(res.getter.get(req, 'gen', {}));
        result = { object: removed, deletedImmediately: true };
      }
      assert.equal(result.deletedImmediately, true);
      if (c.returnsObject) {
        const obj = result.object as KubeObject;
        assert.equal(obj.metadata.name, 'gen');
        assert.equal(obj.metadata.uid, created.metadata.uid);
        assert.equal(obj.kind, created.kind);
      } else {
        assert.deepEqual(result.object, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name: 'gen', ...(c.group !== '' ? { group: c.group } : {}), kind: c.plural, uid: created.metadata.uid },
        });
      }
    });
  }

  void it('a client-set generation is kept on create and cannot be changed by update', async () => {
    const cms = resource(registry, 'configmaps');
    const req = { namespace: 'default' };
    const created = await cms.creater.create(req, { metadata: { name: 'g5', generation: 5 }, data: { a: '1' } }, {});
    assert.equal(created.metadata.generation, 5);
    const { object } = await cms.updater.update(req, 'g5', { ...created, metadata: { ...created.metadata, generation: 9 }, data: { a: '2' } }, {});
    assert.equal(object.metadata.generation, 5);
  });

  void it('dryRun delete answers like a real one and keeps the object', async () => {
    const cms = resource(registry, 'configmaps');
    const req = { namespace: 'default' };
    const created = await cms.creater.create(req, { metadata: { name: 'dry-del' }, data: {} }, {});
    const result = await cms.deleter.delete(req, 'dry-del', { dryRun: true });
    assert.deepEqual(result.object, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'dry-del', kind: 'configmaps', uid: created.metadata.uid },
    });
    assert.equal((await cms.getter.get(req, 'dry-del', {})).metadata.uid, created.metadata.uid);
  });
});
