/**
 * Moving a cluster between kube-apiserver 1.32 and kapi (issue 26): both servers on one etcd,
 * with one encryption configuration (Secrets under aescbc). kube writes objects of several
 * kinds — Secret bytes, Quantities, a custom resource — and kapi reads, lists, watches, updates
 * and deletes them; kapi writes and kube reads and updates; both run at once with a watcher on
 * each; kapi's encoder reproduces kube's stored bytes exactly; one corrupt value fails only the
 * requests that touch it, in both. Skipped, with the reason, without the kube-apiserver binary.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { startKapiServer, type KapiServer } from '@kapi/apiserver/testing';
import { decodeStoredObject, kubeStorageCodec } from '@kapi/storage';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { kubeReferenceBinary, REFERENCE_TOKEN, startKubeReference, type KubeReference } from '../harness/kube-reference.js';
import { RestClient, type KubeObject } from '../harness/rest.js';
import { openWatch, type WatchEvent, type WatchStream } from '../harness/watch-stream.js';

const binary = kubeReferenceBinary();
const NS = 'migrate';
const core = `/api/v1/namespaces/${NS}`;
const ENCRYPTION_CONFIG = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aescbc:
      keys:
      - name: k1
        secret: ${Buffer.alloc(32, 0x5a).toString('base64')}
  - identity: {}
`;
const BINARY_BYTES = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x00]).toString('base64');

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
  },
};

/** What kube-apiserver creates, by path (the collection's path + name). */
const KUBE_OBJECTS: { collection: string; object: Record<string, unknown> }[] = [
  { collection: `${core}/configmaps`, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-kube', labels: { app: 'x' } }, data: { a: '1' }, binaryData: { b: BINARY_BYTES } } },
  { collection: `${core}/secrets`, object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'from-kube' }, type: 'Opaque', data: { bytes: BINARY_BYTES } } },
  { collection: `${core}/serviceaccounts`, object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'from-kube' }, automountServiceAccountToken: false } },
  { collection: `${core}/resourcequotas`, object: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'from-kube' }, spec: { hard: { cpu: '1500m', memory: '1Gi', pods: '10' } } } },
  {
    collection: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
    object: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'from-kube' }, spec: { holderIdentity: 'kube', leaseDurationSeconds: 15, renewTime: '2026-01-02T03:04:05.123456Z' } },
  },
];
const CR_COLLECTION = `/apis/example.com/v1/namespaces/${NS}/widgets`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

void describe('kube-apiserver 1.32 and kapi on one etcd', { skip: binary === undefined ? 'no kube-apiserver binary (set KAPI_KUBE_APISERVER)' : false }, () => {
  let etcd: TestEtcd;
  let etcdClient: Etcd3;
  let dir: string;
  let kube: KubeReference;
  let kapi: KapiServer;
  let kubeClient: RestClient;
  let kapiClient: RestClient;
  const raw = async (key: string): Promise<Buffer> => {
    const value = await etcdClient.get(key).buffer();
    assert.ok(value !== null, `nothing at ${key}`);
    return value;
  };

  before(async () => {
    etcd = await startEtcd();
    etcdClient = new Etcd3({ hosts: etcd.endpoints });
    dir = mkdtempSync(join(tmpdir(), 'kapi-migration-'));
    const config = join(dir, 'encryption.yaml');
    writeFileSync(config, ENCRYPTION_CONFIG);
    kube = await startKubeReference(binary!, { etcd, extraArgs: [`--encryption-provider-config=${config}`] });
    kubeClient = new RestClient(kube.url, { headers: { authorization: `Bearer ${REFERENCE_TOKEN}` } });
    // kube-apiserver writes first, as a cluster being moved has.
    await kubeClient.expect(201, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const { collection, object } of KUBE_OBJECTS) await kubeClient.expect(201, 'POST', collection, object);
    await kubeClient.expect(201, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
    await eventually('kube serves widgets', async () => ((await kubeClient.request('POST', CR_COLLECTION, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'from-kube' }, spec: { size: 3 } })).status === 201 ? true : undefined));
    kapi = await startKapiServer({ etcdServers: etcd.endpoints, insecure: true, extraArgs: [`--encryption-provider-config=${config}`], startTimeoutMs: 90_000 });
    kapiClient = new RestClient(kapi.insecureUrl!);
  });
  after(async () => {
    kubeClient?.close();
    kapiClient?.close();
    await kapi?.stop();
    await kube?.stop();
    etcdClient?.close();
    await etcd?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  void it('kapi reads and lists every object kube-apiserver wrote, field for field', async () => {
    const paths = [...KUBE_OBJECTS.map(({ collection }) => `${collection}/from-kube`), `/api/v1/namespaces/${NS}`, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com'];
    for (const path of paths) {
      const fromKube = await kubeClient.expect<KubeObject>(200, 'GET', path);
      const fromKapi = await kapiClient.expect<KubeObject>(200, 'GET', path);
      if (path.includes('customresourcedefinitions')) {
        // Both servers keep the CRD's status: compare what kube wrote, not whose controller ran last.
        assert.deepEqual((fromKapi as { spec?: unknown }).spec, (fromKube as { spec?: unknown }).spec, path);
        assert.equal(fromKapi.metadata.uid, fromKube.metadata.uid);
        continue;
      }
      assert.deepEqual(fromKapi, fromKube, path);
    }
    const cr = await eventually('kapi serves widgets', async () => {
      const res = await kapiClient.request<KubeObject>('GET', `${CR_COLLECTION}/from-kube`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.deepEqual(cr, await kubeClient.expect<KubeObject>(200, 'GET', `${CR_COLLECTION}/from-kube`));
    const secret = await kapiClient.expect<{ data: Record<string, string> }>(200, 'GET', `${core}/secrets/from-kube`);
    assert.equal(secret.data['bytes'], BINARY_BYTES);
    const quota = await kapiClient.expect<{ spec: { hard: Record<string, string> } }>(200, 'GET', `${core}/resourcequotas/from-kube`);
    assert.deepEqual(quota.spec.hard, { cpu: '1500m', memory: '1Gi', pods: '10' });
    const list = await kapiClient.expect<{ items: KubeObject[] }>(200, 'GET', `${core}/configmaps?resourceVersion=0`);
    assert.ok(list.items.some((i) => i.metadata.name === 'from-kube'));
  });

  void it("kapi stores the bytes kube-apiserver stores: protobuf for built-ins, JSON for custom resources, Secrets encrypted", async () => {
    const codec = kubeStorageCodec();
    for (const key of [`/registry/configmaps/${NS}/from-kube`, `/registry/serviceaccounts/${NS}/from-kube`, `/registry/resourcequotas/${NS}/from-kube`, `/registry/leases/${NS}/from-kube`, `/registry/namespaces/${NS}`]) {
      const stored = await raw(key);
      assert.equal(stored.subarray(0, 4).toString('latin1'), 'k8s\0', key);
      const object = decodeStoredObject(stored, key);
      const again = codec.encode(object);
      // Decoded and encoded again by kapi: byte for byte what kube-apiserver wrote.
      assert.equal(again.toString('hex'), stored.toString('hex'), `kapi's encoding of ${key} differs from kube's`);
    }
    assert.equal((await raw(`/registry/example.com/widgets/${NS}/from-kube`)).subarray(0, 1).toString(), '{');
    assert.match((await raw(`/registry/secrets/${NS}/from-kube`)).subarray(0, 21).toString('latin1'), /^k8s:enc:aescbc:v1:k1:/);

    await kapiClient.expect(201, 'POST', `${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-kapi' }, data: { x: 'y' } });
    await kapiClient.expect(201, 'POST', `${core}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'from-kapi' }, data: { bytes: BINARY_BYTES } });
    const configMap = await raw(`/registry/configmaps/${NS}/from-kapi`);
    assert.equal(configMap.subarray(0, 4).toString('latin1'), 'k8s\0');
    // kube-apiserver skips an update whose encoding equals the stored bytes: an unchanged PUT
    // through kube leaves kapi's value (and resourceVersion) as it is.
    const asKube = await kubeClient.expect<KubeObject>(200, 'GET', `${core}/configmaps/from-kapi`);
    const put = await kubeClient.expect<KubeObject>(200, 'PUT', `${core}/configmaps/from-kapi`, asKube);
    assert.equal(put.metadata.resourceVersion, asKube.metadata.resourceVersion, 'kube-apiserver found different bytes and wrote again');
    assert.ok((await raw(`/registry/configmaps/${NS}/from-kapi`)).equals(configMap));
    assert.match((await raw(`/registry/secrets/${NS}/from-kapi`)).subarray(0, 21).toString('latin1'), /^k8s:enc:aescbc:v1:k1:/);
    // kube-apiserver reads what kapi wrote, as kapi serves it.
    for (const path of [`${core}/configmaps/from-kapi`, `${core}/secrets/from-kapi`]) {
      assert.deepEqual(await kubeClient.expect<KubeObject>(200, 'GET', path), await kapiClient.expect<KubeObject>(200, 'GET', path), path);
    }
  });

  void it('with both serving, a watcher on each sees every write made through either, once', async () => {
    const list = await kapiClient.expect<{ metadata: { resourceVersion: string } }>(200, 'GET', `${core}/configmaps`);
    const seen = { kube: [] as WatchEvent[], kapi: [] as WatchEvent[] };
    const path = `${core}/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=60`;
    const streams: WatchStream[] = [
      openWatch(kube.url, path, (e) => seen.kube.push(e), { authorization: `Bearer ${REFERENCE_TOKEN}` }),
      openWatch(kapi.insecureUrl!, path, (e) => seen.kapi.push(e)),
    ];
    try {
      const viaKube = await kubeClient.expect<KubeObject & { data: Record<string, string> }>(200, 'GET', `${core}/configmaps/from-kapi`);
      await kubeClient.expect(200, 'PUT', `${core}/configmaps/from-kapi`, { ...viaKube, data: { x: 'written by kube' } });
      const viaKapi = await kapiClient.expect<KubeObject & { data: Record<string, string> }>(200, 'GET', `${core}/configmaps/from-kube`);
      await kapiClient.expect(200, 'PUT', `${core}/configmaps/from-kube`, { ...viaKapi, data: { a: 'written by kapi' } });
      const describe = (events: WatchEvent[]) =>
        events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${String(e.object.metadata.name)} ${JSON.stringify((e.object as { data?: unknown }).data)}`);
      const expected = ['MODIFIED from-kapi {"x":"written by kube"}', 'MODIFIED from-kube {"a":"written by kapi"}'];
      for (const side of ['kube', 'kapi'] as const) {
        await eventually(`the ${side} watcher`, async () => (describe(seen[side]).length >= 2 ? true : undefined));
        await sleep(300);
        assert.deepEqual(describe(seen[side]), expected, side);
      }
    } finally {
      for (const s of streams) s.kill();
    }
  });

  void it("kapi updates and deletes kube-apiserver's objects, and kube sees the result", async () => {
    const quota = await kapiClient.expect<KubeObject & { spec: { hard: Record<string, string> } }>(200, 'GET', `${core}/resourcequotas/from-kube`);
    await kapiClient.expect(200, 'PUT', `${core}/resourcequotas/from-kube`, { ...quota, spec: { hard: { ...quota.spec.hard, cpu: '2' } } });
    const secret = await kapiClient.expect<KubeObject>(200, 'GET', `${core}/secrets/from-kube`);
    await kapiClient.expect(200, 'PUT', `${core}/secrets/from-kube`, { ...secret, data: { bytes: BINARY_BYTES, more: Buffer.from('kapi').toString('base64') } });
    const cr = await kapiClient.expect<KubeObject>(200, 'GET', `${CR_COLLECTION}/from-kube`);
    await kapiClient.expect(200, 'PUT', `${CR_COLLECTION}/from-kube`, { ...cr, spec: { size: 4 } });
    await kapiClient.expect(200, 'DELETE', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/from-kube`);

    assert.equal((await kubeClient.expect<{ spec: { hard: Record<string, string> } }>(200, 'GET', `${core}/resourcequotas/from-kube`)).spec.hard['cpu'], '2');
    assert.deepEqual((await kubeClient.expect<{ data: Record<string, string> }>(200, 'GET', `${core}/secrets/from-kube`)).data, { bytes: BINARY_BYTES, more: Buffer.from('kapi').toString('base64') });
    assert.deepEqual((await kubeClient.expect<{ spec: unknown }>(200, 'GET', `${CR_COLLECTION}/from-kube`)).spec, { size: 4 });
    assert.equal((await kubeClient.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/from-kube`)).status, 404);
    assert.match((await raw(`/registry/secrets/${NS}/from-kube`)).subarray(0, 21).toString('latin1'), /^k8s:enc:aescbc:v1:k1:/);
  });

  void it('a value that does not decode fails only the requests that touch it, in both servers', async () => {
    const key = `/registry/configmaps/${NS}/broken`;
    await etcdClient.put(key).value(Buffer.from('k8s\0garbage'));
    try {
      for (const client of [kubeClient, kapiClient]) {
        const res = await client.request<{ code: number; reason?: string; message: string }>('GET', `${core}/configmaps/broken`);
        assert.equal(res.status, 500, res.text);
        assert.equal(res.body.reason, undefined);
        assert.equal(res.body.message, 'proto: illegal wireType 7');
        assert.equal((await client.request('GET', `${core}/configmaps/from-kube`)).status, 200);
      }
      const metrics = (await kapiClient.request('GET', '/metrics')).text;
      assert.match(metrics, /apiserver_storage_decode_errors_total\{resource="configmaps"\} [1-9]/);
    } finally {
      await etcdClient.delete().key(key);
    }
    // Once the value is gone the resource serves lists again.
    await eventually('kapi lists configmaps again', async () => ((await kapiClient.request('GET', `${core}/configmaps?resourceVersion=0`)).status === 200 ? true : undefined));
  });
});
