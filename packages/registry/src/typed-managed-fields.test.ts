/**
 * managedFields of built-in kinds as kube-apiserver 1.32 writes them, which compares the Go
 * views of the old and new objects (store-context.ts `fieldManagerScope`), and what reads
 * show for lists Go writes as null. Every expected value was read from a real
 * kube-apiserver v1.32.13 given the same requests.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { createEtcdStorage, kubeStorageCodec, type EtcdStorage } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { JSON_STORED_KINDS } from './json-stored-kinds.js';
import { createRegistry, type Registry } from './registry.js';
import { clusterScope, inNamespace, resource } from './testing/registry-fixture.js';

const fieldsOf = (obj: KubeObject) => (obj.metadata.managedFields as { fieldsV1: unknown }[] | undefined)?.map((e) => e.fieldsV1);
const asUpdater = { userAgent: 'test/1.0' };
// A CSR request kube accepts (P-256 key, CN=kapi-sample).
const CSR_PEM =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIUE1IZ0NBUUF3RmpFVU1CSUdBMVVFQXd3TGEyRndhUzF6WVcxd2JHVXdXVEFUQmdjcWhrak9QUUlCQmdncQpoa2pPUFFNQkJ3TkNBQVExcXpoaGxOZ3hHNzZKYVZIK0wrTkE3VU9HSmVtRE5WNXIwbGk0RXAwNmV3N09zeGlRCmI2ZmJ5eDk3b2M1ZUJRcXdlNlkzd295am9saUlCeTh1OWYrcm9BQXdDZ1lJS29aSXpqMEVBd0lEUndBd1JBSWcKUzJZZTkrcWppUWVCNVJ2YURXSkZUYjNtNzIvWXRZR0JYMlVHR3Bjb1k1RUNJRm9VZkIyZ29XZTBXK0tHMmRVNAppdU10UE9MQkRkUUlzbjdUZm1vS1ZpT2wKLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';

void describe('managedFields of built-in kinds (Go views)', () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  let registry: Registry;
  before(async () => {
    etcd = await startEtcd();
    // Stored as kube-apiserver stores them (protobuf), so reads decode as kube's do.
    storage = createEtcdStorage({ endpoints: etcd.endpoints, codec: kubeStorageCodec('application/vnd.kubernetes.protobuf', JSON_STORED_KINDS) });
    registry = createRegistry({ storage, prefix: uniquePrefix('typed-managed-fields') });
    await registry.ensureSystemNamespaces();
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void it('ClusterRole rules: null when absent or null, [] owned but read back as null', async () => {
    const roles = resource(registry, 'clusterroles', 'rbac.authorization.k8s.io');
    const create = (name: string, rules?: unknown) =>
      roles.creater.create({ ...clusterScope, ...asUpdater }, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, ...(rules !== undefined ? { rules } : {}) }, {});
    const absent = await create('absent');
    assert.equal(absent['rules'], null);
    assert.equal(absent.metadata.managedFields, undefined);
    const empty = await create('empty', []);
    assert.equal(empty['rules'], null);
    assert.deepEqual(fieldsOf(empty), [{ 'f:rules': {} }]);
    const nulled = await create('nulled', null);
    assert.equal(nulled['rules'], null);
    assert.equal(nulled.metadata.managedFields, undefined);
    // A dry run answers with what storage would read back, as kube's does.
    const dry = await roles.creater.create({ ...clusterScope, ...asUpdater }, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'dry' } }, { dryRun: true });
    assert.equal(dry['rules'], null);
    const dryUpdate = await roles.updater.update({ ...clusterScope, ...asUpdater }, 'nulled', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'nulled', labels: { dry: 'run' } } }, { dryRun: true });
    assert.equal(dryUpdate.object['rules'], null);
    const got = await roles.getter.get(clusterScope, 'absent', {});
    assert.equal(got['rules'], null);
    const listed = await roles.lister.list(clusterScope, {});
    assert.equal(listed.items.find((r) => r.metadata.name === 'nulled')?.['rules'], null);
    // An update from null to [] is a change Go sees.
    const labelled = await roles.creater.create({ ...clusterScope, ...asUpdater }, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'labelled', labels: { a: 'b' } } }, {});
    const updated = await roles.updater.update({ ...clusterScope, ...asUpdater }, 'labelled', { ...labelled, rules: [] }, { fieldManager: 'second' });
    const byManager = Object.fromEntries((updated.object.metadata.managedFields as { manager: string; fieldsV1: unknown }[]).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(byManager, { test: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }, second: { 'f:rules': {} } });
    assert.equal(updated.object['rules'], null);
  });

  void it('CSINode: a new driver owns its null topologyKeys; spec itself gets no "." (a value struct)', async () => {
    const nodes = resource(registry, 'csinodes', 'storage.k8s.io');
    const created = await nodes.creater.create({ ...clusterScope, ...asUpdater }, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'n1' }, spec: { drivers: [{ name: 'd.example.com', nodeID: 'n1' }] } }, {});
    assert.deepEqual(created['spec'], { drivers: [{ name: 'd.example.com', nodeID: 'n1', topologyKeys: null }] });
    assert.deepEqual(fieldsOf(created), [{ 'f:spec': { 'f:drivers': { 'k:{"name":"d.example.com"}': { '.': {}, 'f:name': {}, 'f:nodeID': {}, 'f:topologyKeys': {} } } } }]);
    const bare = await nodes.creater.create({ ...clusterScope, ...asUpdater }, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'n2' }, spec: {} }, {});
    assert.deepEqual(bare['spec'], { drivers: null });
    assert.equal(bare.metadata.managedFields, undefined);
  });

  void it('Deployment: no "." for spec, template, strategy or containers; one for each new list item', async () => {
    const deployments = resource(registry, 'deployments', 'apps');
    const created = await deployments.creater.create(
      { ...inNamespace('default'), ...asUpdater },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      },
      {},
    );
    const fields = fieldsOf(created)![0] as Record<string, Record<string, unknown>>;
    const spec = fields['f:spec']!;
    assert.equal('.' in spec, false);
    assert.deepEqual(spec['f:selector'], {}, 'a pointer struct set: atomic LabelSelector');
    const template = spec['f:template'] as Record<string, Record<string, unknown>>;
    assert.equal('.' in template, false);
    assert.equal('.' in template['f:spec']!, false);
    assert.equal('.' in (template['f:spec']!['f:containers'] as object), false);
    assert.deepEqual(Object.keys((template['f:spec']!['f:containers'] as Record<string, Record<string, unknown>>)['k:{"name":"c"}']!).sort(), [
      '.', 'f:image', 'f:imagePullPolicy', 'f:name', 'f:resources', 'f:terminationMessagePath', 'f:terminationMessagePolicy',
    ]);
    assert.equal('.' in (spec['f:strategy'] as object), false);
  });

  void it('ControllerRevision data (a RawExtension) is owned as one value', async () => {
    const revisions = resource(registry, 'controllerrevisions', 'apps');
    const created = await revisions.creater.create({ ...inNamespace('default'), ...asUpdater }, { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { spec: { replicas: 1 } }, revision: 1 }, {});
    assert.deepEqual(fieldsOf(created), [{ 'f:data': {}, 'f:revision': {} }]);
  });

  void it('CertificateSigningRequest: a create does not own spec (kube resets it on the main resource)', async () => {
    const csrs = resource(registry, 'certificatesigningrequests', 'certificates.k8s.io');
    const created = await csrs.creater.create(
      { ...clusterScope, ...asUpdater },
      { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c', labels: { sample: 'yes' } }, spec: { request: CSR_PEM, signerName: 'example.com/sample', usages: ['digital signature'] } },
      {},
    );
    assert.deepEqual(fieldsOf(created), [{ 'f:metadata': { 'f:labels': { '.': {}, 'f:sample': {} } } }]);
  });
});
