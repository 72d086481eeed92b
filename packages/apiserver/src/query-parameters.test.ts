/**
 * Query parameters as kube-apiserver converts them, on a live server over real etcd. Every
 * expected answer was taken from kube-apiserver v1.32.13 given the same request.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { assertStatusResponse } from './testing/history.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

const CM = '/api/v1/namespaces/default/configmaps';
const INVALID_TOKEN = 'invalid continue token: continue key is not valid: ';

/** A continue token as kube encodes one, around the given raw JSON `rv` literal. */
const token = (rv: string, start = 'a\u0000'): string =>
  Buffer.from(`{"v":"meta.k8s.io/v1","rv":${rv},"start":${JSON.stringify(start)}}`).toString('base64url');

const names = (res: { json: Record<string, unknown> }): string[] =>
  (res.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name);

void describe('query parameters', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    for (const name of ['a', 'b', 'c']) assert.equal((await t.request('POST', CM, { body: { metadata: { name } } })).status, 201);
  });
  after(async () => {
    await t.close();
  });

  void it('integers: strconv.ParseInt\'s text is the whole 400 message, an empty value included; int64 range', async () => {
    const parseInt = (value: string, reason = 'invalid syntax') => `strconv.ParseInt: parsing ${JSON.stringify(value)}: ${reason}`;
    for (const [query, message] of [
      ['limit=abc', parseInt('abc')],
      ['limit=', parseInt('')],
      ['limit=1.5', parseInt('1.5')],
      ['limit=+1', parseInt(' 1')], // `+` is a space in a query
      ['limit=99999999999999999999', parseInt('99999999999999999999', 'value out of range')],
      ['timeoutSeconds=abc', parseInt('abc')],
      ['timeoutSeconds=', parseInt('')],
      // timeoutSeconds is converted before limit, both before the selectors.
      ['limit=xyz&timeoutSeconds=abc', parseInt('abc')],
      ['labelSelector=%3D%3D&limit=abc', parseInt('abc')],
      ['watch=1&timeoutSeconds=', parseInt('')],
    ] as const) {
      assertStatusResponse(await t.request('GET', `${CM}?${query}`), 400, 'BadRequest', message);
    }
    assert.deepEqual(names(await t.request('GET', `${CM}?limit=9223372036854775807`)), ['a', 'b', 'c']);
    assert.deepEqual(names(await t.request('GET', `${CM}?limit=-1`)), ['a', 'b', 'c']);
    assertStatusResponse(await t.request('DELETE', `${CM}/a?gracePeriodSeconds=x`), 400, 'BadRequest', parseInt('x'));
    assertStatusResponse(await t.request('DELETE', `${CM}/a?gracePeriodSeconds=`), 400, 'BadRequest', parseInt(''));
    assert.equal((await t.request('GET', `${CM}/a`)).status, 200);
  });

  void it('booleans: anything but "0" and "false" is true (watch=abc is a watch), and never an error', async () => {
    for (const value of ['abc', '', 'TRUE']) {
      const watch = await openWatch(t.url, `${CM}?watch=${value}&timeoutSeconds=1`);
      assert.ok(isWatchClient(watch), `watch=${value}`);
      assert.equal(watch.headers['content-type'], 'application/json');
      watch.close();
    }
    for (const value of ['0', 'false', 'FALSE']) assert.equal((await t.request('GET', `${CM}?watch=${value}`)).json['kind'], 'ConfigMapList');
    assert.equal((await t.request('GET', `${CM}?allowWatchBookmarks=x`)).status, 200);
    assertStatusResponse(await t.request('GET', `${CM}?sendInitialEvents=x`), 422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  });

  void it('the query is split as Go splits it: a pair with a bad escape or a semicolon is dropped', async () => {
    for (const query of ['limit=1;x=2', 'labelSelector=%zz', 'fieldSelector=%gg', 'limit=1&continue=%%%', 'limit=%zz']) {
      const res = await t.request('GET', `${CM}?${query}`);
      assert.equal(res.status, 200, `${query}: ${res.text}`);
    }
    assert.equal((await t.request('GET', `${CM}?limit=1;x=2`)).json['metadata'] !== undefined, true);
    assert.deepEqual(names(await t.request('GET', `${CM}?limit=1;x=2`)), ['a', 'b', 'c']);
    assert.deepEqual(names(await t.request('GET', `${CM}?limit=%31`)), ['a']);
    // watch=%zz is dropped: a list, not a watch.
    assert.equal((await t.request('GET', `${CM}?watch=%zz`)).json['kind'], 'ConfigMapList');
  });

  void it('timeout: a Go duration; malformed is 400 on any path, except on a watch', async () => {
    const invalid = 'invalid timeout specified in the request URL - ';
    for (const [value, detail] of [
      ['abc', 'time: invalid duration "abc"'],
      ['1x', 'time: unknown unit "x" in duration "1x"'],
      ['1', 'time: missing unit in duration "1"'],
    ] as const) {
      for (const path of [`${CM}?`, `${CM}/a?`, '/readyz?', '/version?', '/apis?', `${CM}?limit=x&`]) {
        assertStatusResponse(await t.request('GET', `${path}timeout=${value}`), 400, 'BadRequest', `${invalid}${detail}`);
      }
    }
    assertStatusResponse(await t.request('POST', `${CM}?timeout=abc`, { body: { metadata: { name: 'never' } } }), 400, 'BadRequest', `${invalid}time: invalid duration "abc"`);
    assert.equal((await t.request('GET', `${CM}/never`)).status, 404);
    for (const value of ['', '0', '-1s', '5s', '1h']) assert.equal((await t.request('GET', `${CM}?timeout=${value}`)).status, 200, `timeout=${value}`);
    const watch = await openWatch(t.url, `${CM}?watch=1&timeout=abc&timeoutSeconds=1`);
    assert.ok(isWatchClient(watch));
    watch.close();
  });

  void it('continue tokens: rv must be an int64 literal as written; a negative one lists from the latest', async () => {
    for (const rv of ['1e30', '1.0', '1E2', '9223372036854775808', '100000000000000000000000000000']) {
      assertStatusResponse(
        await t.request('GET', `${CM}?limit=1&continue=${token(rv)}`),
        400,
        'BadRequest',
        `${INVALID_TOKEN}json: cannot unmarshal number ${rv} into Go struct field continueToken.rv of type int64`,
      );
    }
    // Go keeps the first error even when a later member would have been valid.
    const twice = Buffer.from('{"v":"meta.k8s.io/v1","rv":1e30,"RV":5,"start":"a"}').toString('base64url');
    assertStatusResponse(await t.request('GET', `${CM}?limit=1&continue=${twice}`), 400, 'BadRequest', `${INVALID_TOKEN}json: cannot unmarshal number 1e30 into Go struct field continueToken.rv of type int64`);
    assertStatusResponse(await t.request('GET', `${CM}?limit=1&continue=${token('"5"')}`), 400, 'BadRequest', `${INVALID_TOKEN}json: cannot unmarshal string into Go struct field continueToken.rv of type int64`);
    assertStatusResponse(await t.request('GET', `${CM}?limit=1&continue=${token('-0')}`), 400, 'BadRequest', `${INVALID_TOKEN}incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
    const latest = await t.request('GET', `${CM}?limit=1&continue=${token('-1')}`);
    assert.equal(latest.status, 200);
    assert.deepEqual(names(latest), ['b']);
  });

  void it('DeleteOptions: from the query only without a body; uid and resourceVersion are preconditions', async () => {
    const create = async (name: string) => assert.equal((await t.request('POST', CM, { body: { metadata: { name } } })).status, 201);
    await create('d1');
    assertStatusResponse(
      await t.request('DELETE', `${CM}/d1?propagationPolicy=`),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    assertStatusResponse(
      await t.request('DELETE', `${CM}/d1?propagationPolicy=x&dryRun=bogus`),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil", dryRun: Unsupported value: []string{"bogus"}: supported values: "All"]',
    );
    const wrongUid = await t.request('DELETE', `${CM}/d1?uid=x`);
    assert.equal(wrongUid.status, 409, wrongUid.text);
    assert.match(String(wrongUid.json['message']), /the UID in the precondition \(x\) does not match the UID in record/);
    const wrongRv = await t.request('DELETE', `${CM}/d1?resourceVersion=1`);
    assert.equal(wrongRv.status, 409, wrongRv.text);
    assert.match(String(wrongRv.json['message']), /the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record/);
    // DeleteOptions has no fieldManager: never validated.
    assert.equal((await t.request('DELETE', `${CM}/d1?fieldManager=%00&dryRun=All`)).status, 200);
    // With a body the query is not read: neither its errors nor its dryRun.
    const deleted = await t.request('DELETE', `${CM}/d1?gracePeriodSeconds=x&dryRun=All&uid=x`, { body: { kind: 'DeleteOptions', apiVersion: 'v1' } });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await t.request('GET', `${CM}/d1`)).status, 404);
  });

  void it('deletecollection reads the list options first (400, then 422 ListOptions), then the DeleteOptions', async () => {
    assertStatusResponse(await t.request('DELETE', `${CM}?dryRun=All&gracePeriodSeconds=x&limit=abc`), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
    assertStatusResponse(
      await t.request('DELETE', `${CM}?dryRun=All&propagationPolicy=x&sendInitialEvents=x`),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
    assertStatusResponse(await t.request('DELETE', `${CM}?dryRun=All&gracePeriodSeconds=x`), 400, 'BadRequest', 'strconv.ParseInt: parsing "x": invalid syntax');
    assert.deepEqual(names(await t.request('GET', CM)), ['a', 'b', 'c']);
  });

  void it('a watch with a timeoutSeconds past Node\'s longest timer (24.8 days) stays open', async () => {
    const watch = await openWatch(t.url, `${CM}?watch=1&timeoutSeconds=3000000&resourceVersion=0`);
    assert.ok(isWatchClient(watch));
    await watch.take(3, 2000);
    const ended = await Promise.race([watch.ended.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('open'), 1000))]);
    assert.equal(ended, 'open');
    watch.close();
  });
});
