import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, uniquePrefix } from '../testing/index.js';
import { isStorageError } from '../errors.js';
import { createEtcdStorage } from './etcd-storage.js';

async function timed(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const start = Date.now();
  try {
    await promise;
    return { error: undefined, ms: Date.now() - start };
  } catch (error) {
    return { error, ms: Date.now() - start };
  }
}

void test('operations against a stopped etcd reject with Unreachable in bounded time, and recover after restart', async () => {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ endpoints: etcd.endpoints, requestTimeoutMs: 2000 });
  const prefix = uniquePrefix();
  const key = `${prefix}/configmaps/default/a`;
  try {
    await storage.create(key, { metadata: { name: 'a', namespace: 'default' } });
    await etcd.kill('SIGKILL');
    const calls: Array<() => Promise<unknown>> = [
      () => storage.get(key),
      () => storage.list(`${prefix}/configmaps`),
      () => storage.create(`${prefix}/configmaps/default/b`, { metadata: { name: 'b' } }),
      () => storage.guaranteedUpdate(key, (cur) => ({ ...cur!, data: { x: '1' } })),
      () => storage.delete(key),
      () => storage.currentRevision(),
    ];
    for (const call of calls) {
      const { error, ms } = await timed(call());
      assert.ok(isStorageError(error, 'Unreachable'), `expected Unreachable, got ${String(error)}`);
      assert.ok(ms < 5000, `took ${ms} ms`);
    }

    await etcd.restart();
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const got = await storage.get(key);
        assert.equal(got?.metadata.name, 'a');
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await storage.close();
    await etcd.stop();
  }
});

void test('a hung etcd (SIGSTOP) makes calls fail with Unreachable after the request timeout', async () => {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ endpoints: etcd.endpoints, requestTimeoutMs: 1000 });
  try {
    await storage.currentRevision();
    etcd.pause();
    const { error, ms } = await timed(storage.get(`${uniquePrefix()}/x`));
    assert.ok(isStorageError(error, 'Unreachable'), `expected Unreachable, got ${String(error)}`);
    // Bounded by the request timeout (no lower bound: timers under load are not exact).
    assert.ok(ms < 4000, `took ${ms} ms`);
  } finally {
    etcd.resume();
    await storage.close();
    await etcd.stop();
  }
});
