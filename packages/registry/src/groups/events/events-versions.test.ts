import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsV1: Record<string, unknown>;
}

const entries = (obj: KubeObject) => (obj.metadata.managedFields ?? []) as unknown as Entry[];
const fieldsOf = (obj: KubeObject, manager: string) => Object.keys(entries(obj).find((e) => e.manager === manager)?.fieldsV1 ?? {}).sort();

void describe('managed fields across events versions (core v1 ↔ events.k8s.io)', () => {
  let fx: Fixture;
  let registry: Registry;
  const ns = inNamespace('default');
  const core = () => resource(registry, 'events');
  const v1beta1 = () => resource(registry, 'events', 'events.k8s.io', 'v1beta1');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('an apply through events.k8s.io conflicts with the core owner of the renamed field; entries keep their version\'s names', async () => {
    await core().creater.create(
      ns,
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'core text' },
      { fieldManager: 'core-writer' },
    );
    const config = { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', metadata: { name: 'e' }, note: 'applied text' };
    const status = await rejectsWithStatus(v1beta1().patcher.patch(ns, 'e', { type: 'application/apply-patch+yaml', body: config }, { fieldManager: 'applier' }), { code: 409 });
    assert.match(status.message ?? '', /conflict with "core-writer".*\.note/s);
    const { object } = await v1beta1().patcher.patch(ns, 'e', { type: 'application/apply-patch+yaml', body: config }, { fieldManager: 'applier', force: true });
    assert.equal(object['note'], 'applied text');
    // The applier owns note (its version's name); the core writer lost message and keeps core names.
    assert.deepEqual(fieldsOf(object, 'applier'), ['f:note']);
    assert.deepEqual(fieldsOf(object, 'core-writer'), ['f:involvedObject', 'f:reason']);
    assert.equal(entries(object).find((e) => e.manager === 'core-writer')?.apiVersion, 'v1');
    // Read through core: the same entries, unchanged.
    const asCore = await core().getter.get(ns, 'e', {});
    assert.deepEqual(asCore.metadata.managedFields, object.metadata.managedFields);
    // An update through core of the message takes it from the applier (an Update never conflicts).
    const { object: updated } = await core().updater.update(ns, 'e', { ...asCore, message: 'core again' }, { fieldManager: 'core-writer' });
    assert.deepEqual(fieldsOf(updated, 'applier'), []);
    assert.deepEqual(fieldsOf(updated, 'core-writer'), ['f:involvedObject', 'f:message', 'f:reason']);
  });
});
