/**
 * A new CRD's status as kube-apiserver 1.32 stores and serves it before the CRD controller's
 * first write: `conditions: null` (a Go nil slice without omitempty) before acceptedNames and
 * storedVersions, in the create answer, in later reads and in etcd (kube's v1beta1 JSON), and
 * kept through updates of the main resource; a status write replaces it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEtcdStorage, kubeStorageCodec, type EtcdStorage } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { builtinDefinitions } from '../builtin/index.js';
import { JSON_STORED_KINDS } from '../json-stored-kinds.js';
import { createRegistry, type Registry } from '../registry.js';
import { resource } from '../testing/registry-fixture.js';
import { customResourceDefinitions } from './crd-resource.js';
import { APIEXTENSIONS_GROUP } from './crd-types.js';

const CLUSTER = { namespace: '', userAgent: 'test-client' };
const INITIAL = { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] };

const crdBody = (plural: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural, kind: plural[0]!.toUpperCase() + plural.slice(1, -1) },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

void describe('a new CRD\'s status holds conditions: null, as kube\'s', () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  let registry: Registry;
  const prefix = uniquePrefix('crd-initial-status');
  const crds = () => resource(registry, 'customresourcedefinitions', APIEXTENSIONS_GROUP);
  /** The status as stored in etcd (the JSON text after `"status":`). */
  const storedStatus = async (name: string): Promise<string> => {
    const res = await fetch(`${etcd.endpoints[0]}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from(`${prefix}/apiextensions.k8s.io/customresourcedefinitions/${name}`).toString('base64') }) });
    const text = Buffer.from(((await res.json()) as { kvs: { value: string }[] }).kvs[0]!.value, 'base64').toString('utf8');
    return text.slice(text.indexOf('"status":') + '"status":'.length).trim();
  };

  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints, codec: kubeStorageCodec('application/vnd.kubernetes.protobuf', JSON_STORED_KINDS) });
    registry = createRegistry({ storage, prefix, definitions: [...builtinDefinitions, customResourceDefinitions] });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void it('in the create answer, later reads and etcd, in kube\'s field order; a client\'s status is dropped', async () => {
    const created = await crds().creater.create(CLUSTER, { ...crdBody('gadgets'), status: { conditions: [{ type: 'Established', status: 'True' }] } }, {});
    assert.equal(JSON.stringify(created['status']), JSON.stringify(INITIAL));
    const got = await crds().getter.get(CLUSTER, 'gadgets.example.com', {});
    assert.equal(JSON.stringify(got['status']), JSON.stringify(INITIAL));
    assert.equal((await crds().lister.list(CLUSTER, {})).items.map((i) => JSON.stringify(i['status'])).join(), JSON.stringify(INITIAL));
    assert.equal(await storedStatus('gadgets.example.com'), `${JSON.stringify(INITIAL)}}`);
  });

  void it('kept by updates of the main resource (PUT of what was read, merge patch, apply); replaced by a status write', async () => {
    const got = await crds().getter.get(CLUSTER, 'gadgets.example.com', {});
    const { object: updated } = await crds().updater.update(CLUSTER, 'gadgets.example.com', { ...got, metadata: { ...got.metadata, labels: { a: 'b' } } }, {});
    assert.equal(JSON.stringify(updated['status']), JSON.stringify(INITIAL));
    const { object: patched } = await crds().patcher.patch(CLUSTER, 'gadgets.example.com', { type: 'application/merge-patch+json', body: { metadata: { labels: { c: 'd' } } } }, {});
    assert.equal(JSON.stringify(patched['status']), JSON.stringify(INITIAL));
    const { object: applied } = await crds().patcher.patch(
      CLUSTER,
      'gadgets.example.com',
      { type: 'application/apply-patch+yaml', body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com', labels: { e: 'f' } } } },
      { fieldManager: 'applier' },
    );
    assert.equal(JSON.stringify(applied['status']), JSON.stringify(INITIAL));
    const status = resource(registry, 'customresourcedefinitions', APIEXTENSIONS_GROUP).subresources!.get('status')!.updater!;
    const condition = { type: 'Established', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
    const { object: written } = await status.update(CLUSTER, 'gadgets.example.com', { ...applied, status: { ...INITIAL, conditions: [condition] } }, {});
    assert.deepEqual((written['status'] as { conditions: unknown }).conditions, [condition]);
    // A client's null (Go: the zero value) is taken as kube takes it: no conditions.
    const { object: cleared } = await status.update(CLUSTER, 'gadgets.example.com', { ...written, status: { ...INITIAL, conditions: null } }, {});
    assert.equal(JSON.stringify(cleared['status']), JSON.stringify(INITIAL));
  });
});
