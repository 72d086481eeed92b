import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Status } from '@kapi/machinery';
import { StorageError, createEtcdStorage } from '@kapi/storage';
import { startEtcd } from '@kapi/storage/testing';
import { Reader, configMap, names, sleep, startCacheFixture } from './testing/cache-fixture.js';

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return err instanceof StorageError ? err.code : String(err);
  }
}

void test('when etcd dies the cache ends its watchers and answers 429; after a restart it re-lists and serves again', async () => {
  const etcd = await startEtcd();
  const f = await startCacheFixture(etcd, { initialReadyWaitMs: 0, relistIntervalMs: 200 });
  try {
    const a = await f.cache.create(f.key('a'), configMap('a'));
    const reader = new Reader(await f.cache.watch(f.resource, { resourceVersion: a.metadata.resourceVersion! }));
    const b = await f.cache.create(f.key('b'), configMap('b'));
    assert.equal((await reader.event()).revision, Number(b.metadata.resourceVersion));

    await etcd.kill();
    // The feed breaks: the watcher's stream ends (the client re-watches from its last revision).
    assert.equal(await reader.next(5000), 'done');
    assert.equal(await errorCode(f.cache.list(f.resource)), 'TooManyRequests');
    assert.equal(await errorCode(f.cache.list(f.resource, { resourceVersion: '0' })), 'TooManyRequests');
    assert.equal(await errorCode(f.cache.watch(f.resource, { resourceVersion: '0' })), 'TooManyRequests');
    const tooMany = await f.cache.list(f.resource, { resourceVersion: '0', predicate: { empty: false, matches: () => true }, limit: 5 }).catch((e: unknown) => e);
    assert.ok(tooMany instanceof StorageError && tooMany.code === 'TooManyRequests' && tooMany.message === 'storage is (re)initializing');
    // A list with a limit and no selector goes to etcd, which is down.
    assert.equal(await errorCode(f.cache.list(f.resource, { limit: 5 })), 'Unreachable');

    await etcd.restart();
    // Re-listed first (at b's revision: nothing was written since), so that c arrives as an
    // event a watch from b can be given; a re-list after c would rightly answer that watch 410.
    await f.cache.ready();
    const c = await f.backend.create(f.key('c'), configMap('c'));
    const deadline = Date.now() + 10_000;
    let listed: string[] = [];
    while (Date.now() < deadline) {
      const result = await f.cache.list(f.resource, { resourceVersion: '0' }).catch(() => undefined);
      if (result) {
        listed = names(result.items);
        if (listed.length === 3) break;
      }
      await sleep(100);
    }
    assert.deepEqual(listed, ['a', 'b', 'c']);
    // Resuming from the last revision the watcher saw gives exactly what it missed.
    const resumed = new Reader(await f.cache.watch(f.resource, { resourceVersion: b.metadata.resourceVersion! }));
    const [missed] = await resumed.changes(1);
    assert.equal(missed!.revision, Number(c.metadata.resourceVersion));
    resumed.watch.stop();
    const initializations = (await f.metrics.getSingleMetric('apiserver_watch_cache_initializations_total')!.get()).values[0]!.value;
    assert.ok(initializations >= 2);
  } finally {
    await f.close();
    await etcd.stop();
  }
});

void test('a replica restarted after changes its client never saw (a delete among them) answers that client\'s watch 410, and its lists never hold the deleted object', async () => {
  // The client-go Reflector of the fault suite (issue 25) was last told revision `seen` by a
  // replica that then went away with every other one; its watch came back to a new replica
  // whose cache listed after a delete the client never got. Resuming there must fail with
  // 410 Expired (the client lists again), never stream from the new cache's start.
  const etcd = await startEtcd();
  const old = await startCacheFixture(etcd);
  let restarted: Awaited<ReturnType<typeof startCacheFixture>> | undefined;
  try {
    const gone = await old.cache.create(old.key('gone'), configMap('gone'));
    const kept = await old.cache.create(old.key('kept'), configMap('kept'));
    const seen = kept.metadata.resourceVersion!;
    const reader = new Reader(await old.cache.watch(old.resource, { resourceVersion: gone.metadata.resourceVersion! }));
    assert.equal((await reader.event()).revision, Number(seen));
    await old.close(); // the replica goes away; its watch ends
    assert.equal(await reader.next(5000), 'done');

    const writer = createEtcdStorage({ endpoints: etcd.endpoints });
    await writer.delete(old.key('gone'));
    await writer.create(old.key('later'), configMap('later'));
    await writer.close();
    restarted = await startCacheFixture(etcd, {}, { root: old.root });
    const listedAt = Number((await restarted.cache.list(restarted.resource, { resourceVersion: '0' })).resourceVersion);
    assert.ok(listedAt > Number(seen));

    const resumed = new Reader(await restarted.cache.watch(restarted.resource, { resourceVersion: seen }));
    const error = await resumed.event();
    assert.equal(error.type, 'ERROR');
    assert.equal((error.object as Status).code, 410);
    assert.equal((error.object as Status).message, `too old resource version: ${seen} (${listedAt})`);
    assert.equal(await resumed.next(), 'done');

    // The client's next list, NotOlderThan its revision (client-go's relist) or consistent: without the deleted object.
    assert.deepEqual(names((await restarted.cache.list(restarted.resource, { resourceVersion: seen })).items), ['kept', 'later']);
    assert.deepEqual(names((await restarted.cache.list(restarted.resource)).items), ['kept', 'later']);
  } finally {
    await restarted?.close();
    await old.close();
    await etcd.stop();
  }
});
