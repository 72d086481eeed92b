import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StorageError } from '@kapi/storage';
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
