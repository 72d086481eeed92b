/**
 * Representations over HTTP against a real etcd: protobuf bodies and responses (objects,
 * lists, Status errors, watch frames), Tables (columns, includeObject, paging, watch),
 * PartialObjectMetadata, YAML, gzip and Content-Type on every response.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { decodeList, decodeObject, decodeWatchFrames, encodeEnvelope, encodeObjectGo, encodeObjectRaw, envelopeObject, withResourceVersion } from '@kapi/machinery';
import { createEtcdUnaryClient } from '@kapi/storage';
import { startTestServer, type TestServer } from './testing/fixture.js';

const PB = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const NS = '/api/v1/namespaces/default';
const CM = `${NS}/configmaps`;

interface RawResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

const pbObject = (obj: Record<string, unknown>) => envelopeObject(obj, encodeObjectRaw(obj));

void describe('representations over HTTP', () => {
  let t: TestServer;
  const raw = async (method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<RawResponse> => {
    const res = await fetch(t.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };
  const json = (r: RawResponse) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('creates, updates and deletes with protobuf bodies; answers protobuf when asked first', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb', labels: { a: 'b' } }, data: { k: 'v' }, binaryData: { bin: Buffer.from([0, 255]).toString('base64') } };
    const created = await raw('POST', `${CM}?fieldManager=test`, { 'content-type': PB, accept: `${PB},application/json` }, pbObject(cm));
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('content-type'), PB);
    const obj = decodeObject(created.body, { apiVersion: 'v1', kind: 'ConfigMap' }).object as { metadata: Record<string, unknown>; data: unknown; binaryData: unknown };
    assert.equal(obj.metadata['name'], 'pb');
    assert.equal(obj.metadata['namespace'], 'default');
    assert.deepEqual(obj.data, { k: 'v' });
    assert.deepEqual(obj.binaryData, cm.binaryData);

    // PUT with a protobuf body; the JSON answer for a client that prefers JSON.
    const update = { ...cm, metadata: { ...cm.metadata, resourceVersion: obj.metadata['resourceVersion'] }, data: { k: 'v2' } };
    const updated = await raw('PUT', `${CM}/pb`, { 'content-type': `${PB}; charset=binary`, accept: 'application/json' }, pbObject(update));
    assert.equal(updated.status, 200);
    assert.equal(updated.headers.get('content-type'), 'application/json');
    assert.deepEqual(json(updated)['data'], { k: 'v2' });

    // DELETE with a protobuf DeleteOptions (typed clients send one, typed as the resource's group version).
    const options = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } };
    const conflict = await raw('DELETE', `${CM}/pb`, { 'content-type': PB, accept: PB }, encodeEnvelope('v1', 'DeleteOptions', encodeObjectRaw({ ...options, apiVersion: 'meta.k8s.io/v1' })));
    assert.equal(conflict.status, 409);
    const status = decodeObject(conflict.body, { apiVersion: 'v1', kind: 'Status' }).object;
    assert.equal(status['reason'], 'Conflict');
    const deleted = await raw('DELETE', `${CM}/pb`, { 'content-type': PB, accept: PB }, encodeEnvelope('v1', 'DeleteOptions', encodeObjectRaw({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', propagationPolicy: 'Background' })));
    assert.equal(deleted.status, 200);
    assert.equal(decodeObject(deleted.body, { apiVersion: 'v1', kind: 'Status' }).object['status'], 'Success');
  });

  void it('answers a protobuf create as kube does: the bytes it stored, with the resourceVersion', async () => {
    // As client-go sends it: Go's bytes, every value field written.
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-stored', labels: { a: 'b' } }, data: { k: 'v', 'k.2': 'é' } };
    const created = await raw('POST', CM, { 'content-type': PB, accept: PB }, encodeObjectGo(cm));
    assert.equal(created.status, 201);
    const answered = decodeObject(created.body, { apiVersion: 'v1', kind: 'ConfigMap' }).object as { metadata: Record<string, unknown> };
    const etcd = createEtcdUnaryClient(t.etcd.endpoints);
    try {
      const stored = (await etcd.range({ key: Buffer.from(`${t.etcdPrefix}/configmaps/default/pb-stored`) }, 5000)).kvs[0]!.value;
      const resourceVersion = String(answered.metadata['resourceVersion']);
      assert.deepEqual(created.body, withResourceVersion(stored, 'v1', 'ConfigMap', resourceVersion));
      // Go's form: what encoding the answered object in Go's form gives (its zero values written).
      assert.deepEqual(created.body, encodeObjectGo(answered));
    } finally {
      etcd.close();
    }
    // The same object a JSON GET answers, and the same as kapi's full encoding of it decodes to.
    const got = json(await raw('GET', `${CM}/pb-stored`, { accept: 'application/json' }));
    assert.deepEqual(answered, got);
    assert.deepEqual(decodeObject(pbObject(got), { apiVersion: 'v1', kind: 'ConfigMap' }).object, answered);
  });

  void it('takes a protobuf create as it is: only fields its schema has, so Strict passes with no warning', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-strict', labels: { a: 'b' }, annotations: { n: '1' }, selfLink: '/x' }, data: { k: 'v' }, immutable: false };
    const strict = await raw('POST', `${CM}?fieldValidation=Strict`, { 'content-type': PB, accept: 'application/json' }, encodeObjectGo(cm));
    assert.equal(strict.status, 201, strict.body.toString());
    assert.equal(strict.headers.get('warning'), null);
    const stored = json(strict) as { metadata: Record<string, unknown>; data: unknown; immutable: unknown };
    assert.deepEqual(stored.metadata['labels'], { a: 'b' });
    assert.deepEqual(stored.metadata['annotations'], { n: '1' });
    assert.equal(stored.metadata['selfLink'], undefined);
    assert.deepEqual(stored.data, { k: 'v' });
    assert.equal(stored.immutable, false);
  });

  void it('rejects bad protobuf bodies with kube\'s 400 texts', async () => {
    const post = (body: Buffer | string) => raw('POST', CM, { 'content-type': PB }, body);
    const message = async (body: Buffer | string) => {
      const res = await post(body);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/json');
      return json(res)['message'];
    };
    assert.equal(await message('{"kind":"ConfigMap"}'), 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap"})');
    assert.equal(await message(Buffer.from('0123456789abcdef0123456789abcdef')), 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (303132333435363738396162636465663031323334353637383961626364 ...)');
    assert.equal(await message(''), 'the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)');
    assert.equal(await message(Buffer.from('k8s\0')), 'the object provided is unrecognized (must be of type ConfigMap): empty body (6b387300)');
    const good = pbObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
    assert.match(String(await message(good.subarray(0, good.length - 2))), /^the object provided is unrecognized \(must be of type ConfigMap\): unexpected EOF \(/);
    const truncatedRaw = encodeObjectRaw({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
    assert.equal(await message(encodeEnvelope('v1', 'ConfigMap', truncatedRaw.subarray(0, truncatedRaw.length - 1))), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF');
    const secret = pbObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    assert.equal(await message(secret), 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion');
  });

  void it('answers errors of resource requests as a protobuf Status, and non-resource errors as JSON', async () => {
    const missing = await raw('GET', `${CM}/missing`, { accept: `${PB}, application/json` });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), PB);
    assert.deepEqual(decodeObject(missing.body, { apiVersion: 'v1', kind: 'Status' }).object, {
      apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404,
    });
    const version = await raw('GET', '/version/x', { accept: PB });
    assert.equal(version.headers.get('content-type'), 'application/json');
  });

  void it('lists as protobuf with the same content as JSON; YAML and gzip', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await t.request('POST', CM, { body: { metadata: { name: `list-${i}` }, data: { i: String(i) } } })).status, 201);
    const asJson = (await t.request('GET', `${CM}?labelSelector=`)).json;
    const asPb = await raw('GET', `${CM}?resourceVersion=${String((asJson['metadata'] as Record<string, unknown>)['resourceVersion'])}&resourceVersionMatch=Exact`, { accept: PB });
    assert.equal(asPb.headers.get('content-type'), PB);
    // kube's JSON lists of built-ins leave out each item's apiVersion and kind; protobuf items have none either (decodeList adds them).
    const items = asJson['items'] as Record<string, unknown>[];
    assert.ok(items.every((item) => item['kind'] === undefined && item['apiVersion'] === undefined));
    const pbList = decodeList(asPb.body);
    assert.deepEqual({ ...pbList, items: pbList.items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) }, asJson);

    const yaml = await raw('GET', `${CM}/list-1`, { accept: 'application/yaml' });
    assert.equal(yaml.headers.get('content-type'), 'application/yaml');
    assert.match(yaml.body.toString(), /^apiVersion: v1\ndata:\n {2}i: "1"\nkind: ConfigMap\nmetadata:\n {2}creationTimestamp: /);
    const fromYaml = await raw('POST', CM, { 'content-type': 'application/yaml; charset=utf-8' }, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n');
    assert.equal(fromYaml.status, 201);
  });

  void it('gzips responses of 128 KiB and more when asked, never smaller ones or watches', async () => {
    const big = 'x'.repeat(100 * 1024);
    for (const name of ['big-1', 'big-2']) assert.equal((await t.request('POST', CM, { body: { metadata: { name }, data: { big } } })).status, 201);
    const get = (path: string, headers: Record<string, string>) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = httpRequest(t.url + path, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    const compressed = await get(CM, { 'accept-encoding': 'gzip, deflate' });
    assert.equal(compressed.headers['content-encoding'], 'gzip');
    assert.equal(compressed.headers['vary'], 'Accept-Encoding');
    assert.equal(compressed.headers['content-type'], 'application/json');
    const list = JSON.parse(gunzipSync(compressed.body).toString()) as { items: { metadata: { name: string } }[] };
    assert.ok(list.items.some((i) => i.metadata.name === 'big-2'));
    assert.ok(compressed.body.length < 64 * 1024);

    const pb = await get(CM, { 'accept-encoding': 'gzip', accept: PB });
    assert.equal(pb.headers['content-encoding'], 'gzip');
    assert.equal(decodeList(gunzipSync(pb.body)).items.length, list.items.length);

    const plain = await get(CM, {});
    assert.equal(plain.headers['content-encoding'], undefined);
    const small = await get(`${CM}/list-1`, { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    const qualified = await get(CM, { 'accept-encoding': 'gzip;q=1.0' });
    assert.equal(qualified.headers['content-encoding'], undefined, 'kube matches the bare token only');
  });

  void it('streams protobuf watch frames (ADDED, MODIFIED, DELETED, BOOKMARK) with the stream Content-Type', async () => {
    const start = await t.request('GET', `${CM}?limit=1`);
    const rv = String((start.json['metadata'] as Record<string, unknown>)['resourceVersion']);
    const abort = new AbortController();
    const res = await fetch(`${t.url}${CM}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=30`, { headers: { accept: `${PB}, application/json`, 'accept-encoding': 'gzip' }, signal: abort.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), `${PB};stream=watch`);
    assert.equal(res.headers.get('content-encoding'), null);
    const reader = res.body!.getReader();
    let buffered = Buffer.alloc(0);
    const events: { type: string; object: Record<string, unknown> }[] = [];
    const until = async (count: number) => {
      while (events.length < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered = Buffer.concat([buffered, value]);
        const decoded = decodeWatchFrames(buffered);
        buffered = Buffer.from(decoded.rest);
        events.push(...decoded.events.filter((e) => e.type !== 'BOOKMARK').map((e) => ({ type: e.type, object: e.object.object })));
      }
    };
    try {
      assert.equal((await t.request('POST', CM, { body: { metadata: { name: 'watched' }, data: { a: '1' } } })).status, 201);
      assert.equal((await t.request('PATCH', `${CM}/watched`, { body: { data: { a: '2' } }, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
      assert.equal((await t.request('DELETE', `${CM}/watched`)).status, 200);
      await until(3);
      assert.deepEqual(events.map((e) => [e.type, (e.object['metadata'] as Record<string, unknown>)['name'], e.object['data']]), [
        ['ADDED', 'watched', { a: '1' }],
        ['MODIFIED', 'watched', { a: '2' }],
        ['DELETED', 'watched', { a: '2' }],
      ]);
      assert.equal(events[0]!.object['kind'], 'ConfigMap');
    } finally {
      abort.abort();
    }
  });

  void it('refuses a YAML watch with kube\'s stream media types', async () => {
    const res = await raw('GET', `${CM}?watch=true`, { accept: 'application/yaml' });
    assert.equal(res.status, 406);
    assert.match(res.body.toString(), /only the following media types are accepted:\s+application\/json;stream=watch,\s+application\/vnd\.kubernetes\.protobuf;stream=watch/);
  });

  void it('serves Tables for lists and single objects with kubectl\'s columns, includeObject and paging', async () => {
    const table = await raw('GET', `${CM}?limit=2`, { accept: TABLE });
    assert.equal(table.status, 200);
    assert.equal(table.headers.get('content-type'), 'application/json');
    const body = json(table) as { kind: string; apiVersion: string; metadata: Record<string, unknown>; columnDefinitions: { name: string; priority: number; format: string }[]; rows: { cells: unknown[]; object: Record<string, unknown> }[] };
    assert.equal(body.kind, 'Table');
    assert.equal(body.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(body.columnDefinitions.map((c) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(body.columnDefinitions[0]!.format, 'name');
    assert.equal(body.rows.length, 2);
    assert.match(String(body.metadata['resourceVersion']), /^\d+$/);
    assert.equal(typeof body.metadata['continue'], 'string');
    assert.deepEqual(Object.keys(body.rows[0]!.object), ['kind', 'apiVersion', 'metadata']);
    assert.equal(body.rows[0]!.object['kind'], 'PartialObjectMetadata');

    const next = json(await raw('GET', `${CM}?limit=2&continue=${encodeURIComponent(String(body.metadata['continue']))}`, { accept: TABLE })) as typeof body;
    assert.equal(next.rows.length, 2);
    assert.notDeepEqual(next.rows.map((r) => r.cells[0]), body.rows.map((r) => r.cells[0]));

    const withObjects = json(await raw('GET', `${CM}/list-1?includeObject=Object`, { accept: TABLE })) as typeof body;
    assert.deepEqual(withObjects.rows.map((r) => r.cells.slice(0, 2)), [['list-1', 1]]);
    assert.equal(withObjects.rows[0]!.object['kind'], 'ConfigMap');
    assert.deepEqual(withObjects.rows[0]!.object['data'], { i: '1' });
    assert.equal(withObjects.metadata['resourceVersion'], (withObjects.rows[0]!.object['metadata'] as Record<string, unknown>)['resourceVersion']);

    const none = json(await raw('GET', `${CM}/list-1?includeObject=None`, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' })) as typeof body;
    assert.equal(none.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(none.rows[0]!.object, null);

    const bad = await raw('GET', `${CM}?includeObject=All`, { accept: TABLE });
    assert.equal(bad.status, 400);
    assert.equal(json(bad)['message'], 'Unable to convert to Table as requested: includeObject: Invalid value: "All": must be \'Metadata\', \'Object\', \'None\', or empty');

    const namespaces = json(await raw('GET', '/api/v1/namespaces/default', { accept: TABLE })) as typeof body;
    assert.deepEqual(namespaces.columnDefinitions.map((c) => c.name), ['Name', 'Status', 'Age']);
    assert.deepEqual(namespaces.rows[0]!.cells.slice(0, 2), ['default', 'Active']);

    const notFound = await raw('GET', `${CM}/nope`, { accept: TABLE });
    assert.equal(json(notFound)['kind'], 'Status');
  });

  void it('sends Tables in watch streams with column definitions on the first event only', async () => {
    const abort = new AbortController();
    const res = await fetch(`${t.url}${CM}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dlist-0`, { headers: { accept: TABLE }, signal: abort.signal });
    assert.equal(res.headers.get('content-type'), 'application/json');
    const reader = res.body!.getReader();
    let text = '';
    const lines = async (count: number) => {
      while (text.split('\n').length - 1 < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += Buffer.from(value).toString();
      }
      return text.split('\n').slice(0, count).map((l) => JSON.parse(l) as { type: string; object: { kind: string; columnDefinitions: unknown[] | null; rows: { cells: unknown[] }[] } });
    };
    try {
      await lines(1);
      assert.equal((await t.request('PATCH', `${CM}/list-0`, { body: { data: { a: '1', b: '2' } }, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
      const [first, second] = await lines(2);
      assert.equal(first!.type, 'ADDED');
      assert.equal(first!.object.kind, 'Table');
      assert.equal(first!.object.columnDefinitions?.length, 3);
      assert.equal(second!.type, 'MODIFIED');
      assert.equal(second!.object.columnDefinitions, null);
      assert.deepEqual(second!.object.rows[0]!.cells.slice(0, 2), ['list-0', 3]);
    } finally {
      abort.abort();
    }
  });

  void it('serves PartialObjectMetadata and PartialObjectMetadataList as JSON and protobuf', async () => {
    const accept = (as: string) => `${PB};as=${as};g=meta.k8s.io;v=v1,application/json;as=${as};g=meta.k8s.io;v=v1,application/json`;
    const list = await raw('GET', CM, { accept: accept('PartialObjectMetadataList') });
    assert.equal(list.headers.get('content-type'), PB);
    const decoded = decodeList(list.body);
    assert.equal(decoded.kind, 'PartialObjectMetadataList');
    assert.ok(decoded.items.length > 3);
    assert.deepEqual(Object.keys(decoded.items[0]!).sort(), ['apiVersion', 'kind', 'metadata']);

    const one = await raw('GET', `${CM}/list-1`, { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    assert.deepEqual(Object.keys(json(one)), ['kind', 'apiVersion', 'metadata']);
    const wrong = await raw('GET', CM, { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    assert.equal(wrong.status, 406);
    assert.equal(json(wrong)['message'], 'you requested PartialObjectMetadata, but the requested object is a list (*v1.ConfigMapList)');
  });

  void it('puts a Content-Type on every response', async () => {
    for (const [method, path, headers] of [
      ['GET', '/nope', {}],
      ['GET', '/api/v1/nope', {}],
      ['GET', `${CM}/nope`, { accept: 'application/yaml' }],
      ['POST', CM, { 'content-type': 'text/plain' }],
      ['GET', '/healthz', {}],
      ['GET', '/version', {}],
    ] as const) {
      const res = await raw(method, path, headers, method === 'POST' ? 'x' : undefined);
      assert.ok(res.headers.get('content-type'), `${method} ${path}: ${res.status}`);
    }
  });

  // kube-apiserver 1.32 answered GETs of these ConfigMaps (Accept: application/yaml) with
  // exactly these bodies: sigs.k8s.io/yaml cannot read back the JSON it writes first.
  void it('answers YAML go-yaml cannot write with kube\'s 500 Status', async () => {
    const cases: [string, string, string][] = [
      ['yaml-ctl', 'x\u007fy', 'yaml: control characters are not allowed'],
      ['yaml-doc', 'x\u0085--- y', 'yaml: line 2: found unexpected document indicator'],
    ];
    for (const [name, value, message] of cases) {
      const created = await raw('POST', CM, { 'content-type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: value } }));
      assert.equal(created.status, 201);
      const res = await raw('GET', `${CM}/${name}`, { accept: 'application/yaml' });
      assert.equal(res.status, 500);
      assert.equal(res.headers.get('content-type'), 'application/yaml');
      assert.equal(res.body.toString('utf8'), `apiVersion: v1\ncode: 500\nkind: Status\nmessage: '${message}'\nmetadata: {}\nstatus: Failure\n`);
      // JSON carries it.
      const asJson = await raw('GET', `${CM}/${name}`, { accept: 'application/json' });
      assert.equal(asJson.status, 200);
    }
    // An error whose message YAML cannot carry: kube keeps the error's code (404) and writes
    // the YAML error's Status.
    const missing = await raw('GET', `${CM}/a%C2%85---%20b`, { accept: 'application/yaml' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.toString('utf8'), "apiVersion: v1\ncode: 500\nkind: Status\nmessage: 'yaml: line 2: found unexpected document indicator'\nmetadata: {}\nstatus: Failure\n");
    const missingCtl = await raw('GET', `${CM}/a%7Fb`, { accept: 'application/yaml' });
    assert.equal(missingCtl.status, 404);
    assert.equal(missingCtl.body.toString('utf8'), "apiVersion: v1\ncode: 500\nkind: Status\nmessage: 'yaml: control characters are not allowed'\nmetadata: {}\nstatus: Failure\n");
  });
});
