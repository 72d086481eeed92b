/**
 * Protobuf answers made from the bytes the storage holds (machinery's stored-answer.ts): a GET
 * and a watch event of built-in kinds answer with etcd's value and the resourceVersion spliced
 * in, which must be byte for byte what kapi's Go-form encoder gives for the same object; values
 * that encoding would not give back (fields the schema does not know) are encoded instead.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeObjectGo, encodeObjectRaw, envelopeObject, withResourceVersion } from '@kapi/machinery';
import { createEtcdUnaryClient, type EtcdUnaryClient } from '@kapi/storage';
import { startTestServer, type TestServer } from './testing/fixture.js';

const PB = 'application/vnd.kubernetes.protobuf';
type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };

interface Case {
  /** The collection's path. */
  readonly path: string;
  /** The etcd key of the object below the server's prefix. */
  readonly key: string;
  readonly body: Obj;
}

const ns = '/api/v1/namespaces/default';
const CASES: readonly Case[] = [
  { path: `${ns}/configmaps`, key: 'configmaps/default/sa-cm', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sa-cm', labels: { a: 'b' }, annotations: { note: 'é' } }, data: { k: 'v', empty: '' }, binaryData: { bin: 'AP8=' } } },
  { path: `${ns}/secrets`, key: 'secrets/default/sa-secret', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sa-secret' }, type: 'Opaque', stringData: { password: 'p' } } },
  { path: `${ns}/serviceaccounts`, key: 'serviceaccounts/default/sa-sa', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa-sa' }, automountServiceAccountToken: false } },
  { path: `${ns}/services`, key: 'services/specs/default/sa-svc', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sa-svc' }, spec: { selector: { app: 'x' }, ports: [{ port: 80, targetPort: 8080 }] } } },
  {
    path: `${ns}/pods`,
    key: 'pods/default/sa-pod',
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sa-pod', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m', memory: '64Mi' } }, ports: [{ containerPort: 80 }] }] } },
  },
  {
    path: '/apis/apps/v1/namespaces/default/deployments',
    key: 'deployments/default/sa-deploy',
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'sa-deploy' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    },
  },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', key: 'roles/default/sa-role', body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'sa-role' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } },
  { path: '/api/v1/namespaces', key: 'namespaces/sa-ns', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sa-ns', labels: { team: 'a' } } } },
  { path: '/apis/scheduling.k8s.io/v1/priorityclasses', key: 'priorityclasses/sa-priority', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'sa-priority' }, value: 1000, description: 'd' } },
  { path: '/apis/coordination.k8s.io/v1/namespaces/default/leases', key: 'leases/default/sa-lease', body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'sa-lease' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } } },
];

/** The enveloped object of each protobuf watch frame in `data` (4-byte length + WatchEvent{type=1, object=2: RawExtension{raw=1}}). */
function frameObjects(data: Buffer): { type: string; raw: Buffer }[] {
  const out: { type: string; raw: Buffer }[] = [];
  let offset = 0;
  while (data.length - offset >= 4) {
    const length = data.readUInt32BE(offset);
    if (data.length - offset - 4 < length) break;
    const event = data.subarray(offset + 4, offset + 4 + length);
    let type = '';
    let raw: Buffer = Buffer.alloc(0);
    for (let pos = 0; pos < event.length; ) {
      const tag = event[pos++]!;
      let size = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = event[pos++]!;
        size += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) break;
      }
      const value = event.subarray(pos, pos + size);
      pos += size;
      if (tag === 0x0a) type = value.toString('utf8');
      // RawExtension: raw is its field 1, which is all it holds.
      if (tag === 0x12) raw = value.subarray(value.length - rawLength(value));
    }
    out.push({ type, raw });
    offset += 4 + length;
  }
  return out;
}

/** The length of RawExtension's raw (field 1, its only field) from the message `value`. */
function rawLength(value: Buffer): number {
  let length = 0;
  let pos = 1;
  for (let shift = 0; ; shift += 7) {
    const byte = value[pos++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  assert.equal(pos + length, value.length);
  return length;
}

void describe('protobuf answers from stored bytes', () => {
  let t: TestServer;
  let etcd: EtcdUnaryClient;
  const get = async (path: string, accept: string): Promise<{ status: number; body: Buffer }> => {
    const res = await fetch(t.url + path, { headers: { accept } });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const stored = async (key: string): Promise<{ value: Buffer; modRevision: string }> => {
    const kv = (await etcd.range({ key: Buffer.from(`${t.etcdPrefix}/${key}`) }, 5000)).kvs[0];
    assert.ok(kv !== undefined, key);
    return { value: kv.value, modRevision: String(kv.mod_revision) };
  };

  before(async () => {
    t = await startTestServer();
    etcd = createEtcdUnaryClient(t.etcd.endpoints);
  });
  after(async () => {
    etcd.close();
    await t.close();
  });

  void it("answers a GET with etcd's value and its resourceVersion: kapi's Go-form encoding of the object, byte for byte", async () => {
    for (const c of CASES) {
      const created = await t.request('POST', c.path, { body: c.body });
      assert.equal(created.status, 201, `${c.body.kind}: ${JSON.stringify(created.json)}`);
      const path = `${c.path}/${String(c.body.metadata['name'])}`;
      const asJson = await t.request('GET', path);
      const type = { apiVersion: c.body.apiVersion, kind: c.body.kind };
      const { value, modRevision } = await stored(c.key);
      for (const query of ['', '?resourceVersion=']) {
        const answer = await get(path + query, PB);
        assert.equal(answer.status, 200, c.body.kind);
        const object = decodeObject(answer.body, type).object as Obj;
        assert.deepEqual(object, asJson.json, `${c.body.kind}: the object a JSON GET answers`);
        assert.equal(object.metadata['resourceVersion'], modRevision);
        assert.deepEqual(answer.body, encodeObjectGo(object), `${c.body.kind}: kapi's Go-form encoding`);
        assert.deepEqual(answer.body, withResourceVersion(value, type.apiVersion, type.kind, modRevision), `${c.body.kind}: the stored bytes`);
      }
      // From the watch cache (no bytes kept there): the same object, whichever way it is encoded.
      const cached = await get(`${path}?resourceVersion=0`, PB);
      assert.deepEqual(decodeObject(cached.body, type).object, asJson.json, `${c.body.kind} resourceVersion=0`);
    }
  });

  void it('answers a PUT and a PATCH in protobuf with the bytes they stored and the resourceVersion', async () => {
    const cms = `${ns}/configmaps`;
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sa-updated' }, data: { a: '1' } };
    assert.equal((await t.request('POST', cms, { body })).status, 201);
    const type = { apiVersion: 'v1', kind: 'ConfigMap' };
    const check = async (answer: Response, what: string) => {
      assert.equal(answer.status, 200, what);
      assert.equal(answer.headers.get('content-type'), PB);
      const bytes = Buffer.from(await answer.arrayBuffer());
      const object = decodeObject(bytes, type).object as Obj;
      const { value, modRevision } = await stored('configmaps/default/sa-updated');
      assert.equal(object.metadata['resourceVersion'], modRevision, what);
      assert.deepEqual(bytes, withResourceVersion(value, 'v1', 'ConfigMap', modRevision), `${what}: the stored bytes`);
      assert.deepEqual(bytes, encodeObjectGo(object), `${what}: kapi's Go-form encoding`);
      // The object the watch cache now shares is the one answered, unchanged by the answer.
      assert.deepEqual((await t.request('GET', `${cms}/sa-updated?resourceVersion=0`)).json, object, what);
      assert.deepEqual((await t.request('GET', `${cms}/sa-updated`)).json, object, what);
      return object;
    };
    const put = await fetch(`${t.url}${cms}/sa-updated`, { method: 'PUT', headers: { accept: PB, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, data: { a: '2', b: '' } }) });
    const afterPut = await check(put, 'PUT');
    assert.deepEqual(afterPut['data'], { a: '2', b: '' });
    const patch = await fetch(`${t.url}${cms}/sa-updated`, { method: 'PATCH', headers: { accept: PB, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { l: 'x' } }, data: { c: '3' } }) });
    const afterPatch = await check(patch, 'PATCH');
    assert.deepEqual(afterPatch['data'], { a: '2', b: '', c: '3' });
    // A subresource's answer (a Scale made from the Deployment) is encoded, and leaves the cached Deployment as it is.
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const scale = await fetch(`${t.url}${deployments}/sa-deploy/scale`, { method: 'PATCH', headers: { accept: PB, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { replicas: 3 } }) });
    assert.equal(scale.status, 200);
    const scaled = decodeObject(Buffer.from(await scale.arrayBuffer()), { apiVersion: 'autoscaling/v1', kind: 'Scale' }).object as Obj;
    assert.deepEqual(scaled['spec'], { replicas: 3 });
    const deployment = (await t.request('GET', `${deployments}/sa-deploy`)).json as Obj;
    assert.equal((deployment['spec'] as Record<string, unknown>)['replicas'], 3);
    assert.equal(deployment.metadata['resourceVersion'], scaled.metadata['resourceVersion']);
  });

  void it('encodes a value with a field the schema does not know, as its JSON answer has it', async () => {
    const obj: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sa-unknown', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { k: 'v' } };
    // ConfigMap's message with a field 99 appended (a newer server's field), enveloped as kube writes it.
    const known = encodeObjectGo(obj);
    const raw = Buffer.concat([Buffer.from(encodeObjectRaw(obj)), Buffer.from([0x9a, 0x06, 0x01, 0x78])]);
    const withUnknown = Buffer.from(envelopeObject(obj, raw));
    assert.notDeepEqual(withUnknown, known);
    await etcd.put({ key: Buffer.from(`${t.etcdPrefix}/configmaps/default/sa-unknown`), value: withUnknown }, 5000);
    const { modRevision } = await stored('configmaps/default/sa-unknown');
    const asJson = await t.request('GET', `${ns}/configmaps/sa-unknown`);
    assert.equal(asJson.status, 200);
    const answer = await get(`${ns}/configmaps/sa-unknown`, PB);
    assert.equal(answer.status, 200);
    const object = decodeObject(answer.body, { apiVersion: 'v1', kind: 'ConfigMap' }).object as Obj;
    assert.deepEqual(object, asJson.json);
    assert.equal(object.metadata['resourceVersion'], modRevision);
    assert.equal(answer.body.indexOf(Buffer.from([0x9a, 0x06, 0x01, 0x78])), -1, 'the unknown field is not answered');
    assert.notDeepEqual(answer.body, withResourceVersion(withUnknown, 'v1', 'ConfigMap', modRevision));
  });

  void it("sends a protobuf watcher this process's writes as the stored bytes with their resourceVersion", async () => {
    const cms = `${ns}/configmaps`;
    const list = await t.request('GET', `${cms}?limit=1`);
    const rv = String((list.json['metadata'] as Record<string, unknown>)['resourceVersion']);
    const abort = new AbortController();
    const res = await fetch(`${t.url}${cms}?watch=true&resourceVersion=${rv}&timeoutSeconds=30`, { headers: { accept: PB }, signal: abort.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let buffered = Buffer.alloc(0);
    const frames: { type: string; raw: Buffer }[] = [];
    try {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sa-watched', labels: { a: 'b' } }, data: { a: '1' } };
      assert.equal((await t.request('POST', cms, { body })).status, 201);
      const updated = await t.request('PUT', `${cms}/sa-watched`, { body: { ...body, metadata: { ...body.metadata, resourceVersion: undefined }, data: { a: '2', b: '' } } });
      assert.equal(updated.status, 200);
      const { value, modRevision } = await stored('configmaps/default/sa-watched');
      while (frames.length < 2) {
        const { value: chunk, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered = Buffer.concat([buffered, chunk]);
        frames.splice(0, frames.length, ...frameObjects(buffered));
      }
      assert.deepEqual(frames.map((f) => f.type), ['ADDED', 'MODIFIED']);
      for (const frame of frames) {
        const object = decodeObject(frame.raw, { apiVersion: 'v1', kind: 'ConfigMap' }).object as Obj;
        assert.deepEqual(frame.raw, encodeObjectGo(object), `${frame.type}: kapi's Go-form encoding`);
      }
      assert.deepEqual(frames[1]!.raw, withResourceVersion(value, 'v1', 'ConfigMap', modRevision));
    } finally {
      abort.abort();
    }
  });
});
