import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

void describe('leases and service accounts', () => {
  let fx: Fixture;
  let registry: Registry;
  const ns = inNamespace('kube-node-lease');
  const leases = () => resource(registry, 'leases', 'coordination.k8s.io');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('serves leases with MicroTime fields and every verb', async () => {
    const created = await leases().creater.create(
      ns,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'node-1' },
        spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2024-01-01T00:00:00.123456Z', leaseTransitions: 0 },
      },
      {},
    );
    assert.equal(created.apiVersion, 'coordination.k8s.io/v1');
    const { object } = await leases().updater.update(ns, 'node-1', { ...created, spec: { ...(created['spec'] as object), renewTime: '2024-01-01T00:00:10.000000Z' } }, {});
    assert.equal((object['spec'] as Record<string, unknown>)['renewTime'], '2024-01-01T00:00:10.000000Z');
    const list = await leases().lister.list(ns, {});
    assert.equal(list.kind, 'LeaseList');
    assert.equal(list.apiVersion, 'coordination.k8s.io/v1');
    await leases().deleter.delete(ns, 'node-1', {});
    const gone = await leases().collectionDeleter.deleteCollection(ns, {}, {});
    assert.deepEqual(gone.items, []);
  });

  void it('an update must carry a resourceVersion', async () => {
    await leases().creater.create(ns, { metadata: { name: 'rv' }, spec: {} }, {});
    const status = await rejectsWithStatus(leases().updater.update(ns, 'rv', { metadata: { name: 'rv' }, spec: { holderIdentity: 'x' } }, {}), {
      code: 422,
      reason: 'Invalid',
    });
    assert.equal(status.message, 'leases.coordination.k8s.io "rv" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    assert.deepEqual(status.details, {
      name: 'rv',
      group: 'coordination.k8s.io',
      kind: 'leases',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }],
    });
  });

  void it('PUT creates a missing lease', async () => {
    const { created } = await leases().updater.update(ns, 'put', { metadata: { name: 'put' }, spec: { holderIdentity: 'a' } }, {});
    assert.equal(created, true);
  });

  void it('validates the spec', async () => {
    const status = await rejectsWithStatus(
      leases().creater.create(ns, { metadata: { name: 'bad' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'x' } }, {}),
      { code: 422 },
    );
    assert.equal(
      status.message,
      'Lease.coordination.k8s.io "bad" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0, spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined]',
    );
  });

  void it('service accounts: create keeps only names of secret references; every verb', async () => {
    const sas = resource(registry, 'serviceaccounts');
    const created = await sas.creater.create(
      inNamespace('default'),
      { metadata: { name: 'builder' }, secrets: [{ name: 'token', kind: 'Secret' }], imagePullSecrets: [{ name: 'pull' }], automountServiceAccountToken: false },
      {},
    );
    assert.deepEqual(created['secrets'], [{ name: 'token' }]);
    assert.deepEqual(created['imagePullSecrets'], [{ name: 'pull' }]);
    const got = await sas.getter.get(inNamespace('default'), 'builder', {});
    assert.equal(got['automountServiceAccountToken'], false);
    const { object } = await sas.updater.update(inNamespace('default'), 'builder', { ...got, automountServiceAccountToken: true }, {});
    assert.equal(object['automountServiceAccountToken'], true);
    assert.equal((await sas.lister.list(inNamespace('default'), {})).items.length, 1);
    await sas.deleter.delete(inNamespace('default'), 'builder', {});
    assert.equal((await sas.collectionDeleter.deleteCollection(inNamespace('default'), {}, {})).items.length, 0);
  });
});
