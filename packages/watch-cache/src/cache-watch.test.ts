import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject, Status } from '@kapi/machinery';
import type { Predicate, WatchEvent } from '@kapi/storage';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { Reader, configMap, sleep, startCacheFixture } from './testing/cache-fixture.js';

const webOnly: Predicate = { empty: false, matches: (o) => o.metadata.labels?.app === 'web' };

void describe('watch cache watches over etcd', { concurrency: false }, () => {
  let etcd: TestEtcd;
  before(async () => {
    // Periodic progress notifications let a quiet cache's revision (and its bookmarks) advance.
    etcd = await startEtcd({ watchProgressNotifyIntervalMs: 250 });
  });
  after(async () => {
    await etcd.stop();
  });

  void test('serialize once: watchers share event objects; a selector transition gets its own DELETED', async () => {
    const f = await startCacheFixture(etcd);
    try {
      const start = String(await f.cache.currentRevision());
      const one = new Reader(await f.cache.watch(f.resource, { resourceVersion: start }));
      const two = new Reader(await f.cache.watch(`${f.resource}/default`, { resourceVersion: start }));
      const web = new Reader(await f.cache.watch(f.resource, { resourceVersion: start, predicate: webOnly }));
      const created = await f.cache.create(f.key('a'), { ...configMap('a'), metadata: { name: 'a', namespace: 'default', labels: { app: 'web' } } });
      const moved = await f.cache.guaranteedUpdate(f.key('a'), (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { app: 'db' } } }));
      const [a1, a2] = await one.changes(2);
      const [b1, b2] = await two.changes(2);
      const [w1, w2] = await web.changes(2);
      assert.equal(a1, b1);
      assert.equal(a1, w1);
      assert.equal(a2, b2);
      assert.equal(a2!.type, 'MODIFIED');
      assert.equal(w2!.type, 'DELETED');
      assert.notEqual(w2, a2);
      // The transition DELETED carries the previous (matching) state at the event's revision.
      const gone = w2!.object as KubeObject;
      assert.deepEqual(gone.metadata.labels, { app: 'web' });
      assert.equal(gone.metadata.resourceVersion, moved.metadata.resourceVersion);
      assert.equal((a1!.object as KubeObject).metadata.resourceVersion, created.metadata.resourceVersion);
      // Initial ADDED events are shared too, and are the very objects lists return.
      const x = new Reader(await f.cache.watch(f.resource, { resourceVersion: '0' }));
      const y = new Reader(await f.cache.watch(f.resource, { resourceVersion: '0' }));
      const [xa] = await x.changes(1);
      const [ya] = await y.changes(1);
      assert.equal(xa, ya);
      assert.equal(xa!.object, (await f.cache.list(f.resource, { resourceVersion: '0' })).items[0]);
      for (const r of [one, two, web, x, y]) r.watch.stop();
    } finally {
      await f.close();
    }
  });

  void test('a revision older than the buffer gives one ERROR (410 too old resource version); a future one waits', async () => {
    const f = await startCacheFixture(etcd, { history: { minCapacity: 4, maxCapacity: 4, windowMs: 0 } });
    try {
      const start = Number((await f.cache.create(f.key('first'), configMap('first'))).metadata.resourceVersion);
      const revisions: number[] = [];
      for (let i = 0; i < 6; i++) revisions.push(Number((await f.cache.create(f.key(`n${i}`), configMap(`n${i}`))).metadata.resourceVersion));
      await f.cache.list(f.resource); // the cache has all of them
      const oldest = revisions[2]!; // 4 buffered: n2..n5
      const tooOld = new Reader(await f.cache.watch(f.resource, { resourceVersion: String(start) }));
      const error = await tooOld.event();
      assert.equal(error.type, 'ERROR');
      assert.deepEqual(error.object as Status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: ${start} (${oldest - 1})`,
        reason: 'Expired',
        code: 410,
      });
      assert.equal(await tooOld.next(), 'done');
      // The oldest servable revision minus one still works.
      const edge = new Reader(await f.cache.watch(f.resource, { resourceVersion: String(oldest - 1) }));
      assert.deepEqual((await edge.changes(4)).map((e) => e.revision), revisions.slice(2));
      edge.watch.stop();

      const current = await f.cache.currentRevision();
      const future = new Reader(await f.cache.watch(f.resource, { resourceVersion: String(current + 2) }));
      await f.cache.create(f.key('f1'), configMap('f1'));
      await f.cache.create(f.key('f2'), configMap('f2'));
      const f3 = await f.cache.create(f.key('f3'), configMap('f3'));
      const [event] = await future.changes(1);
      assert.equal(event!.revision, Number(f3.metadata.resourceVersion));
      future.watch.stop();
    } finally {
      await f.close();
    }
  });

  void test('sendInitialEvents for a revision the cache never reaches gives one ERROR (504 too large)', async () => {
    const f = await startCacheFixture(etcd, { waitTimeoutMs: 200 });
    try {
      const far = (await f.cache.currentRevision()) + 1000;
      const reader = new Reader(await f.cache.watch(f.resource, { resourceVersion: String(far), sendInitialEvents: true, allowBookmarks: true }));
      const event = await reader.event();
      assert.equal(event.type, 'ERROR');
      const status = event.object as Status;
      assert.equal(status.code, 504);
      assert.equal(status.reason, 'Timeout');
      assert.match(status.message ?? '', new RegExp(`^Timeout: Too large resource version: ${far}, current: \\d+$`));
      assert.equal(await reader.next(), 'done');
    } finally {
      await f.close();
    }
  });

  void test('the events of one etcd transaction (several keys, one revision) all reach every watcher, live and resumed', async () => {
    const f = await startCacheFixture(etcd);
    try {
      const start = String(await f.cache.currentRevision());
      const live = new Reader(await f.cache.watch(f.resource, { resourceVersion: start, allowBookmarks: true }));
      const names = ['t1', 't2', 't3'];
      // kapi never writes two keys in one transaction, but other etcd writers (restores, tools) do.
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      const res = await fetch(`${etcd.endpoints[0]}/v3/kv/txn`, {
        method: 'POST',
        body: JSON.stringify({ success: names.map((n) => ({ request_put: { key: b64(f.key(n)), value: b64(JSON.stringify(configMap(n))) } })) }),
      });
      assert.equal(res.status, 200);
      const revision = Number(((await res.json()) as { header: { revision: string } }).header.revision);
      const seen = await live.changes(3);
      assert.deepEqual(seen.map((e) => [e.type, (e.object as KubeObject).metadata.name, e.revision]), names.map((n) => ['ADDED', n, revision]));
      // Resumed from before the transaction: replayed from the cache's event buffer.
      const resumed = new Reader(await f.cache.watch(f.resource, { resourceVersion: start }));
      assert.deepEqual((await resumed.changes(3)).map((e) => (e.object as KubeObject).metadata.name), names);
      // Nothing is delivered twice: the next event is the next write.
      await f.cache.create(f.key('after'), configMap('after'));
      assert.equal(((await live.changes(1))[0]!.object as KubeObject).metadata.name, 'after');
      assert.equal(((await resumed.changes(1))[0]!.object as KubeObject).metadata.name, 'after');
      live.watch.stop();
      resumed.watch.stop();
    } finally {
      await f.close();
    }
  });

  void test('a watcher that stops pulling is closed after its budget: it drains, gets a final BOOKMARK, ends, and is counted', async () => {
    const f = await startCacheFixture(etcd, { watcherQueueSize: 3, slowWatcherBudget: { perSecondMs: 0, maxMs: 30 } });
    try {
      const start = String(await f.cache.currentRevision());
      const slow = await f.cache.watch(f.resource, { resourceVersion: start, allowBookmarks: true });
      // The fast watcher keeps up (a consumer pulls all along); nobody reads the slow one.
      const fast = await f.cache.watch(f.resource, { resourceVersion: start });
      const fastSeen: number[] = [];
      const fastDone = (async () => {
        for await (const event of fast) fastSeen.push(event.revision);
      })();
      const written: KubeObject[] = [];
      for (let i = 0; i < 8; i++) written.push(await f.cache.create(f.key(`o${i}`), configMap(`o${i}`)));
      await sleep(100);
      for (let i = 8; i < 12; i++) written.push(await f.cache.create(f.key(`o${i}`), configMap(`o${i}`)));
      await sleep(50);
      const reader = new Reader(slow);
      const got: number[] = [];
      let bookmark: number | undefined;
      for (;;) {
        const event = await reader.next();
        if (event === 'timeout') assert.fail('the slow watcher neither delivered nor ended');
        if (event === 'done') break;
        if (event.type === 'BOOKMARK') bookmark = event.revision;
        else {
          assert.equal(bookmark, undefined, 'no event after the final bookmark');
          got.push(event.revision);
        }
      }
      assert.ok(got.length >= 4 && got.length < 12, `the slow watcher got ${got.length} events before it was closed`);
      assert.deepEqual(got, written.slice(0, got.length).map((o) => Number(o.metadata.resourceVersion)));
      assert.equal(bookmark, got.at(-1));
      const metric = await f.metrics.getSingleMetric('apiserver_terminated_watchers_total')!.get();
      assert.deepEqual(metric.values.map((v) => [v.labels.resource, v.value]), [['configmaps', 1]]);
      // Resuming from the bookmark gives exactly the rest.
      const resumed = new Reader(await f.cache.watch(f.resource, { resourceVersion: String(bookmark) }));
      const rest = await resumed.changes(12 - got.length);
      assert.deepEqual(rest.map((e) => e.revision), written.slice(got.length).map((o) => Number(o.metadata.resourceVersion)));
      resumed.watch.stop();
      // The fast watcher was not affected.
      while (fastSeen.length < 12) await sleep(10);
      assert.deepEqual(fastSeen, written.map((o) => Number(o.metadata.resourceVersion)));
      fast.stop();
      await fastDone;
    } finally {
      await f.close();
    }
  });

  void test('periodic bookmarks carry the cache revision; sendInitialEvents ends the state with an annotated bookmark', async () => {
    const f = await startCacheFixture(etcd, { bookmarkIntervalMs: 100 });
    try {
      const a = await f.cache.create(f.key('a'), configMap('a'));
      const reader = new Reader(await f.cache.watch(f.resource, { resourceVersion: '', sendInitialEvents: true, allowBookmarks: true }));
      const added = await reader.event();
      assert.equal(added.type, 'ADDED');
      assert.equal(added.revision, Number(a.metadata.resourceVersion));
      const end = await reader.event();
      assert.equal(end.type, 'BOOKMARK');
      assert.deepEqual((end.object as KubeObject).metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
      const b = await f.cache.create(f.key('b'), configMap('b'));
      const [next] = await reader.changes(1);
      assert.equal(next!.revision, Number(b.metadata.resourceVersion));
      // A write elsewhere moves etcd, not this cache's events; progress notifications move the
      // cache's revision, and the periodic bookmarks follow it.
      const elsewhere = Number((await f.backend.create(`${f.elsewhere}/default/x`, configMap('x'))).metadata.resourceVersion);
      const deadline = Date.now() + 5000;
      let periodic: WatchEvent;
      do {
        periodic = await reader.event(Math.max(1, deadline - Date.now()));
        assert.equal(periodic.type, 'BOOKMARK');
        assert.equal((periodic.object as KubeObject).metadata.annotations, undefined);
        assert.ok(periodic.revision > Number(b.metadata.resourceVersion));
      } while (periodic.revision < elsewhere);
      reader.watch.stop();
    } finally {
      await f.close();
    }
  });

  void test('a watch with a deadline gets its last bookmark 2 s before it, even when the period is long', async () => {
    const f = await startCacheFixture(etcd, { bookmarkIntervalMs: 60_000, tickMs: 50 });
    try {
      const a = await f.cache.create(f.key('a'), configMap('a'));
      const started = Date.now();
      const deadline = started + 2600;
      const reader = new Reader(await f.cache.watch(f.resource, { resourceVersion: a.metadata.resourceVersion!, allowBookmarks: true, deadline }));
      const bookmark = await reader.event(2000);
      const at = Date.now();
      assert.equal(bookmark.type, 'BOOKMARK');
      assert.ok(bookmark.revision >= Number(a.metadata.resourceVersion));
      assert.ok(at >= deadline - 2000 - 60, `bookmark at ${at - started} ms, before deadline - 2 s`);
      // Only one: the next would be past the deadline.
      assert.equal(await reader.next(700), 'timeout');
      // A watch whose deadline is less than 2 s away gets no deadline bookmark at all.
      const late = new Reader(await f.cache.watch(f.resource, { resourceVersion: a.metadata.resourceVersion!, allowBookmarks: true, deadline: Date.now() + 1500 }));
      assert.equal(await late.next(1000), 'timeout');
      reader.watch.stop();
      late.watch.stop();
    } finally {
      await f.close();
    }
  });
});
