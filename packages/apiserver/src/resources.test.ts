import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const CM = '/api/v1/namespaces/default/configmaps';

function configMap(name: string, data: Record<string, string> = { a: '1' }, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

void describe('resource verbs over HTTP', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('creates (201), gets, lists, updates (200), deletes', async () => {
    const created = await t.request('POST', CM, { body: configMap('verbs') });
    assert.equal(created.status, 201);
    assert.equal(created.json['kind'], 'ConfigMap');
    assert.equal(created.json['apiVersion'], 'v1');
    const meta = created.json['metadata'] as Record<string, string>;
    assert.equal(meta['namespace'], 'default');
    assert.match(meta['resourceVersion']!, /^\d+$/);

    const got = await t.request('GET', `${CM}/verbs`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json['data'], { a: '1' });

    const list = await t.request('GET', `${CM}?labelSelector=&limit=10`);
    assert.equal(list.status, 200);
    assert.equal(list.json['kind'], 'ConfigMapList');
    assert.equal(list.json['apiVersion'], 'v1');
    assert.ok((list.json['items'] as unknown[]).length >= 1);

    const all = await t.request('GET', '/api/v1/configmaps');
    assert.equal(all.status, 200);
    assert.equal(all.json['kind'], 'ConfigMapList');

    const updated = await t.request('PUT', `${CM}/verbs`, { body: { ...configMap('verbs', { a: '2' }), metadata: { name: 'verbs', resourceVersion: meta['resourceVersion'] } } });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.json['data'], { a: '2' });

    const stale = await t.request('PUT', `${CM}/verbs`, { body: { ...configMap('verbs', { a: '3' }), metadata: { name: 'verbs', resourceVersion: meta['resourceVersion'] } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json['reason'], 'Conflict');
    assert.equal(stale.json['message'], 'Operation cannot be fulfilled on configmaps "verbs": the object has been modified; please apply your changes to the latest version and try again');

    const deleted = await t.request('DELETE', `${CM}/verbs`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    assert.equal(deleted.status, 200);
    // configmaps do not return the deleted object: kube's success Status, without `code`.
    assert.deepEqual(deleted.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'verbs', kind: 'configmaps', uid: meta['uid'] } });
    const gone = await t.request('GET', `${CM}/verbs`);
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "verbs" not found', reason: 'NotFound',
      details: { name: 'verbs', kind: 'configmaps' }, code: 404,
    });
  });

  void it('accepts YAML bodies and answers YAML when asked', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n';
    const created = await t.request('POST', CM, { raw: yaml, headers: { 'content-type': 'application/yaml' } });
    assert.equal(created.status, 201, created.text);
    const got = await t.request('GET', `${CM}/from-yaml`, { headers: { accept: 'application/yaml' } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'application/yaml');
    assert.match(got.text, /kind: ConfigMap/);
    assert.match(got.text, /k: v/);
  });

  void it('PUT creates on update where allowed and returns 201, namespaces included', async () => {
    const ns = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'verbs-ns' } } });
    assert.equal(ns.status, 201);
    const got = await t.request('GET', '/api/v1/namespaces/verbs-ns');
    assert.equal(got.status, 200);
    assert.equal(got.json['kind'], 'Namespace');
    const list = await t.request('GET', '/api/v1/namespaces');
    const names = (list.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'verbs-ns']) assert.ok(names.includes(n), n);
  });

  void it('merge patch and json patch, with conflicts, tests and limits', async () => {
    await t.request('POST', CM, { body: configMap('patched', { a: '1', b: '2' }) });
    const merge = await t.request('PATCH', `${CM}/patched?fieldManager=kubectl-label`, {
      raw: JSON.stringify({ metadata: { labels: { app: 'x' } }, data: { b: null, c: '3' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(merge.status, 200, merge.text);
    assert.deepEqual(merge.json['data'], { a: '1', c: '3' });
    assert.deepEqual((merge.json['metadata'] as Record<string, unknown>)['labels'], { app: 'x' });

    const json = await t.request('PATCH', `${CM}/patched`, {
      raw: JSON.stringify([{ op: 'test', path: '/data/a', value: '1' }, { op: 'replace', path: '/data/a', value: '9' }, { op: 'add', path: '/data/d', value: '4' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(json.status, 200, json.text);
    assert.deepEqual(json.json['data'], { a: '9', c: '3', d: '4' });

    const failedTest = await t.request('PATCH', `${CM}/patched`, {
      raw: JSON.stringify([{ op: 'test', path: '/data/a', value: 'nope' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(failedTest.status, 422);
    assert.equal(failedTest.json['reason'], 'Invalid');
    assert.equal(failedTest.json['message'], 'the server rejected our request due to an error in our request');

    const staleRv = await t.request('PATCH', `${CM}/patched`, {
      raw: JSON.stringify({ metadata: { resourceVersion: '1' }, data: { z: '1' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(staleRv.status, 409);
    assert.equal(staleRv.json['reason'], 'Conflict');

    const tooMany = await t.request('PATCH', `${CM}/patched`, {
      raw: JSON.stringify(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(tooMany.status, 413);
    assert.equal(tooMany.json['message'], 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');

    const copyBomb = await t.request('PATCH', `${CM}/patched`, {
      raw: JSON.stringify([
        { op: 'add', path: '/data/big', value: 'x'.repeat(1_000_000) },
        ...Array.from({ length: 5 }, (_, i) => ({ op: 'copy', from: '/data/big', path: `/data/copy${i}` })),
      ]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(copyBomb.status, 422);

    const missing = await t.request('PATCH', `${CM}/absent`, { raw: '{"data":{"a":"1"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json['message'], 'configmaps "absent" not found');

    const renamed = await t.request('PATCH', `${CM}/patched`, { raw: '{"metadata":{"name":"other"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(renamed.status, 400);
    assert.equal(renamed.json['message'], 'the name of the object (other) does not match the name on the URL (patched)');

    for (const type of ['text/plain', 'application/json', 'application/apply-patch+cbor']) {
      const res = await t.request('PATCH', `${CM}/patched`, { raw: '{}', headers: { 'content-type': type } });
      assert.equal(res.status, 415, type);
      assert.equal(res.json['reason'], 'UnsupportedMediaType');
      // The patch route of a built-in kind is go-restful's: its own 415 text (kube-apiserver 1.32).
      assert.equal(res.json['message'], '415: Unsupported Media Type');
    }
    const forced = await t.request('PATCH', `${CM}/patched?force=true`, { raw: '{}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(forced.status, 422);
    assert.equal(forced.json['message'], 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  void it('retries a merge patch without resourceVersion when writes race', async () => {
    await t.request('POST', CM, { body: configMap('racy', {}) });
    const patches = Array.from({ length: 8 }, (_, i) =>
      t.request('PATCH', `${CM}/racy`, { raw: JSON.stringify({ data: { [`k${i}`]: String(i) } }), headers: { 'content-type': 'application/merge-patch+json' } }),
    );
    const results = await Promise.all(patches);
    for (const r of results) assert.equal(r.status, 200, r.text);
    const got = await t.request('GET', `${CM}/racy`);
    assert.equal(Object.keys(got.json['data'] as object).length, 8);
  });

  void it('dryRun=All persists nothing; other dryRun values are rejected', async () => {
    const dry = await t.request('POST', `${CM}?dryRun=All`, { body: configMap('dry') });
    assert.equal(dry.status, 201);
    assert.equal((await t.request('GET', `${CM}/dry`)).status, 404);
    const bad = await t.request('POST', `${CM}?dryRun=Yes`, { body: configMap('dry') });
    assert.equal(bad.status, 422);
    assert.equal(bad.json['message'], 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"');
  });

  void it('validates fieldValidation and applies Strict / Warn', async () => {
    const bad = await t.request('POST', `${CM}?fieldValidation=Loose`, { body: configMap('fv') });
    assert.equal(bad.status, 422);
    assert.equal(bad.json['message'], 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"');
    const strict = await t.request('POST', `${CM}?fieldValidation=Strict`, { body: { ...configMap('fv'), spec: { foo: 1 } } });
    assert.equal(strict.status, 400);
    assert.equal(strict.json['message'], 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"');
    const warn = await t.request('POST', CM, { body: { ...configMap('fv'), spec: { foo: 1 } } });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.get('warning'), '299 - "unknown field \\"spec\\""');
  });

  void it('delete honours preconditions and DeleteOptions validation', async () => {
    await t.request('POST', CM, { body: configMap('pre') });
    const wrongUid = await t.request('DELETE', `${CM}/pre`, { body: { preconditions: { uid: 'nope' } } });
    assert.equal(wrongUid.status, 409);
    assert.equal(wrongUid.json['reason'], 'Conflict');
    assert.match(String(wrongUid.json['message']), /^Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition \(nope\) does not match the UID in record/);
    const badPolicy = await t.request('DELETE', `${CM}/pre?propagationPolicy=Sometimes`);
    assert.equal(badPolicy.status, 422);
    assert.equal(badPolicy.json['message'], 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"');
    const badBody = await t.request('DELETE', `${CM}/pre`, { body: { gracePeriodSeconds: 'soon' } });
    assert.equal(badBody.status, 400);
    const dry = await t.request('DELETE', `${CM}/pre?dryRun=All`);
    assert.equal(dry.status, 200);
    assert.equal((await t.request('GET', `${CM}/pre`)).status, 200);
    assert.equal((await t.request('DELETE', `${CM}/pre?gracePeriodSeconds=0`)).status, 200);
    assert.equal((await t.request('DELETE', `${CM}/pre`)).status, 404);
  });

  void it('deletecollection deletes what the selector matches', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'dc' } } });
    for (const [name, tier] of [['a', 'web'], ['b', 'web'], ['c', 'db']]) {
      assert.equal((await t.request('POST', '/api/v1/namespaces/dc/configmaps', { body: configMap(name!, {}, { labels: { tier } }) })).status, 201);
    }
    const res = await t.request('DELETE', '/api/v1/namespaces/dc/configmaps?labelSelector=tier%3Dweb');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json['kind'], 'ConfigMapList');
    assert.equal((res.json['items'] as unknown[]).length, 2);
    const left = await t.request('GET', '/api/v1/namespaces/dc/configmaps');
    assert.deepEqual((left.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name), ['c']);
  });

  void it('serves named groups (coordination.k8s.io leases)', async () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: { holderIdentity: 'me' } };
    const created = await t.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { body: lease });
    assert.equal(created.status, 201, created.text);
    const got = await t.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l1');
    assert.equal(got.json['apiVersion'], 'coordination.k8s.io/v1');
  });
});
