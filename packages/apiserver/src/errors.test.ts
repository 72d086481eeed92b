import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const CM = '/api/v1/namespaces/default/configmaps';

void describe('error classes over HTTP', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  function assertStatus(res: { status: number; json: Record<string, unknown> }, code: number, reason: string, message?: string): void {
    assert.equal(res.status, code, JSON.stringify(res.json));
    assert.equal(res.json['kind'], 'Status');
    assert.equal(res.json['apiVersion'], 'v1');
    assert.equal(res.json['status'], 'Failure');
    assert.equal(res.json['code'], code);
    assert.equal(res.json['reason'], reason);
    if (message !== undefined) assert.equal(res.json['message'], message);
  }

  void it('404 for unknown paths, resources, groups and subresources', async () => {
    const generic = 'the server could not find the requested resource';
    // Inside a served API group (or the core group): a Status.
    for (const path of ['/api/v2', '/api/v1/foos', `${CM}/x/status`, '/api/v1/configmaps/x', '/api/v1/namespaces/default/namespaces', '/apis/apps/v9', '/apis/apps/v9/deployments',
      '/api/v1//namespaces/default/configmaps', `${CM}/a%2Fb`]) {
      const res = await t.request('GET', path);
      assertStatus(res, 404, 'NotFound', generic);
      assert.deepEqual(res.json['details'], {}, path);
    }
    // Outside every API route (kube's NotFoundHandler): Go's plain text.
    for (const path of ['/nope', '/apis/example.com', '/apis/example.com/v1', '/apis/example.com/v1/widgets', '/openapi/v2/nope', '/openapi/v1', '/readyz/nope']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', path);
      assert.equal(res.text, '404 page not found\n', path);
    }
    // An unknown OpenAPI v3 document: a bare 404.
    const openapi = await t.request('GET', '/openapi/v3/apis/nope/v1');
    assert.equal(openapi.status, 404);
    assert.equal(openapi.text, '');
  });

  void it('405 for methods a path does not register', async () => {
    assertStatus(await t.request('POST', '/api/v1/configmaps', { body: {} }), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    assertStatus(await t.request('POST', `${CM}/named`, { body: {} }), 405, 'MethodNotAllowed');
    assertStatus(await t.request('PUT', CM, { body: {} }), 405, 'MethodNotAllowed');
    assertStatus(await t.request('OPTIONS', CM), 405, 'MethodNotAllowed');
    // A method Node's parser does not know (Go's server parses any token): kube's Status too.
    assertStatus(await t.request('FOO', `${CM}/x`), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    assertStatus(await t.request('POST', '/version', { body: {} }), 405, 'MethodNotAllowed');
    assertStatus(await t.request('POST', '/api/v1/watch/namespaces/default/configmaps', { body: {} }), 405, 'MethodNotAllowed');
  });

  void it('400 when a named watch selects another name', async () => {
    const res = await t.request('GET', '/api/v1/watch/namespaces/default/configmaps/a?fieldSelector=metadata.name%3Db');
    assertStatus(res, 400, 'BadRequest', "fieldSelector metadata.name doesn't match requested name");
  });

  void it('406 for an Accept header nothing can satisfy; JSON fallbacks', async () => {
    const res = await t.request('GET', CM, { headers: { accept: 'text/html' } });
    // go-restful refuses it before kube's negotiation (kube-apiserver 1.32's text).
    assertStatus(res, 406, 'NotAcceptable', '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    for (const accept of ['*/*', 'application/vnd.kubernetes.protobuf;q=0.5,application/json', 'application/json, */*;q=0.8']) {
      const ok = await t.request('GET', CM, { headers: { accept } });
      assert.equal(ok.status, 200, accept);
      assert.equal(ok.headers.get('content-type'), 'application/json');
      assert.equal(ok.json['kind'], 'ConfigMapList');
    }
  });

  void it('413 for bodies over 3 MiB', async () => {
    const huge = JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024) } });
    assertStatus(await t.request('POST', CM, { raw: huge, headers: { 'content-type': 'application/json' } }), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  });

  void it('415 for unsupported Content-Types', async () => {
    const message = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf';
    assertStatus(await t.request('POST', CM, { raw: '{}', headers: { 'content-type': 'text/plain' } }), 415, 'UnsupportedMediaType', message);
    assertStatus(await t.request('POST', CM, { raw: '{}', headers: { 'content-type': 'application/cbor' } }), 415, 'UnsupportedMediaType', message);
  });

  void it('namespaces have no deletecollection: 405 as kube; a list at resourceVersion=0 ignores limit (issue 23)', async () => {
    assertStatus(await t.request('DELETE', '/api/v1/namespaces?labelSelector=nothing%3Dmatches'), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    for (const name of ['rv0-a', 'rv0-b', 'rv0-c']) {
      assert.equal((await t.request('POST', CM, { body: { metadata: { name, labels: { rv0: 'yes' } } } })).status, 201);
    }
    // kube 1.32 serves resourceVersion=0 from its cache whole: every item, no continue token.
    const listed = await t.request('GET', `${CM}?resourceVersion=0&limit=1&labelSelector=rv0%3Dyes`);
    assert.equal(listed.status, 200);
    assert.equal((listed.json['items'] as unknown[]).length, 3);
    assert.equal((listed.json['metadata'] as Record<string, unknown>)['continue'], undefined);
  });

  void it('400 for malformed JSON and YAML, wrong names and kinds', async () => {
    const badJson = await t.request('POST', CM, { raw: '{"metadata":', headers: { 'content-type': 'application/json' } });
    assertStatus(badJson, 400, 'BadRequest');
    assert.match(String(badJson.json['message']), /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: /);
    // Go's encoding/json wording, as kube-apiserver 1.32 answers this body.
    const missingColon = await t.request('POST', CM, { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a" "b"}}', headers: { 'content-type': 'application/json' } });
    assertStatus(missingColon, 400, 'BadRequest');
    assert.equal(missingColon.json['message'], `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '"' after object key ({"apiVersion":"v1","kind":"Con ...)`);
    const badYaml = await t.request('POST', CM, { raw: 'a: b: c\n  - [', headers: { 'content-type': 'application/yaml' } });
    assertStatus(badYaml, 400, 'BadRequest');
    assertStatus(await t.request('POST', CM, { raw: '', headers: { 'content-type': 'application/json' } }), 400, 'BadRequest');
    // JSON null decodes into an empty object, as in kube: the missing name is the validator's 422 (issue 23).
    assertStatus(await t.request('POST', CM, { raw: 'null', headers: { 'content-type': 'application/json' } }), 422, 'Invalid', 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    // Another kind: kube's decoder finds no conversion into a ConfigMap (issue 23).
    assertStatus(
      await t.request('POST', CM, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } }),
      400,
      'BadRequest',
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
    assertStatus(await t.request('PUT', `${CM}/a`, { body: { metadata: { name: 'b' } } }), 400, 'BadRequest', 'the name of the object (b) does not match the name on the URL (a)');
    assertStatus(await t.request('POST', CM, { body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } } }), 400, 'BadRequest', 'the API version in the data (apps/v1) does not match the expected API version (v1)');
    assertStatus(await t.request('GET', `${CM}?labelSelector=a%20in%20(b`), 400, 'BadRequest', "unable to parse requirement: found '', expected: ',' or ')'");
    assertStatus(await t.request('GET', `${CM}?fieldSelector=spec.foo%3Dbar`), 400, 'BadRequest', '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"');
    assertStatus(await t.request('GET', `${CM}?limit=abc`), 400, 'BadRequest');
    assertStatus(await t.request('GET', `${CM}?resourceVersion=abc`), 400, 'BadRequest');
  });

  void it('422 for invalid objects and list options, 409 for duplicates', async () => {
    const invalid = await t.request('POST', CM, { body: { metadata: { name: 'Bad_Name' } } });
    assertStatus(invalid, 422, 'Invalid');
    assert.match(String(invalid.json['message']), /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    const rvMatch = await t.request('GET', `${CM}?resourceVersionMatch=Exact`);
    assertStatus(rvMatch, 422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    const initial = await t.request('GET', `${CM}?sendInitialEvents=true`);
    assertStatus(initial, 422, 'Invalid');
    assert.equal((await t.request('POST', CM, { body: { metadata: { name: 'dup' } } })).status, 201);
    assertStatus(await t.request('POST', CM, { body: { metadata: { name: 'dup' } } }), 409, 'AlreadyExists', 'configmaps "dup" already exists');
    const longManager = await t.request('POST', `${CM}?fieldManager=${'m'.repeat(129)}`, { body: { metadata: { name: 'fm' } } });
    assertStatus(longManager, 422, 'Invalid');
  });

  void it('hostile bodies never produce a 500', async () => {
    const bodies: string[] = [
      'null', 'true', '42', '"text"', '[]', '[1,2,3]', '{}', '{"metadata":null}', '{"metadata":[]}', '{"metadata":"x"}',
      '{"metadata":{"name":["a"]}}', '{"metadata":{"name":"a","labels":"x"}}', '{"metadata":{"name":"a","labels":{"k":5}}}',
      '{"metadata":{"name":"a","annotations":[1]}}', '{"metadata":{"name":"a"},"data":"x"}', '{"metadata":{"name":"a"},"data":{"k":{"deep":1}}}',
      '{"metadata":{"name":"a"},"data":[1]}', '{"kind":5}', '{"apiVersion":{}}', '{"metadata":{"name":"a","resourceVersion":7}}',
      '{"metadata":{"name":"a","uid":false,"generation":"x","finalizers":"y","ownerReferences":{}}}',
      `{"metadata":{"name":"${'a'.repeat(100_000)}"}}`, `{"metadata":{"name":"a"},"data":{"k":"${'z'.repeat(2_000_000)}"}}`,
      '['.repeat(20_000) + ']'.repeat(20_000), '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000),
      `{"metadata":{"name":"deep"},"data":{},"x":${'{"a":'.repeat(9_000)}1${'}'.repeat(9_000)}}`,
      `{"metadata":{"name":"deep2"},"x":${'{"a":'.repeat(995)}1${'}'.repeat(995)}}`,
      `{"metadata":{"name":"deep3","labels":${'{"a":'.repeat(995)}1${'}'.repeat(995)}}}`,
      '{"__proto__":{"polluted":true},"metadata":{"name":"proto"}}', '\u0000\u0001', '{"metadata":{"name":"a"}} trailing',
    ];
    for (const [i, raw] of bodies.entries()) {
      for (const [method, path] of [['POST', CM], ['PUT', `${CM}/a`], ['DELETE', `${CM}/a`]] as const) {
        const res = await t.request(method, path, { raw, headers: { 'content-type': 'application/json' } });
        assert.ok(res.status < 500, `${method} body #${i}: ${res.status} ${res.text.slice(0, 300)}`);
        assert.equal(res.json['kind'] !== undefined, true, `${method} body #${i} has no kind`);
      }
      for (const type of ['application/merge-patch+json', 'application/json-patch+json']) {
        const res = await t.request('PATCH', `${CM}/dup`, { raw, headers: { 'content-type': type } });
        assert.ok(res.status < 500, `PATCH ${type} body #${i}: ${res.status} ${res.text.slice(0, 300)}`);
      }
    }
    const deep = await t.request('POST', CM, { raw: '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000), headers: { 'content-type': 'application/json' } });
    assert.equal(deep.status, 400);
    assert.equal(deep.json['message'], `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${'{"a":'.repeat(6)} ...)`);
    const yamlBomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n';
    const bomb = await t.request('POST', CM, { raw: yamlBomb, headers: { 'content-type': 'application/yaml' } });
    assert.ok(bomb.status < 500, bomb.text);
  });
});
