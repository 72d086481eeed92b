import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEtcdStorage, type EtcdStorage } from '@kapi/storage';
import { startEtcd, uniquePrefix } from '@kapi/storage/testing';
import { createWatchCache } from './watch-cache.js';
import { configMap } from './testing/cache-fixture.js';

void test("a cache's initial list does not wait for the etcd version probe, and the probe's answer still counts", async () => {
  const etcd = await startEtcd();
  const backend: EtcdStorage = createEtcdStorage({ endpoints: etcd.endpoints, requestTimeoutMs: 3000 });
  const prefix = `${uniquePrefix()}/configmaps`;
  try {
    await backend.create(`${prefix}/default/a`, configMap('a'));
    let releaseProbe!: (trusted: boolean) => void;
    const probe = new Promise<boolean>((resolve) => (releaseProbe = resolve));
    let listed = false;
    // The real backend, with a version probe that answers only when the test says so.
    const slowProbe: EtcdStorage = {
      ...backend,
      progressRequestsTrusted: () => probe,
      list: (key, options) => {
        listed = true;
        return backend.list(key, options);
      },
    };
    const cache = createWatchCache(slowProbe, { resources: [{ prefix, resource: 'configmaps' }], logger: { warn: () => undefined } });
    try {
      const deadline = Date.now() + 5000;
      while (!listed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(listed, 'the initial list started while the probe was unanswered');
      assert.equal(cache.isReady(prefix), false, 'not ready before the probe answers');
      releaseProbe(false);
      await cache.ready();
      assert.equal(cache.isReady(prefix), true);
      const list = await cache.list(prefix, { resourceVersion: '0' });
      assert.deepEqual(list.items.map((o) => o.metadata.name), ['a']);
    } finally {
      await cache.close(); // closes the backend too
    }
  } finally {
    await etcd.stop();
  }
});
