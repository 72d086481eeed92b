import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const CM = '/api/v1/namespaces/default/configmaps';
const SA = '/api/v1/namespaces/default/serviceaccounts';
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

void describe('PATCH: strategic merge, json and merge patches over HTTP', () => {
  let t: TestServer;
  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.json as Obj;
  };
  const patch = (path: string, headers: Record<string, string>, body: unknown, query = '') => t.request('PATCH', `${path}${query}`, { raw: JSON.stringify(body), headers });

  before(async () => {
    // No garbage collector: a test object names an owner that does not exist (the collector would delete it at once).
    t = await startTestServer({ controllers: { garbageCollector: false } });
  });
  after(async () => {
    await t.close();
  });

  void it('strategic merge merges keyed lists (ServiceAccount secrets), replaces unkeyed ones, and null deletes', async () => {
    await create(SA, { metadata: { name: 'sa1' }, secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }] });
    const res = await patch(`${SA}/sa1`, SMP, { secrets: [{ name: 's2' }], imagePullSecrets: [{ name: 'p2' }], metadata: { labels: { a: '1' } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json['secrets'], [{ name: 's2' }, { name: 's1' }]);
    assert.deepEqual(res.json['imagePullSecrets'], [{ name: 'p2' }]);
    const removed = await patch(`${SA}/sa1`, SMP, { secrets: [{ name: 's1', $patch: 'delete' }], metadata: { labels: { a: null } } });
    assert.deepEqual(removed.json['secrets'], [{ name: 's2' }]);
    assert.equal((removed.json['metadata'] as Obj)['labels'], undefined);
    const ordered = await patch(`${SA}/sa1`, SMP, { '$setElementOrder/secrets': [{ name: 's3' }, { name: 's2' }], secrets: [{ name: 's3' }] });
    assert.deepEqual(ordered.json['secrets'], [{ name: 's3' }, { name: 's2' }]);
  });

  void it('strategic merge on ownerReferences (merge key uid) and finalizers (primitive merge list)', async () => {
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '11111111-1111-1111-1111-111111111111' };
    await create(CM, { metadata: { name: 'owned', ownerReferences: [owner], finalizers: ['example.com/a'] } });
    const other = { ...owner, name: 'other', uid: '22222222-2222-2222-2222-222222222222' };
    const res = await patch(`${CM}/owned`, SMP, { metadata: { ownerReferences: [other], finalizers: ['example.com/b'] } });
    assert.equal(res.status, 200, res.text);
    const meta = res.json['metadata'] as Obj;
    assert.deepEqual(meta['ownerReferences'], [other, owner]);
    assert.deepEqual(meta['finalizers'], ['example.com/b', 'example.com/a']);
    const trimmed = await patch(`${CM}/owned`, SMP, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'example.com/b'], ownerReferences: [{ uid: other.uid, $patch: 'delete' }] } });
    assert.equal(trimmed.status, 200, trimmed.text);
    assert.equal((trimmed.json['metadata'] as Obj)['finalizers'], undefined);
    assert.deepEqual((trimmed.json['metadata'] as Obj)['ownerReferences'], [owner]);
  });

  void it('strategic merge errors: bad directives and merge keys 400, a patch that is not an object 400', async () => {
    await create(CM, { metadata: { name: 'smp-errors' }, data: { a: '1' } });
    const bad = await patch(`${CM}/smp-errors`, SMP, { data: { $patch: 'explode' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json['message'], 'unknown patch type: explode in map: map[$patch:explode]');
    const retain = await patch(`${CM}/smp-errors`, SMP, { $retainKeys: 'data' });
    assert.equal(retain.status, 400);
    assert.equal(retain.json['message'], 'invalid patch format of retainKeys');
    const missingKey = await patch(`${SA}/sa1`, SMP, { secrets: [{ namespace: 'x' }] });
    assert.equal(missingKey.status, 400);
    assert.equal(missingKey.json['message'], 'map: map[namespace:x] does not contain declared merge key: name');
    const notObject = await t.request('PATCH', `${CM}/smp-errors`, { raw: '[1]', headers: SMP });
    assert.equal(notObject.status, 400);
  });

  void it('a resourceVersion inside any patch is a precondition (409); without one concurrent changes are retried', async () => {
    const cm = await create(CM, { metadata: { name: 'rv' }, data: { a: '1' } });
    const rv = cm.metadata['resourceVersion'] as string;
    await patch(`${CM}/rv`, MERGE, { data: { b: '2' } });
    for (const [headers, body] of [
      [MERGE, { metadata: { resourceVersion: rv }, data: { c: '3' } }],
      [SMP, { metadata: { resourceVersion: rv }, data: { c: '3' } }],
      [JSON_PATCH, [{ op: 'replace', path: '/metadata/resourceVersion', value: rv }, { op: 'add', path: '/data/c', value: '3' }]],
    ] as const) {
      const res = await patch(`${CM}/rv`, headers, body);
      assert.equal(res.status, 409, `${headers['content-type']}: ${res.text}`);
      assert.equal(res.json['message'], 'Operation cannot be fulfilled on configmaps "rv": the object has been modified; please apply your changes to the latest version and try again');
    }
    const current = (await t.request('GET', `${CM}/rv`)).json as Obj;
    const ok = await patch(`${CM}/rv`, MERGE, { metadata: { resourceVersion: current.metadata['resourceVersion'] }, data: { c: '3' } });
    assert.equal(ok.status, 200);
  });

  void it('json patch: test operations, 10,000 operations at most (413), a missing object is 404 for every non-apply type', async () => {
    await create(CM, { metadata: { name: 'jp' }, data: { a: '1' } });
    const passed = await patch(`${CM}/jp`, JSON_PATCH, [{ op: 'test', path: '/data/a', value: '1' }, { op: 'replace', path: '/data/a', value: '2' }]);
    assert.equal(passed.status, 200);
    assert.deepEqual(passed.json['data'], { a: '2' });
    const failed = await patch(`${CM}/jp`, JSON_PATCH, [{ op: 'test', path: '/data/a', value: '1' }]);
    assert.equal(failed.status, 422);
    const many = await patch(`${CM}/jp`, JSON_PATCH, Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/a', value: '2' })));
    assert.equal(many.status, 413);
    assert.equal(many.json['message'], 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    const exactly = await patch(`${CM}/jp`, JSON_PATCH, Array.from({ length: 10_000 }, () => ({ op: 'test', path: '/data/a', value: '2' })));
    assert.equal(exactly.status, 200);
    for (const [headers, body] of [
      [JSON_PATCH, [{ op: 'add', path: '/data/x', value: '1' }]],
      [MERGE, { data: { x: '1' } }],
      [SMP, { data: { x: '1' } }],
    ] as const) {
      const missing = await patch(`${CM}/absent`, headers, body);
      assert.equal(missing.status, 404, headers['content-type']);
      assert.equal(missing.json['message'], 'configmaps "absent" not found');
    }
  });

  void it('json patch on the root (""): move/copy/add/remove are kube\'s 422, never a 500, and the object is unchanged', async () => {
    const before = await create(CM, { metadata: { name: 'root' }, data: { a: '1' } });
    const rootOps = [
      [{ op: 'move', from: '', path: '/x' }],
      [{ op: 'add', path: '/data/b', value: '2' }, { op: 'move', from: '', path: '/data/self' }],
      [{ op: 'copy', from: '', path: '/x' }],
      [{ op: 'move', from: '/data', path: '' }],
      [{ op: 'add', path: '', value: { kind: 'ConfigMap' } }],
      [{ op: 'remove', path: '' }],
      [{ op: 'replace', path: '', value: 'text' }],
      [{ op: 'test', path: '', value: { kind: 'Secret' } }],
    ];
    for (const ops of rootOps) {
      const res = await patch(`${CM}/root`, JSON_PATCH, ops);
      assert.equal(res.status, 422, `${JSON.stringify(ops)}: ${res.status} ${res.text.slice(0, 300)}`);
      assert.equal(res.json['reason'], 'Invalid');
      assert.equal(res.json['message'], 'the server rejected our request due to an error in our request');
    }
    const after = await t.request('GET', `${CM}/root`);
    assert.equal((after.json as Obj).metadata['resourceVersion'], before.metadata['resourceVersion']);
  });

  void it('fieldValidation on patches: Warn sends warnings, Strict answers kube 422, Ignore says nothing', async () => {
    await create(CM, { metadata: { name: 'fv' }, data: { a: '1' } });
    const body = '{"data":{"b":"1","b":"2"},"bogus":true}';
    const warned = await t.request('PATCH', `${CM}/fv`, { raw: body, headers: MERGE });
    assert.equal(warned.status, 200);
    assert.equal(warned.headers.get('warning'), '299 - "duplicate field \\"data.b\\"", 299 - "unknown field \\"bogus\\""');
    assert.deepEqual(warned.json['data'], { a: '1', b: '2' });
    const ignored = await t.request('PATCH', `${CM}/fv?fieldValidation=Ignore`, { raw: body, headers: MERGE });
    assert.equal(ignored.status, 200);
    assert.equal(ignored.headers.get('warning'), null);
    const strict = await t.request('PATCH', `${CM}/fv?fieldValidation=Strict`, { raw: body, headers: MERGE });
    assert.equal(strict.status, 422);
    assert.match(strict.json['message'] as string, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: duplicate field "data.b", unknown field "bogus"$/);
    const causes = (strict.json['details'] as { causes: { field: string; reason: string }[] }).causes;
    assert.deepEqual(causes.map((c) => [c.reason, c.field]), [['FieldValueInvalid', 'patch']]);
    const smpStrict = await t.request('PATCH', `${CM}/fv?fieldValidation=Strict`, { raw: '{"bogus":1}', headers: SMP });
    assert.equal(smpStrict.status, 422);
    assert.equal(smpStrict.json['message'], ' "" is invalid: patch: Invalid value: "map[bogus:1]": strict decoding error: unknown field "bogus"');
    const jpStrict = await t.request('PATCH', `${CM}/fv?fieldValidation=Strict`, { raw: '[{"op":"add","op":"add","path":"/data/z","value":"1"}]', headers: JSON_PATCH });
    assert.equal(jpStrict.status, 422);
    assert.match(jpStrict.json['message'] as string, /strict decoding error: json patch duplicate field "\[0\]\.op"$/);
  });

  void it('fieldValidation on POST and PUT: duplicates and unknown fields together, 400 under Strict', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fv-post"},"data":{"a":"1","a":"2"},"spec":{}}';
    const strict = await t.request('POST', `${CM}?fieldValidation=Strict`, { raw: body, headers: { 'content-type': 'application/json' } });
    assert.equal(strict.status, 400);
    assert.equal(strict.json['message'], 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a", unknown field "spec"');
    const warned = await t.request('POST', CM, { raw: body, headers: { 'content-type': 'application/json' } });
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.get('warning'), '299 - "duplicate field \\"data.a\\"", 299 - "unknown field \\"spec\\""');
    assert.deepEqual(warned.json['data'], { a: '2' });
    const put = await t.request('PUT', `${CM}/fv-post?fieldValidation=Strict`, { raw: body, headers: { 'content-type': 'application/json' } });
    assert.equal(put.status, 400);
    assert.equal(put.json['message'], 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a", unknown field "spec"');
  });

  void it('hostile strategic merge and apply bodies never produce a 500', async () => {
    await create(CM, { metadata: { name: 'hostile', finalizers: ['example.com/a'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'u1' }] }, data: { a: '1' } });
    const smpBodies = [
      '{"metadata":{"finalizers":[["a"]]}}', '{"metadata":{"finalizers":[null]}}', '{"metadata":{"finalizers":[1,"a"]}}',
      '{"$setElementOrder/data":[1]}', '{"metadata":{"$setElementOrder/finalizers":"x"}}', '{"metadata":{"$setElementOrder/ownerReferences":[{"uid":"zz"}],"ownerReferences":[{"uid":"u1"}]}}',
      '{"metadata":{"ownerReferences":[null]}}', '{"metadata":{"ownerReferences":[{"$patch":"delete"}]}}', '{"metadata":{"ownerReferences":"x"}}',
      '{"metadata":{"$retainKeys":[1]}}', '{"data":{"$patch":null}}', '{"$deleteFromPrimitiveList/metadata":{}}', '{"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}}',
      '{"$patch":"replace"}', '{"$patch":"delete"}', '{"metadata":{"$patch":"delete"}}', '{"data":[1,2]}', '{"metadata":{"labels":{"a":{"b":1}}}}', 'null', '"x"', '7',
    ];
    for (const body of smpBodies) {
      const res = await t.request('PATCH', `${CM}/hostile`, { raw: body, headers: SMP });
      assert.ok(res.status < 500 && res.json['kind'] !== undefined, `SMP ${body}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const applyBodies = [
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hostile","ownerReferences":[{"uid":1},{"uid":1}]}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hostile","finalizers":[{"a":1}]}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hostile"},"data":{"a":{"b":1}}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}', '{"apiVersion":"v1","kind":"ConfigMap","metadata":"x"}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hostile","namespace":"elsewhere"}}',
      '- a\n- b\n', 'a: [1, 2\n', '', 'null', '[]', '"text"', 'a: &a ["x","x","x"]\nb: [*a,*a,*a,*a]\n',
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hostile"},"data":${'{"a":'.repeat(1_200)}1${'}'.repeat(1_200)}}`,
    ];
    for (const body of applyBodies) {
      const res = await t.request('PATCH', `${CM}/hostile?fieldManager=m`, { raw: body, headers: { 'content-type': 'application/apply-patch+yaml' } });
      assert.ok(res.status < 500 && res.json['kind'] !== undefined, `apply ${JSON.stringify(body.slice(0, 80))}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  });

  void it('PatchOptions: force only with apply, fieldManager required for apply, bad values 422', async () => {
    await create(CM, { metadata: { name: 'opts' } });
    const forced = await patch(`${CM}/opts`, SMP, {}, '?force=false');
    assert.equal(forced.status, 422);
    assert.equal(forced.json['message'], 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const noManager = await t.request('PATCH', `${CM}/opts`, { raw: '{}', headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(noManager.status, 422);
    assert.equal(noManager.json['message'], 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const charset = await t.request('PATCH', `${CM}/opts`, { raw: '{"data":{"x":"y"}}', headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' } });
    assert.equal(charset.status, 200);
    const dry = await patch(`${CM}/opts`, MERGE, {}, '?dryRun=Some');
    assert.equal(dry.status, 422);
  });
});
