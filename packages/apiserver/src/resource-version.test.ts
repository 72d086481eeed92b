/**
 * The resourceVersion tables of the Kubernetes API concepts page, cell by cell, over HTTP
 * against a real etcd — with the watch cache and without it (--watch-cache=false). Every
 * list is checked against the exact state at the resourceVersion it reports.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { History, assertStatusResponse, listOf, type ItemJson } from './testing/history.js';

const INVALID = 'ListOptions.meta.k8s.io "" is invalid: ';
const NEED_RV = 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided';
const NO_CONTINUE = 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided';
const EXACT_ZERO = 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"';
const RV_WITH_CONTINUE = 'specifying resource version is not allowed when using continue';

for (const watchCache of [true, false]) {
  void describe(`resourceVersion semantics over HTTP (watch cache ${watchCache ? 'on' : 'off'})`, () => {
    let t: TestServer;
    let h: History;
    /** Revisions of the history: a created, b created, a updated, c created. */
    let r1: number, r2: number, r3: number, r4: number;
    const list = (query: string) => t.request('GET', `${h.collection}?${query}`);

    /** Follows continue tokens from a first page; returns all items and checks the pages share one resourceVersion. */
    async function allPages(first: ReturnType<typeof listOf>, limit: number): Promise<ItemJson[]> {
      const items = [...first.items];
      let token = first.continue;
      while (token !== undefined) {
        const page = listOf(await list(`limit=${limit}&continue=${encodeURIComponent(token)}`));
        assert.equal(page.rv, first.rv, 'every page is read at the first page\'s resourceVersion');
        assert.ok(page.items.length <= limit);
        items.push(...page.items);
        token = page.continue;
      }
      return items;
    }

    before(async () => {
      // A short wait before 504 Too large resource version keeps the test fast (kube waits 3 s).
      t = await startTestServer({ watchCache, watchCacheTuning: { waitTimeoutMs: 1000 } });
      assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'rv' } } })).status, 201);
      h = new History(t, 'rv');
      r1 = await h.create('a', { v: '1' });
      r2 = await h.create('b', { v: '1' });
      r3 = await h.update('a', { v: '2' });
      r4 = await h.create('c', { v: '1' });
      assert.ok(r1 < r2 && r2 < r3 && r3 < r4);
    });
    after(async () => t.close());

    void describe('get', () => {
      const get = (query: string) => t.request('GET', `${h.collection}/a${query}`);

      void it('resourceVersion unset: most recent', async () => {
        const res = await get('');
        assert.equal(res.status, 200);
        assert.deepEqual(res.json['data'], { v: '2' });
        assert.equal((res.json['metadata'] as ItemJson['metadata']).resourceVersion, String(r3));
      });

      void it('resourceVersion "0": any (this server also reads its own writes)', async () => {
        const res = await get('?resourceVersion=0');
        assert.equal(res.status, 200);
        assert.deepEqual(res.json['data'], { v: '2' });
      });

      void it('resourceVersion N: not older than N', async () => {
        for (const n of [r1, r3]) {
          const res = await get(`?resourceVersion=${n}`);
          assert.equal(res.status, 200);
          assert.ok(Number((res.json['metadata'] as ItemJson['metadata']).resourceVersion) >= r3);
        }
        assert.equal((await t.request('GET', `${h.collection}/nope?resourceVersion=${r1}`)).status, 404);
      });

      void it('a malformed resourceVersion is 400', async () => {
        assertStatusResponse(
          await get('?resourceVersion=x1'),
          400,
          'BadRequest',
          'invalid resource version: resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax',
        );
      });
    });

    void describe('list, resourceVersionMatch unset', () => {
      void it('limit unset: unset = most recent, "0" = any, N = not older than N', async () => {
        const recent = listOf(await list(''));
        assert.ok(recent.rv >= r4);
        h.assertStateAt(recent.items, recent.rv);
        assert.equal(recent.continue, undefined);

        const any = listOf(await list('resourceVersion=0'));
        h.assertStateAt(any.items, any.rv, 'RV=0');
        assert.ok(any.rv >= r4, 'reads its own writes');

        const notOlder = listOf(await list(`resourceVersion=${r2}`));
        assert.ok(notOlder.rv >= r2);
        h.assertStateAt(notOlder.items, notOlder.rv, `RV=${r2}`);
      });

      void it('limit set, continue unset: unset = most recent (paged), "0" = any, N = exact', async () => {
        const recent = listOf(await list('limit=2'));
        assert.ok(recent.rv >= r4);
        assert.equal(recent.items.length, 2);
        assert.ok(recent.continue);
        assert.equal(recent.remainingItemCount, 1);
        h.assertStateAt(await allPages(recent, 2), recent.rv);

        // kube's cache ignores the limit for "0" (whole list, no token); etcd pages.
        const any = listOf(await list('limit=2&resourceVersion=0'));
        h.assertStateAt(await allPages(any, 2), any.rv, 'RV=0');

        const exact = listOf(await list(`limit=1&resourceVersion=${r2}`));
        assert.equal(exact.rv, r2, 'legacy exact: a limit with N reads at N');
        assert.equal(exact.items.length, 1);
        h.assertStateAt(await allPages(exact, 1), r2);
      });

      void it('continue: the token\'s revision, exactly, even after later writes; "0" alongside is ignored', async () => {
        const first = listOf(await list('limit=2'));
        const pinned = first.rv;
        await h.create('d', { v: '1' });
        await h.update('c', { v: '2' });
        for (const rv of ['', '&resourceVersion=0']) {
          const rest = listOf(await list(`limit=2&continue=${encodeURIComponent(first.continue!)}${rv}`));
          assert.equal(rest.rv, pinned);
          h.assertStateAt([...first.items, ...rest.items], pinned);
        }
        await h.delete('d');
        await h.update('c', { v: '1' });
      });

      void it('continue with resourceVersion N is 400; a bad token is reported first', async () => {
        const first = listOf(await list('limit=1'));
        assertStatusResponse(await list(`limit=1&continue=${encodeURIComponent(first.continue!)}&resourceVersion=${r2}`), 400, 'BadRequest', RV_WITH_CONTINUE);
        assertStatusResponse(await list(`limit=1&continue=bad*token&resourceVersion=${r2}`), 400, 'BadRequest', /^invalid continue token: continue key is not valid: illegal base64 data at input byte 3$/);
        assertStatusResponse(await list('limit=1&continue=bad*token'), 400, 'BadRequest', /^invalid continue token: /);
      });
    });

    void describe('list, resourceVersionMatch=Exact', () => {
      void it('unset and "0" are invalid; N reads exactly at N, paged or not', async () => {
        assertStatusResponse(await list('resourceVersionMatch=Exact'), 422, 'Invalid', INVALID + NEED_RV);
        assertStatusResponse(await list('resourceVersionMatch=Exact&limit=2'), 422, 'Invalid', INVALID + NEED_RV);
        assertStatusResponse(await list('resourceVersionMatch=Exact&resourceVersion=0'), 422, 'Invalid', INVALID + EXACT_ZERO);
        for (const n of [r1, r2, r3, r4]) {
          const exact = listOf(await list(`resourceVersionMatch=Exact&resourceVersion=${n}`));
          assert.equal(exact.rv, n);
          h.assertStateAt(exact.items, n);
          const paged = listOf(await list(`resourceVersionMatch=Exact&resourceVersion=${n}&limit=1`));
          assert.equal(paged.rv, n);
          h.assertStateAt(await allPages(paged, 1), n);
        }
      });

      void it('with continue: invalid for every resourceVersion', async () => {
        const token = encodeURIComponent(listOf(await list('limit=1')).continue!);
        assertStatusResponse(await list(`resourceVersionMatch=Exact&continue=${token}`), 422, 'Invalid', `${INVALID}[${NEED_RV}, ${NO_CONTINUE}]`);
        assertStatusResponse(await list(`resourceVersionMatch=Exact&continue=${token}&resourceVersion=0`), 422, 'Invalid', `${INVALID}[${NO_CONTINUE}, ${EXACT_ZERO}]`);
        assertStatusResponse(await list(`resourceVersionMatch=Exact&continue=${token}&resourceVersion=${r2}`), 422, 'Invalid', INVALID + NO_CONTINUE);
      });

      void it('a revision in the future is 504 Too large resource version with Retry-After', async () => {
        const future = r4 + 100_000;
        const res = await list(`resourceVersionMatch=Exact&resourceVersion=${future}`);
        assertStatusResponse(res, 504, 'Timeout', new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
        assert.equal(res.headers.get('retry-after'), '1');
        assert.deepEqual(res.json['details'], { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
      });
    });

    void describe('list, resourceVersionMatch=NotOlderThan', () => {
      void it('unset is invalid; "0" = any; N = not older than N, with or without a limit', async () => {
        assertStatusResponse(await list('resourceVersionMatch=NotOlderThan'), 422, 'Invalid', INVALID + NEED_RV);
        assertStatusResponse(await list('resourceVersionMatch=NotOlderThan&limit=1'), 422, 'Invalid', INVALID + NEED_RV);
        const any = listOf(await list('resourceVersionMatch=NotOlderThan&resourceVersion=0'));
        h.assertStateAt(any.items, any.rv);
        for (const limit of ['', '&limit=1']) {
          const res = listOf(await list(`resourceVersionMatch=NotOlderThan&resourceVersion=${r2}${limit}`));
          assert.ok(res.rv >= r2);
          h.assertStateAt(limit === '' ? res.items : await allPages(res, 1), res.rv);
        }
      });

      void it('with continue: invalid', async () => {
        const token = encodeURIComponent(listOf(await list('limit=1')).continue!);
        assertStatusResponse(await list(`resourceVersionMatch=NotOlderThan&continue=${token}`), 422, 'Invalid', `${INVALID}[${NEED_RV}, ${NO_CONTINUE}]`);
        assertStatusResponse(await list(`resourceVersionMatch=NotOlderThan&continue=${token}&resourceVersion=0`), 422, 'Invalid', INVALID + NO_CONTINUE);
        assertStatusResponse(await list(`resourceVersionMatch=NotOlderThan&continue=${token}&resourceVersion=${r2}`), 422, 'Invalid', INVALID + NO_CONTINUE);
      });

      void it('N beyond the store is 504 with Retry-After (list, get, and N without a match)', async () => {
        const future = r4 + 100_000;
        const responses = await Promise.all([
          list(`resourceVersionMatch=NotOlderThan&resourceVersion=${future}`),
          list(`resourceVersion=${future}`),
          t.request('GET', `${h.collection}/a?resourceVersion=${future}`),
        ]);
        for (const res of responses) {
          assertStatusResponse(res, 504, 'Timeout', new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
          assert.equal(res.headers.get('retry-after'), '1');
          assert.deepEqual(res.json['details'], { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
        }
      });
    });

    void describe('invalid options', () => {
      void it('an unknown match, sendInitialEvents on a list, malformed numbers', async () => {
        assertStatusResponse(
          await list('resourceVersionMatch=Sometimes&resourceVersion=5'),
          422,
          'Invalid',
          `${INVALID}resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""`,
        );
        assertStatusResponse(await list('sendInitialEvents=true'), 422, 'Invalid', `${INVALID}sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`);
        assertStatusResponse(
          await list('sendInitialEvents=true&resourceVersionMatch=Exact'),
          422,
          'Invalid',
          `${INVALID}[${NEED_RV}, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]`,
        );
        assertStatusResponse(
          await list('resourceVersion=-1'),
          400,
          'BadRequest',
          'invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax',
        );
        assertStatusResponse(await list('limit=ten'), 400, 'BadRequest', 'strconv.ParseInt: parsing "ten": invalid syntax');
      });

      void it('a metadata.name field selector reads one key; limit and continue do not apply', async () => {
        const one = listOf(await list(`fieldSelector=metadata.name%3Db&limit=1&resourceVersion=${r2}`));
        assert.deepEqual(one.items.map((i) => i.metadata.name), ['b']);
        assert.equal(one.continue, undefined);
        const exact = listOf(await list(`fieldSelector=metadata.name%3Da&resourceVersionMatch=Exact&resourceVersion=${r2}`));
        assert.equal(exact.rv, r2);
        assert.deepEqual(exact.items.map((i) => i.data), [{ v: '1' }]);
        // kube's storage ignores a continue token on a single-key read (and so the resourceVersion rule that comes with it).
        const ignored = listOf(await list(`fieldSelector=metadata.name%3Db&continue=garbage&resourceVersion=${r2}`));
        assert.deepEqual(ignored.items.map((i) => i.metadata.name), ['b']);
        assertStatusResponse(
          await list('fieldSelector=metadata.name%3Db&continue=garbage&resourceVersion=x'),
          400,
          'BadRequest',
          'invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax',
        );
      });
    });

    void describe('after compaction', () => {
      void it('Exact at a compacted revision is 410; a compacted continue token is 410 with an rv -1 token that continues', async () => {
        const first = listOf(await list('limit=1'));
        // A write elsewhere, so that the compaction (at the current revision) passes the token's
        // revision; otherwise whether it does depends on an unrelated write (a lease renewal) landing in between.
        assert.equal((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { generateName: 'bump-' } } })).status, 201);
        const compacted = await t.compact();
        assert.ok(compacted > first.rv, `compacted ${compacted}, the token's revision ${first.rv}`);
        assert.ok(compacted > r4);
        // The server learns the compacted revision through compact_rev_key; the cache drops older snapshots within a tick.
        let res = await list(`resourceVersionMatch=Exact&resourceVersion=${r2}`);
        for (let i = 0; i < 150 && res.status === 200; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          res = await list(`resourceVersionMatch=Exact&resourceVersion=${r2}`);
        }
        assertStatusResponse(res, 410, 'Expired', 'The resourceVersion for the provided list is too old.');
        assertStatusResponse(await list(`limit=1&resourceVersion=${r3}`), 410, 'Expired', 'The resourceVersion for the provided list is too old.');

        const expired = await list(`limit=1&continue=${encodeURIComponent(first.continue!)}`);
        assertStatusResponse(
          expired,
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
        const fresh = (expired.json['metadata'] as { continue?: string }).continue;
        assert.ok(fresh, 'the Status carries a continue token');
        const decoded = JSON.parse(Buffer.from(fresh, 'base64url').toString()) as { rv: number; start: string };
        assert.equal(decoded.rv, -1);
        const rest = listOf(await list(`limit=10&continue=${encodeURIComponent(fresh)}`));
        assert.deepEqual(rest.items.map((i) => i.metadata.name), ['b', 'c']);
        assert.ok(rest.rv >= compacted);
      });
    });
  });
}
