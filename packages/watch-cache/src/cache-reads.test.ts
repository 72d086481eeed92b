import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StorageError, type Predicate } from '@kapi/storage';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { configMap, names, startCacheFixture, type CacheFixture } from './testing/cache-fixture.js';

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<StorageError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof StorageError, `expected a StorageError ${code}, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected a StorageError ${code}, but the call succeeded`);
}

/** Reads a labelled counter (all label sets summed when `labels` is empty). */
async function metricValue(fixture: CacheFixture, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = fixture.metrics.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

void describe('watch cache reads over etcd', { concurrency: false }, () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });

  void test('Exact and continue reads are served from snapshots after later writes, even with etcd frozen', async () => {
    const f = await startCacheFixture(etcd);
    try {
      for (const name of ['a', 'b', 'c', 'd']) await f.cache.create(f.key(name), configMap(name, { v: '1' }));
      const before = await f.cache.list(f.resource);
      const firstPage = await f.cache.list(f.resource, { limit: 2 });
      assert.deepEqual(names(firstPage.items), ['a', 'b']);
      assert.equal(firstPage.remainingItemCount, 2);
      await f.cache.guaranteedUpdate(f.key('c'), (cur) => ({ ...cur!, data: { v: '2' } }));
      await f.cache.delete(f.key('d'));
      await f.cache.create(f.key('e'), configMap('e'));
      const now = await f.cache.list(f.resource);
      assert.deepEqual(names(now.items), ['a', 'b', 'c', 'e']);

      etcd.pause();
      try {
        const exact = await f.cache.list(f.resource, { resourceVersion: before.resourceVersion, resourceVersionMatch: 'Exact' });
        assert.deepEqual(exact, before);
        const rest = await f.cache.list(f.resource, { limit: 10, continue: firstPage.continue! });
        assert.deepEqual(names(rest.items), ['c', 'd']);
        assert.deepEqual(rest.items[0]!.data, { v: '1' });
        assert.equal(rest.resourceVersion, firstPage.resourceVersion);
        // RV=0 and NotOlderThan an already reached revision are served as well.
        assert.deepEqual(names((await f.cache.list(f.resource, { resourceVersion: '0' })).items), ['a', 'b', 'c', 'e']);
        const got = await f.cache.get(f.key('c'), { resourceVersion: before.resourceVersion });
        assert.deepEqual(got?.data, { v: '2' });
      } finally {
        etcd.resume();
      }
    } finally {
      await f.close();
    }
  });

  void test('peekCached shows what an RV=0 get would answer at once, never an object older than this replica\'s own write', async () => {
    const f = await startCacheFixture(etcd);
    try {
      assert.equal(f.cache.peekCached?.(f.key('a')), undefined);
      await f.cache.create(f.key('a'), configMap('a', { v: '1' }));
      const settled = await f.cache.get(f.key('a'), { resourceVersion: '0' });
      assert.deepEqual(f.cache.peekCached?.(f.key('a')), settled);
      assert.equal(f.cache.peekCached?.(f.key('missing')), undefined);
      assert.equal(f.cache.peekCached?.('/elsewhere/configmaps/default/a'), undefined);
      for (let i = 2; i <= 20; i++) {
        const written = await f.cache.guaranteedUpdate(f.key('a'), (cur) => ({ ...cur!, data: { v: String(i) } }));
        const peeked = f.cache.peekCached?.(f.key('a'));
        // Before the write's own event reaches the cache, a get would wait: peek has no answer.
        if (peeked !== undefined) assert.equal(peeked.metadata.resourceVersion, written.metadata.resourceVersion);
      }
      const last = await f.cache.get(f.key('a'), { resourceVersion: '0' });
      assert.deepEqual(last?.data, { v: '20' });
      assert.equal(f.cache.peekCached?.(f.key('a')), last);
    } finally {
      await f.close();
    }
  });

  void test('continue tokens and remainingItemCount from the cache equal the etcd list', async () => {
    const f = await startCacheFixture(etcd);
    try {
      for (let i = 0; i < 25; i++) await f.cache.create(f.key(`item-${String(i).padStart(2, '0')}`, i % 2 ? 'odd' : 'even'), configMap(`item-${i}`, {}, i % 2 ? 'odd' : 'even'));
      const rv = (await f.cache.list(f.resource)).resourceVersion;
      const odd: Predicate = { empty: false, matches: (o) => Number((o.metadata.name ?? '').split('-')[1]) % 3 === 0 };
      for (const [key, predicate, limit] of [
        [f.resource, undefined, 4],
        [`${f.resource}/odd`, undefined, 5],
        [f.resource, odd, 3],
        [f.resource, undefined, 25],
      ] as const) {
        let cacheToken: string | undefined;
        let etcdToken: string | undefined;
        let pages = 0;
        do {
          const options = { limit, resourceVersion: rv, resourceVersionMatch: 'Exact' as const, ...(predicate ? { predicate } : {}) };
          const fromCache = await f.cache.list(key, cacheToken ? { limit, ...(predicate ? { predicate } : {}), continue: cacheToken } : options);
          const fromEtcd = await f.backend.list(key, etcdToken ? { limit, ...(predicate ? { predicate } : {}), continue: etcdToken } : options);
          assert.deepEqual(fromCache, fromEtcd);
          cacheToken = fromCache.continue;
          etcdToken = fromEtcd.continue;
          pages++;
        } while (cacheToken);
        assert.ok(pages >= 1);
      }
    } finally {
      await f.close();
    }
  });

  void test('snapshots at compacted revisions are dropped: Exact and continue reads then fail with Expired', async () => {
    const f = await startCacheFixture(etcd);
    try {
      for (const name of ['a', 'b', 'c']) await f.cache.create(f.key(name), configMap(name));
      const old = await f.cache.list(f.resource, { limit: 1 });
      const latest = await f.cache.create(f.key('d'), configMap('d'));
      // Still held: served from the snapshot.
      assert.deepEqual(names((await f.cache.list(f.resource, { resourceVersion: old.resourceVersion, resourceVersionMatch: 'Exact' })).items), ['a', 'b', 'c']);
      const revision = Number(latest.metadata.resourceVersion);
      await f.backend.client.kv.compact({ revision, physical: true });
      f.compacted(revision);
      await rejectsWith(f.cache.list(f.resource, { resourceVersion: old.resourceVersion, resourceVersionMatch: 'Exact' }), 'Expired');
      const err = await rejectsWith(f.cache.list(f.resource, { limit: 1, continue: old.continue! }), 'Expired');
      assert.ok(err.inconsistentContinue);
      // The compacted revision itself is still readable.
      const atCompaction = await f.cache.list(f.resource, { resourceVersion: String(revision), resourceVersionMatch: 'Exact' });
      assert.deepEqual(names(atCompaction.items), ['a', 'b', 'c', 'd']);
    } finally {
      await f.close();
    }
  });

  void test('NotOlderThan waits for the cache, then fails with TooLargeResourceVersion', async () => {
    const f = await startCacheFixture(etcd, { waitTimeoutMs: 300 });
    try {
      const current = await f.cache.currentRevision();
      // A revision reached during the wait is served.
      const pending = f.cache.list(f.resource, { resourceVersion: String(current + 1), resourceVersionMatch: 'NotOlderThan' });
      const created = await f.cache.create(f.key('late'), configMap('late'));
      const served = await pending;
      assert.deepEqual(names(served.items), ['late']);
      assert.ok(Number(served.resourceVersion) >= Number(created.metadata.resourceVersion));
      // One that is never reached times out.
      const far = current + 1000;
      const err = await rejectsWith(f.cache.list(f.resource, { resourceVersion: String(far), resourceVersionMatch: 'NotOlderThan' }), 'TooLargeResourceVersion');
      assert.equal(err.message, `Too large resource version: ${far}, current: ${err.currentRevision}`);
      assert.equal(err.requestedRevision, far);
      await rejectsWith(f.cache.get(f.key('late'), { resourceVersion: String(far) }), 'TooLargeResourceVersion');
    } finally {
      await f.close();
    }
  });

  void test('a consistent list of a quiet resource is served from the cache at a revision not older than etcd', async () => {
    const f = await startCacheFixture(etcd);
    try {
      await f.cache.create(f.key('a'), configMap('a'));
      // Writes elsewhere move etcd ahead of this cache, which sees no events.
      let last = 0;
      for (let i = 0; i < 5; i++) last = Number((await f.backend.create(`${f.elsewhere}/default/s${i}`, configMap(`s${i}`))).metadata.resourceVersion);
      const result = await f.cache.list(f.resource);
      assert.deepEqual(names(result.items), ['a']);
      assert.ok(Number(result.resourceVersion) >= last, `list at ${result.resourceVersion}, etcd was at ${last}`);
      assert.equal(await metricValue(f, 'apiserver_watch_cache_consistent_read_total', { success: 'true', fallback: 'false' }), 1);
      // With consistent reads off, RV="" lists come from etcd, whose list revision is exactly current.
      const off = await startCacheFixture(etcd, { consistentReads: false });
      try {
        const fromEtcd = await off.cache.list(off.resource);
        assert.equal(fromEtcd.resourceVersion, String(await off.cache.currentRevision()));
        assert.equal(await metricValue(off, 'apiserver_watch_cache_consistent_read_total'), 0);
      } finally {
        await off.close();
      }
    } finally {
      await f.close();
    }
  });

  void test('a consistent page of a quiet resource is proven key by key against etcd and served from the cache', async () => {
    const f = await startCacheFixture(etcd);
    try {
      for (const name of ['a', 'b', 'c', 'd']) await f.cache.create(f.key(name), configMap(name));
      // Writes elsewhere move etcd ahead of this cache, which sees no events.
      for (let i = 0; i < 3; i++) await f.backend.create(`${f.elsewhere}/default/p${i}`, configMap(`p${i}`));
      const trusted = await f.backend.progressRequestsTrusted();
      const before = await metricValue(f, 'apiserver_watch_cache_consistent_read_total', { success: 'true' });
      const page = await f.cache.list(f.resource, { limit: 2 });
      // What etcd itself answers for the page at the same revision: items, token, count.
      const fromEtcd = await f.backend.list(f.resource, { limit: 2 });
      assert.equal(page.resourceVersion, fromEtcd.resourceVersion);
      assert.deepEqual(page, fromEtcd);
      assert.equal(page.remainingItemCount, 2);
      // The items are the cache's own objects (whose encodings lists reuse), not fresh decodes.
      const cached = await f.cache.list(f.resource, { resourceVersion: '0' });
      assert.equal(page.items[0], cached.items[0]);
      assert.equal(page.items[1], cached.items[1]);
      const rest = await f.cache.list(f.resource, { limit: 2, continue: page.continue! });
      assert.deepEqual(names(rest.items), ['c', 'd']);
      assert.equal(rest.resourceVersion, page.resourceVersion);
      // A page no smaller than the cache is proven and served by the cache as before.
      await f.backend.create(`${f.elsewhere}/default/p3`, configMap('p3'));
      const whole = await f.cache.list(f.resource, { limit: 10 });
      assert.deepEqual(names(whole.items), ['a', 'b', 'c', 'd']);
      if (!trusted) {
        // etcd < 3.4.31: both the key-by-key page and the whole list were consistent reads the cache served.
        assert.equal(await metricValue(f, 'apiserver_watch_cache_consistent_read_total', { success: 'true' }), before + 2);
      }
    } finally {
      await f.close();
    }
  });

  void test('writes start from the cached object and reads see this replica\'s own writes at RV=0', async () => {
    const f = await startCacheFixture(etcd);
    try {
      const created = await f.cache.create(f.key('a'), configMap('a', { n: '0' }));
      assert.deepEqual(await f.cache.get(f.key('a'), { resourceVersion: '0' }), created);
      let seen: string | undefined;
      const updated = await f.cache.guaranteedUpdate(f.key('a'), (cur) => {
        seen = cur?.metadata.resourceVersion;
        return { ...cur!, data: { n: '1' } };
      });
      assert.equal(seen, created.metadata.resourceVersion);
      assert.deepEqual((await f.cache.get(f.key('a'), { resourceVersion: '0' }))?.data, { n: '1' });
      // A stale cached copy (another writer went first) is corrected by the backend's re-read.
      await f.backend.guaranteedUpdate(f.key('a'), (cur) => ({ ...cur!, data: { n: 'other' } }));
      const after = await f.cache.guaranteedUpdate(f.key('a'), (cur) => ({ ...cur!, data: { ...(cur!.data as object), extra: 'x' } }));
      assert.deepEqual(after.data, { n: 'other', extra: 'x' });
      assert.ok(Number(after.metadata.resourceVersion) > Number(updated.metadata.resourceVersion));
      const deleted = await f.cache.delete(f.key('a'));
      assert.equal(deleted.metadata.name, 'a');
      assert.equal(await f.cache.get(f.key('a'), { resourceVersion: '0', ignoreNotFound: true }), undefined);
    } finally {
      await f.close();
    }
  });

  void test('a read-only quorum get answers with the cached object while etcd holds the cached value, and decodes otherwise', async () => {
    const f = await startCacheFixture(etcd);
    try {
      const created = await f.cache.create(f.key('a'), configMap('a', { v: '1' }));
      // The cache holds the value once an RV="0" read (after this replica's own write) sees it.
      const cached = await f.cache.get(f.key('a'), { resourceVersion: '0' });
      assert.equal(cached?.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(await f.cache.get(f.key('a'), { readOnly: true }), cached, 'the cached object itself');
      const own = await f.cache.get(f.key('a'));
      assert.notEqual(own, cached, 'a get that may change its result gets its own copy');
      assert.deepEqual(own, cached);

      // The backend takes a decoded object only for the mod revision of the value it read.
      const revisions: number[] = [];
      const stand = configMap('stand-in');
      const decodedAt = (revision: number) => {
        revisions.push(revision);
        return revision === Number(created.metadata.resourceVersion) ? stand : undefined;
      };
      assert.equal(await f.backend.get(f.key('a'), { decodedAt }), stand);
      const updated = await f.backend.guaranteedUpdate(f.key('a'), (cur) => ({ ...cur!, data: { v: '2' } }));
      const read = await f.backend.get(f.key('a'), { decodedAt });
      assert.notEqual(read, stand);
      assert.deepEqual(read?.data, { v: '2' });
      assert.deepEqual(revisions, [Number(created.metadata.resourceVersion), Number(updated.metadata.resourceVersion)]);
      assert.deepEqual((await f.cache.get(f.key('a'), { readOnly: true }))?.data, { v: '2' });
    } finally {
      await f.close();
    }
  });

  void test('a read-only create returns the object the cache then holds; a create without it gets its own copy', async () => {
    const f = await startCacheFixture(etcd);
    try {
      const shared = await f.cache.create(f.key('s'), configMap('s', { v: '1' }), { readOnly: true });
      const own = await f.cache.create(f.key('o'), configMap('o', { v: '1' }));
      assert.equal(await f.cache.get(f.key('s'), { resourceVersion: '0' }), shared);
      const cachedOwn = await f.cache.get(f.key('o'), { resourceVersion: '0' });
      assert.notEqual(cachedOwn, own);
      assert.deepEqual(cachedOwn, own);
      assert.equal(shared.metadata.resourceVersion, String(Number(own.metadata.resourceVersion) - 1));
    } finally {
      await f.close();
    }
  });
});
