import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

const NS = '/api/v1/namespaces/default';
const CM = `${NS}/configmaps`;
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
type Obj = Record<string, unknown> & { metadata: Record<string, unknown> & { managedFields?: Entry[] } };

function managers(obj: Obj): string[] {
  return (obj.metadata.managedFields ?? []).map((e) => `${e.manager}/${e.operation}${e.subresource !== undefined ? `/${e.subresource}` : ''}`);
}

function fieldsOf(obj: Obj, manager: string): unknown {
  return obj.metadata.managedFields?.find((e) => e.manager === manager)?.fieldsV1;
}

const configMap = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

void describe('server-side apply and managedFields over HTTP', () => {
  let t: TestServer;
  const apply = (name: string, body: unknown, query: string, path = CM) =>
    t.request('PATCH', `${path}/${name}?${query}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: APPLY });

  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('every write records its manager: fieldManager, else the User-Agent product, else "unknown"', async () => {
    const created = await t.request('POST', CM, { body: configMap('mf', { a: '1' }), headers: { 'user-agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' } });
    assert.equal(created.status, 201);
    const entry = (created.json as Obj).metadata.managedFields![0]!;
    assert.equal(entry.manager, 'kubectl');
    assert.equal(entry.operation, 'Update');
    assert.equal(entry.apiVersion, 'v1');
    assert.equal(entry.fieldsType, 'FieldsV1');
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry.fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
    const put = await t.request('PUT', `${CM}/mf?fieldManager=editor`, { body: configMap('mf', { a: '1', b: '2' }) });
    // Same second: ordered by manager name.
    assert.deepEqual(managers(put.json as Obj).sort(), ['editor/Update', 'kubectl/Update']);
    assert.deepEqual(fieldsOf(put.json as Obj, 'editor'), { 'f:data': { 'f:b': {} } });
    const patched = await t.request('PATCH', `${CM}/mf`, { raw: '{"data":{"c":"3"}}', headers: { ...MERGE, 'user-agent': '' } });
    assert.ok(managers(patched.json as Obj).includes('unknown/Update'), managers(patched.json as Obj).join());
  });

  void it('apply: creates (201), conflicts with another manager (409 with kube causes), force takes ownership', async () => {
    const created = await apply('ssa', configMap('ssa', { a: '1', b: '2' }), 'fieldManager=alice');
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(managers(created.json as Obj), ['alice/Apply']);
    assert.deepEqual(fieldsOf(created.json as Obj, 'alice'), { 'f:data': { 'f:a': {}, 'f:b': {} } });
    assert.equal((created.json as Obj).metadata.managedFields![0]!.apiVersion, 'v1');

    const conflict = await apply('ssa', configMap('ssa', { a: 'bob' }), 'fieldManager=bob');
    assert.equal(conflict.status, 409);
    assert.deepEqual(conflict.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }] },
      code: 409,
    });
    const updater = await t.request('PUT', `${CM}/ssa?fieldManager=updater`, { body: { ...configMap('ssa', { a: '1', b: 'changed' }) } });
    assert.equal(updater.status, 200);
    const two = await apply('ssa', configMap('ssa', { a: 'x', b: 'y' }), 'fieldManager=bob');
    assert.equal(two.status, 409);
    assert.equal(two.json['message'], 'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\nconflicts with "updater" using v1:\n- .data.b');

    const forced = await apply('ssa', configMap('ssa', { a: 'bob' }), 'fieldManager=bob&force=true');
    assert.equal(forced.status, 200);
    assert.deepEqual((forced.json as Obj)['data'], { a: 'bob', b: 'changed' });
    assert.deepEqual(fieldsOf(forced.json as Obj, 'bob'), { 'f:data': { 'f:a': {} } });
    // The update took b from alice, the forced apply a: alice owns nothing and is gone.
    assert.deepEqual(managers(forced.json as Obj), ['bob/Apply', 'updater/Update']);
  });

  void it('apply: equal values are shared, dropped fields are removed unless co-owned, a no-op apply keeps the resourceVersion', async () => {
    await apply('share', configMap('share', { a: '1', b: '2' }), 'fieldManager=one');
    const shared = await apply('share', configMap('share', { a: '1' }), 'fieldManager=two');
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(fieldsOf(shared.json as Obj, 'two'), { 'f:data': { 'f:a': {} } });
    // "one" drops both: a stays (two owns it), b goes.
    const dropped = await apply('share', { ...configMap('share', {}), data: undefined }, 'fieldManager=one');
    assert.deepEqual((dropped.json as Obj)['data'], { a: '1' });
    assert.deepEqual(managers(dropped.json as Obj), ['two/Apply']);
    const rv = (dropped.json as Obj).metadata['resourceVersion'];
    const again = await apply('share', configMap('share', { a: '1' }), 'fieldManager=two');
    assert.equal(again.status, 200);
    assert.equal((again.json as Obj).metadata['resourceVersion'], rv);
    assert.deepEqual(again.json, dropped.json);
  });

  void it('apply errors: wrong kind or version 400, managedFields in the body 400, a resourceVersion precondition 409, YAML bodies', async () => {
    const kind = await apply('bad', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' } }, 'fieldManager=m');
    assert.equal(kind.status, 400);
    assert.equal(kind.json['message'], 'invalid object type: /v1, Kind=Secret');
    const version = await apply('bad', { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'bad' } }, 'fieldManager=m');
    assert.equal(version.json['message'], 'invalid object type: /v2, Kind=ConfigMap');
    const mf = await apply('bad', configMap('bad', {}, { managedFields: [] }), 'fieldManager=m');
    assert.equal(mf.status, 400);
    assert.equal(mf.json['message'], 'metadata.managedFields must be nil');
    const unknown = await apply('bad', { ...configMap('bad', {}), bogus: 1 }, 'fieldManager=m');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json['message'], 'failed to create typed patch object (/bad; /v1, Kind=ConfigMap): .bogus: field not declared in schema');
    const yaml = await apply('yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\ndata:\n  k: "1"\n', 'fieldManager=m');
    assert.equal(yaml.status, 201, yaml.text);
    const stale = await apply('yaml', configMap('yaml', { k: '2' }, { resourceVersion: '1' }), 'fieldManager=m');
    assert.equal(stale.status, 409);
    assert.match(stale.json['message'] as string, /the object has been modified/);
    const dup = await apply('yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\ndata:\n  k: "1"\n  k: "2"\n', 'fieldManager=m&fieldValidation=Strict');
    assert.equal(dup.status, 400);
    assert.equal(dup.json['message'], 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "k" already set in map');
  });

  void it('clearing managedFields with [{}] strips them, and later updates stay untracked until an apply', async () => {
    await t.request('POST', `${CM}?fieldManager=first`, { body: configMap('clear', { a: '1' }) });
    const cleared = await t.request('PATCH', `${CM}/clear`, { raw: '{"metadata":{"managedFields":[{}]}}', headers: MERGE });
    assert.equal(cleared.status, 200);
    assert.equal((cleared.json as Obj).metadata.managedFields, undefined);
    const later = await t.request('PATCH', `${CM}/clear?fieldManager=second`, { raw: '{"data":{"b":"2"}}', headers: MERGE });
    assert.equal((later.json as Obj).metadata.managedFields, undefined);
    const applied = await apply('clear', configMap('clear', { c: '3' }), 'fieldManager=applier');
    assert.deepEqual(managers(applied.json as Obj), ['applier/Apply', 'before-first-apply/Update']);
    assert.deepEqual(fieldsOf(applied.json as Obj, 'before-first-apply'), { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } });
  });

  void it('more than 10 Update managers: the oldest merge into ancient-changes', async () => {
    await t.request('POST', `${CM}?fieldManager=m0`, { body: configMap('cap', { k0: 'x' }) });
    let last: Obj | undefined;
    for (let i = 1; i <= 11; i++) {
      const res = await t.request('PATCH', `${CM}/cap?fieldManager=m${i}`, { raw: JSON.stringify({ data: { [`k${i}`]: 'x' } }), headers: MERGE });
      last = res.json as Obj;
    }
    const names = (last!.metadata.managedFields ?? []).map((e) => e.manager);
    assert.equal(names.length, 10, names.join());
    assert.ok(names.includes('ancient-changes'), names.join());
  });

  void it('dryRun=All on POST, PUT, PATCH (all types) and DELETE: full result, nothing persisted, no watch event', async () => {
    await t.request('POST', CM, { body: configMap('dry', { a: '1' }) });
    const base = (await t.request('GET', `${CM}/dry`)).json as Obj;
    const watch = await openWatch(t.url, `${CM}?watch=true&resourceVersion=${base.metadata['resourceVersion'] as string}`);
    assert.ok(isWatchClient(watch));
    const created = await t.request('POST', `${CM}?dryRun=All`, { body: configMap('dry-new', { a: '1' }) });
    assert.equal(created.status, 201);
    assert.ok((created.json as Obj).metadata['uid']);
    assert.ok((created.json as Obj).metadata.managedFields);
    const put = await t.request('PUT', `${CM}/dry?dryRun=All`, { body: configMap('dry', { a: 'put' }) });
    assert.equal(put.status, 200);
    assert.deepEqual((put.json as Obj)['data'], { a: 'put' });
    for (const [type, body] of [
      ['application/merge-patch+json', '{"data":{"a":"merge"}}'],
      ['application/json-patch+json', '[{"op":"replace","path":"/data/a","value":"json"}]'],
      ['application/strategic-merge-patch+json', '{"data":{"a":"smp"}}'],
    ] as const) {
      const res = await t.request('PATCH', `${CM}/dry?dryRun=All`, { raw: body, headers: { 'content-type': type } });
      assert.equal(res.status, 200, type);
      assert.notEqual(((res.json as Obj)['data'] as Record<string, string>)['a'], '1', type);
    }
    const applyCreate = await apply('dry-apply', configMap('dry-apply', { a: '1' }), 'fieldManager=m&dryRun=All');
    assert.equal(applyCreate.status, 201);
    const del = await t.request('DELETE', `${CM}/dry?dryRun=All`);
    assert.equal(del.status, 200);
    assert.equal((await t.request('GET', `${CM}/dry-new`)).status, 404);
    assert.equal((await t.request('GET', `${CM}/dry-apply`)).status, 404);
    const after = (await t.request('GET', `${CM}/dry`)).json as Obj;
    assert.deepEqual(after, base);
    // The first event is the real write after all the dry runs.
    await t.request('PATCH', `${CM}/dry`, { raw: '{"data":{"a":"real"}}', headers: MERGE });
    const event = await watch.next(5000);
    assert.equal(event.type, 'MODIFIED');
    assert.deepEqual(event.object['data'], { a: 'real' });
    watch.close();
  });
});

void describe('subresources: namespaces/status and namespaces/finalize', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sub' } } });
  });
  after(async () => {
    await t.close();
  });

  void it('discovery lists them with their verbs (legacy and aggregated)', async () => {
    const v1 = await t.request('GET', '/api/v1');
    const resources = v1.json['resources'] as Record<string, unknown>[];
    assert.deepEqual(resources.find((r) => r['name'] === 'namespaces/status'), { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] });
    assert.deepEqual(resources.find((r) => r['name'] === 'namespaces/finalize'), { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
    const aggregated = await t.request('GET', '/api', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const items = aggregated.json['items'] as { versions: { resources: { resource: string; subresources?: unknown[] }[] }[] }[];
    const ns = items[0]!.versions[0]!.resources.find((r) => r.resource === 'namespaces')!;
    assert.deepEqual(ns.subresources, [
      { subresource: 'finalize', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] },
    ]);
  });

  void it('the main resource ignores status; /status ignores spec; /finalize changes only spec.finalizers', async () => {
    const main = await t.request('PATCH', '/api/v1/namespaces/sub?fieldManager=main', {
      raw: '{"status":{"conditions":[{"type":"X","status":"True"}]},"metadata":{"labels":{"l":"1"}}}',
      headers: MERGE,
    });
    assert.equal(main.status, 200, main.text);
    assert.deepEqual(main.json['status'], { phase: 'Active' });
    assert.equal(((main.json as Obj).metadata['labels'] as Record<string, string>)['l'], '1');
    const got = await t.request('GET', '/api/v1/namespaces/sub/status');
    assert.equal(got.status, 200);
    assert.equal(got.json['kind'], 'Namespace');
    const status = await t.request('PATCH', '/api/v1/namespaces/sub/status?fieldManager=controller', {
      raw: '{"spec":{"finalizers":[]},"status":{"conditions":[{"type":"X","status":"True"}]}}',
      headers: MERGE,
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.json['spec'], { finalizers: ['kubernetes'] });
    assert.deepEqual(status.json['status'], { phase: 'Active', conditions: [{ type: 'X', status: 'True', lastTransitionTime: null }] }, 'Go writes the zero lastTransitionTime as null');
    const entry = (status.json as Obj).metadata.managedFields!.find((e) => e.manager === 'controller')!;
    assert.equal(entry.subresource, 'status');
    // kube compares Go values: the new condition holds a (null) lastTransitionTime too.
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"X"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } } } });
    const badPhase = await t.request('PATCH', '/api/v1/namespaces/sub/status', { raw: '{"status":{"phase":"Terminating"}}', headers: MERGE });
    assert.equal(badPhase.status, 422);
    assert.equal(badPhase.json['message'], 'Namespace "sub" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty');

    const ns = (await t.request('GET', '/api/v1/namespaces/sub')).json as Obj;
    const finalize = await t.request('PUT', '/api/v1/namespaces/sub/finalize', {
      body: { ...ns, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } },
    });
    assert.equal(finalize.status, 200, finalize.text);
    assert.deepEqual(finalize.json['spec'], { finalizers: ['example.com/x'] });
    assert.equal((finalize.json['status'] as Record<string, string>)['phase'], 'Active');
    const getFinalize = await t.request('GET', '/api/v1/namespaces/sub/finalize');
    assert.equal(getFinalize.status, 405);
    const unknownSub = await t.request('GET', '/api/v1/namespaces/default/configmaps/x/status');
    assert.equal(unknownSub.status, 404);
    const missing = await t.request('PATCH', '/api/v1/namespaces/nope/status', { raw: '{}', headers: MERGE });
    assert.equal(missing.status, 404);
  });
});
