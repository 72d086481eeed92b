/**
 * The watch verb over HTTP against a real etcd: the stream format, the resourceVersion table
 * for watch, WatchList, selector transitions, single-object watches, resuming, expiry,
 * timeouts, bookmarks, disconnects and shutdown — with the watch cache and (the parts that
 * do not depend on cache timing) without it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { History, assertStatusResponse, listOf } from './testing/history.js';
import { isWatchClient, openWatch, type WatchClient, type WatchEventJson } from './testing/watch-client.js';

const INVALID = 'ListOptions.meta.k8s.io "" is invalid: ';

function rvOf(event: WatchEventJson): number {
  return Number(event.object.metadata?.['resourceVersion']);
}

function summary(events: readonly WatchEventJson[]): string[] {
  return events.map((e) => `${e.type} ${String(e.object.metadata?.['name'] ?? '')}`.trim());
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const watchCache of [true, false]) {
  void describe(`watch over HTTP (watch cache ${watchCache ? 'on' : 'off'})`, () => {
    let t: TestServer;
    let h: History;
    let r2: number, r3: number, r4: number;
    const open: WatchClient[] = [];

    async function watch(query: string, path?: string): Promise<WatchClient> {
      const client = await openWatch(t.url, path ?? `${h.collection}?watch=1&${query}`);
      assert.ok(isWatchClient(client), `watch refused: ${JSON.stringify(client)}`);
      open.push(client);
      return client;
    }

    async function currentRv(): Promise<number> {
      return listOf(await t.request('GET', `${h.collection}?limit=1`)).rv;
    }

    before(async () => {
      // Short progress notifications so that the etcd-backed watch sends periodic bookmarks.
      t = await startTestServer({ watchCache, watchCacheTuning: { bookmarkIntervalMs: 500, tickMs: 100 } }, { watchProgressNotifyIntervalMs: 250 });
      assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } })).status, 201);
      h = new History(t, 'w');
      await h.create('a', { v: '1' });
      r2 = await h.create('b', { v: '1' });
      r3 = await h.update('a', { v: '2' });
      r4 = await h.create('c', { v: '1' });
    });
    after(async () => {
      for (const client of open) client.close();
      await t.close();
    });

    void it('streams ADDED, MODIFIED, DELETED in order as chunked newline-delimited JSON', async () => {
      const from = await currentRv();
      const w = await watch(`resourceVersion=${from}`);
      assert.equal(w.status, 200);
      assert.equal(w.headers['content-type'], 'application/json');
      assert.equal(w.headers['transfer-encoding'], 'chunked');
      const created = await h.create('x', { v: '1' });
      const updated = await h.update('x', { v: '2' });
      const deleted = await h.delete('x');
      const events = await w.take(3);
      assert.deepEqual(summary(events), ['ADDED x', 'MODIFIED x', 'DELETED x']);
      assert.deepEqual(events.map(rvOf), [created, updated, deleted]);
      for (const e of events) {
        assert.equal(e.object['kind'], 'ConfigMap');
        assert.equal(e.object['apiVersion'], 'v1');
      }
      assert.deepEqual(events[2]!.object['data'], { v: '2' }, 'DELETED carries the last state');
    });

    void it('resourceVersion unset and "0": the current state as ADDED, then changes; bookmarks add the initial-events-end marker', async () => {
      for (const rv of ['', '&resourceVersion=0']) {
        const plain = await watch(rv.slice(1));
        const initial = await plain.take(3);
        assert.deepEqual(summary(initial), ['ADDED a', 'ADDED b', 'ADDED c']);
        h.assertStateAt(initial.map((e) => e.object) as never, Math.max(...initial.map(rvOf)));

        const marked = await watch(`allowWatchBookmarks=true${rv}`);
        const [, , , end] = await marked.take(4);
        assert.equal(end!.type, 'BOOKMARK');
        assert.deepEqual(end!.object, {
          kind: 'ConfigMap',
          apiVersion: 'v1',
          metadata: { resourceVersion: end!.object.metadata!['resourceVersion'], annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
        assert.ok(rvOf(end!) >= r4);

        const y = await h.create(`y${rv === '' ? '1' : '2'}`, { v: '1' });
        const [live] = await plain.take(1);
        assert.equal(live!.type, 'ADDED');
        assert.equal(rvOf(live!), y);
        assert.deepEqual(summary(plain.events).filter((s) => s.startsWith('BOOKMARK')), [], 'no bookmarks unless asked for');
        await h.delete(`y${rv === '' ? '1' : '2'}`);
      }
    });

    void it('resourceVersion N: every change after N, and nothing before', async () => {
      const w = await watch(`resourceVersion=${r2}`);
      const events = await w.take(2);
      assert.deepEqual(summary(events), ['MODIFIED a', 'ADDED c']);
      assert.deepEqual(events.map(rvOf), [r3, r4]);
    });

    void it('sendInitialEvents=true with NotOlderThan N: the state, then the end bookmark at or after N; false: changes only', async () => {
      const w = await watch(`sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${r2}&allowWatchBookmarks=true`);
      const events = [await w.next()];
      while (events.at(-1)!.type !== 'BOOKMARK') events.push(await w.next());
      const end = events.at(-1)!;
      assert.ok(rvOf(end) >= r2);
      assert.equal(end.object.metadata!['annotations'] && (end.object.metadata!['annotations'] as Record<string, string>)['k8s.io/initial-events-end'], 'true');
      // client-go rebuilds its list from the empty list this annotation carries (base64 of the watch's encoding), and falls back to LIST without it.
      const blueprint = (end.object.metadata!['annotations'] as Record<string, string>)['kubernetes.io/initial-events-list-blueprint'];
      assert.deepEqual(JSON.parse(Buffer.from(blueprint ?? '', 'base64').toString('utf8')), { kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: null });
      const added = events.slice(0, -1);
      assert.ok(added.every((e) => e.type === 'ADDED'));
      h.assertStateAt(added.map((e) => e.object) as never, rvOf(end));

      const changesOnly = await watch('sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0');
      const z = await h.create('z', { v: '1' });
      const [first] = await changesOnly.take(1);
      assert.deepEqual(summary([first!]), ['ADDED z']);
      assert.equal(rvOf(first!), z);
      await h.delete('z');
    });

    void it('refuses invalid watch options before the stream starts, with kube\'s messages', async () => {
      const cases: [string, number, string, string][] = [
        ['resourceVersionMatch=NotOlderThan&resourceVersion=5', 422, 'Invalid', `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`],
        ['sendInitialEvents=true', 422, 'Invalid', `${INVALID}resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`],
        [
          'sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=5',
          422,
          'Invalid',
          `${INVALID}[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`,
        ],
        [
          'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=abc',
          422,
          'Invalid',
          `${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`,
        ],
        ['resourceVersion=abc', 400, 'BadRequest', 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
        ['fieldSelector=data.x%3D1', 400, 'BadRequest', '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'],
        ['labelSelector=!!a', 400, 'BadRequest', "unable to parse requirement: found '!', expected: identifier"],
        ['timeoutSeconds=soon', 400, 'BadRequest', 'strconv.ParseInt: parsing "soon": invalid syntax'],
      ];
      for (const [query, code, reason, message] of cases) {
        assertStatusResponse(await t.request('GET', `${h.collection}?watch=1&${query}`), code, reason, message);
      }
      assertStatusResponse(await t.request('GET', '/api/v1/watch/namespaces/w/configmaps/a?fieldSelector=metadata.namespace%3Dw'), 400, 'BadRequest', "fieldSelector metadata.name doesn't match requested name");
      // As in kube, `?watch` on a named item is a plain GET.
      const got = await t.request('GET', `${h.collection}/a?watch=1`);
      assert.equal(got.status, 200);
      assert.equal((got.json['metadata'] as { name: string }).name, 'a');
    });

    void it('label selector transitions: starts matching → ADDED, stops matching → DELETED', async () => {
      const w = await watch(`labelSelector=app%3Dx&resourceVersion=${await currentRv()}`);
      await h.create('p', { v: '1' });
      const added = await h.update('p', { v: '1' }, { app: 'x' });
      const modified = await h.update('p', { v: '2' }, { app: 'x' });
      const left = await h.update('p', { v: '2' }, { app: 'y' });
      await h.delete('p');
      const q = await h.create('q', { v: '1' }, { app: 'x' });
      const events = await w.take(4);
      assert.deepEqual(summary(events), ['ADDED p', 'MODIFIED p', 'DELETED p', 'ADDED q']);
      assert.deepEqual(events.map(rvOf), [added, modified, left, q]);
      await h.delete('q');
    });

    void it('single-object watches: fieldSelector metadata.name and the legacy /watch/ paths', async () => {
      const from = await currentRv();
      const watches = [
        await watch(`fieldSelector=metadata.name%3Da&resourceVersion=${from}`),
        await watch('', `/api/v1/watch/namespaces/w/configmaps/a?resourceVersion=${from}`),
        await watch('', `/api/v1/watch/configmaps?fieldSelector=metadata.name%3Da,metadata.namespace%3Dw&resourceVersion=${from}`),
      ];
      await h.update('b', { v: '2' });
      const a = await h.update('a', { v: '3' });
      for (const w of watches) {
        const [event] = await w.take(1);
        assert.deepEqual(summary([event!]), ['MODIFIED a']);
        assert.equal(rvOf(event!), a);
      }
      // A single-object watch from "0" starts with that object only.
      const fromZero = await watch('fieldSelector=metadata.name%3Db&resourceVersion=0');
      assert.deepEqual(summary(await fromZero.take(1)), ['ADDED b']);
    });

    void it('a watch resumed from the last resourceVersion it saw sees every later event exactly once', async () => {
      const first = await watch(`resourceVersion=${await currentRv()}`);
      await h.create('r1', { v: '1' });
      await h.create('r2', { v: '1' });
      const seen = await first.take(2);
      first.close();
      const later = [await h.create('r3', { v: '1' }), await h.update('r1', { v: '2' }), await h.delete('r2')];
      const resumed = await watch(`resourceVersion=${rvOf(seen[1]!)}`);
      const rest = await resumed.take(3);
      assert.deepEqual(summary(rest), ['ADDED r3', 'MODIFIED r1', 'DELETED r2']);
      assert.deepEqual(rest.map(rvOf), later);
      await h.delete('r1');
      await h.delete('r3');
    });

    void it('timeoutSeconds ends the stream cleanly, without an error event', async () => {
      const w = await watch(`timeoutSeconds=1&resourceVersion=${await currentRv()}`);
      const { clean } = await w.ended;
      assert.equal(clean, true);
      assert.deepEqual(w.events.filter((e) => e.type === 'ERROR'), []);
    });

    void it('allowWatchBookmarks: periodic bookmarks carry the resource\'s kind and an advancing resourceVersion', async () => {
      const from = await currentRv();
      const w = await watch(`allowWatchBookmarks=true&resourceVersion=${from}`);
      // A write this watch does not see (another namespace) moves the resource's revision on;
      // bookmarks carry it (kube sends a bookmark only past what the watcher has seen).
      const elsewhere = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { generateName: 'elsewhere-' } } });
      const written = Number((elsewhere.json['metadata'] as { resourceVersion: string }).resourceVersion);
      let event = await w.next(10_000);
      for (;;) {
        assert.equal(event.type, 'BOOKMARK');
        assert.deepEqual(event.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(rvOf(event)) } });
        assert.ok(rvOf(event) >= from);
        if (rvOf(event) >= written) break;
        event = await w.next(10_000);
      }
    });

    void it('a client that disconnects releases its watch', async () => {
      const gauge = async () => {
        const text = (await t.request('GET', '/metrics')).text;
        const line = text.split('\n').find((l) => l.startsWith('apiserver_longrunning_requests{') && l.includes('resource="configmaps"') && l.includes('scope="namespace"'));
        return line === undefined ? 0 : Number(line.split(' ').at(-1));
      };
      for (const client of open) client.close();
      await waitFor(async () => (await gauge()) === 0, 'earlier watches to end');
      const w = await watch(`resourceVersion=${await currentRv()}`);
      await waitFor(async () => (await gauge()) === 1, 'the watch to be counted');
      w.close();
      await waitFor(async () => (await gauge()) === 0, 'the watch to be released');
      const metrics = (await t.request('GET', '/metrics')).text;
      assert.match(metrics, /apiserver_request_total\{verb="WATCH",[^}]*resource="configmaps",[^}]*code="200"\} \d+/);
    });

    void it('a compacted resourceVersion: 200, one ERROR event with a 410 Expired Status, then the end', async () => {
      await t.compact();
      // The cache learns the compaction through compact_rev_key within a tick; retry until it has.
      let w: WatchClient | undefined;
      for (let i = 0; i < 50; i++) {
        w = await watch(`resourceVersion=${r2}`);
        const first = await w.next();
        if (first.type === 'ERROR') break;
        w.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(w!.status, 200);
      const { clean } = await w!.ended;
      assert.equal(clean, true);
      assert.equal(w!.events.length, 1);
      const status = w!.events[0]!.object;
      assert.equal(status['kind'], 'Status');
      assert.equal(status['apiVersion'], 'v1');
      assert.equal(status['status'], 'Failure');
      assert.equal(status['reason'], 'Expired');
      assert.equal(status['code'], 410);
      assert.match(String(status['message']), /^(The resourceVersion for the provided watch is too old\.|too old resource version: \d+ \(\d+\))$/);
    });

    void it('many watchers and a burst of concurrent writes: every watcher gets every event once, in revision order', async () => {
      const from = await currentRv();
      const watchers = await Promise.all(Array.from({ length: 8 }, () => watch(`resourceVersion=${from}`)));
      const names = Array.from({ length: 30 }, (_, i) => `burst-${i}`);
      const revisions = (await Promise.all(names.map((n) => h.create(n, { v: '1' })))).sort((a, b) => a - b);
      for (const w of watchers) {
        const events = await w.take(names.length);
        assert.deepEqual(events.map(rvOf), revisions);
        assert.deepEqual(new Set(summary(events)), new Set(names.map((n) => `ADDED ${n}`)));
      }
    });
  });
}

void describe('watch and the server lifecycle', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t.close());

  void it('a slow client gets every event once and in order (resuming if the server closed it)', async () => {
    const collection = '/api/v1/namespaces/default/configmaps';
    const from = listOf(await t.request('GET', `${collection}?limit=1`)).rv;
    let w = await openWatch(t.url, `${collection}?watch=1&resourceVersion=${from}`);
    assert.ok(isWatchClient(w));
    w.pause();
    const big = 'x'.repeat(8192);
    const count = 150;
    const rvs: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await t.request('POST', collection, { body: { metadata: { name: `slow-${String(i).padStart(3, '0')}` }, data: { big } } });
      assert.equal(res.status, 201);
      rvs.push(Number((res.json['metadata'] as { resourceVersion: string }).resourceVersion));
    }
    w.resume();
    const seen: number[] = [];
    while (seen.length < count) {
      let event: WatchEventJson;
      try {
        event = await w.next(5000);
      } catch (err) {
        // Closed for not keeping up: resume from the last resourceVersion seen.
        assert.ok(seen.length > 0, String(err));
        const resumed = await openWatch(t.url, `${collection}?watch=1&resourceVersion=${seen.at(-1)}`);
        assert.ok(isWatchClient(resumed));
        w.close();
        w = resumed;
        continue;
      }
      if (event.type === 'BOOKMARK') continue;
      assert.equal(event.type, 'ADDED');
      seen.push(rvOf(event));
    }
    w.close();
    assert.deepEqual(seen, rvs);
  });

  void it('shutting the server down ends open watches', async () => {
    const w = await openWatch(t.url, '/api/v1/namespaces/default/configmaps?watch=1');
    assert.ok(isWatchClient(w));
    const closing = t.server.close();
    const { clean } = await w.ended;
    assert.equal(clean, true);
    await closing;
  });
});
