import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { EventReader } from '../conformance/context.js';
import { WatchQueue } from '../watch-queue.js';
import { startEtcd, uniquePrefix, type TestEtcd } from '../testing/index.js';
import { createEtcdStorage, type EtcdStorage } from './etcd-storage.js';

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

/** Retries `fn` while etcd comes back after a restart. */
async function eventually<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt > 100) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

void describe('etcd Watcher: backend-specific behaviour', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints, watchQueueCapacity: 5, watchResumeTimeoutMs: 20_000 });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void test('a consumer that does not pull pauses the etcd stream; nothing is lost when it pulls again', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const start = await storage.currentRevision();
    const watch = await storage.watch(prefix, { resourceVersion: String(start) });
    assert.ok(watch instanceof WatchQueue);
    const first = 120;
    const total = 160;
    const written: number[] = [];
    const write = async (from: number, to: number) => {
      for (let i = from; i < to; i++) written.push(Number((await storage.create(`${prefix}/default/o${i}`, cm(`o${i}`))).metadata.resourceVersion));
    };
    await write(0, first);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Capacity 5: the stream was paused before all 120 arrived. The message that filled the queue
    // is handed over whole, and etcd puts as many events in one message as it has ready (more on
    // a loaded machine), so the queue may hold more than 5 — but once paused it takes no more.
    const held = watch.size;
    assert.ok(held >= 5 && held < first, `the queue holds ${held} events`);
    await write(first, total);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(watch.size, held, 'a paused stream hands over no more events');
    const reader = new EventReader(watch);
    const seen = (await reader.take(total)).map((e) => e.revision);
    assert.deepEqual(seen, written);
    reader.stop();
  });

  void test('the initial state is delivered through the bounded queue as well', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    for (let i = 0; i < 20; i++) await storage.create(`${prefix}/default/o${String(i).padStart(2, '0')}`, cm(`o${i}`));
    const watch = await storage.watch(prefix, { resourceVersion: '0' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok((watch as WatchQueue).size <= 5, `the queue holds ${(watch as WatchQueue).size} initial events`);
    const reader = new EventReader(watch);
    const names = (await reader.take(20)).map((e) => (e.object as KubeObject).metadata.name);
    assert.deepEqual(names, Array.from({ length: 20 }, (_, i) => `o${i}`)); // key order (the keys are zero-padded)
    reader.stop();
  });

  void test('sendInitialEvents=true with a resourceVersion beyond the store ends with an ERROR 504 Too large resource version', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    await storage.create(`${prefix}/default/a`, cm('a'));
    const current = await storage.currentRevision();
    const reader = new EventReader(
      await storage.watch(prefix, { resourceVersion: String(current + 100), sendInitialEvents: true, allowBookmarks: true }),
    );
    const event = await reader.expectEvent();
    assert.equal(event.type, 'ERROR');
    const status = event.object as unknown as Record<string, unknown>;
    assert.equal(status.code, 504);
    assert.equal(status.reason, 'Timeout');
    assert.match(String(status.message), new RegExp(`^Timeout: Too large resource version: ${current + 100}, current: \\d+$`));
    assert.deepEqual((status.details as { causes: unknown }).causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
    await reader.expectDone();
  });

  void test('a value that does not decode ends the watch with an ERROR 500', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const reader = new EventReader(await storage.watch(prefix, { resourceVersion: String(await storage.currentRevision()) }));
    await storage.client.put(`${prefix}/default/bad`).value('{not json');
    const event = await reader.expectEvent();
    assert.equal(event.type, 'ERROR');
    const status = event.object as unknown as Record<string, unknown>;
    assert.equal(status.code, 500);
    assert.equal(status.reason, 'InternalError');
    await reader.expectDone();
  });

  void test('an etcd restart does not end a watch: it resumes after the last revision, without gaps or repeats', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const reader = new EventReader(await storage.watch(prefix, { resourceVersion: String(await storage.currentRevision()) }));
    const a = await storage.create(`${prefix}/default/a`, cm('a'));
    assert.equal((await reader.expectEvent()).revision, Number(a.metadata.resourceVersion));
    const b = await storage.create(`${prefix}/default/b`, cm('b'));
    await etcd.kill();
    await etcd.restart();
    const c = await eventually(() => storage.create(`${prefix}/default/c`, cm('c')));
    const events = await reader.take(2, 15_000);
    assert.deepEqual(
      events.map((e) => [e.type, e.revision]),
      [
        ['ADDED', Number(b.metadata.resourceVersion)],
        ['ADDED', Number(c.metadata.resourceVersion)],
      ],
    );
    reader.stop();
  });

  void test('responses over gRPC\'s default 4 MiB limit: a 6 MB list, and a watch catching up on 6 MB of events', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const start = await storage.currentRevision();
    const big = 'x'.repeat(1_000_000);
    const written: number[] = [];
    for (let i = 0; i < 6; i++) written.push(Number((await storage.create(`${prefix}/default/o${i}`, cm(`o${i}`, { big }))).metadata.resourceVersion));
    assert.equal((await storage.list(prefix)).items.length, 6);
    const reader = new EventReader(await storage.watch(prefix, { resourceVersion: String(start) }));
    assert.deepEqual((await reader.take(6)).map((e) => `${e.type}@${e.revision}`), written.map((r) => `ADDED@${r}`));
    reader.stop();
  });

  void test('storage.close() ends the watches it started', async () => {
    const other = createEtcdStorage({ endpoints: etcd.endpoints });
    const prefix = `${uniquePrefix()}/configmaps`;
    const reader = new EventReader(await other.watch(prefix, { resourceVersion: String(await other.currentRevision()) }));
    const waiting = reader.next(5000);
    await other.close();
    assert.equal(await waiting, 'done');
  });
});

void test('etcd Watcher: an etcd that stays down ends the watch with an ERROR 500 after watchResumeTimeoutMs', async () => {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ endpoints: etcd.endpoints, watchResumeTimeoutMs: 500 });
  try {
    const reader = new EventReader(await storage.watch(`${uniquePrefix()}/configmaps`, { resourceVersion: '0' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await etcd.kill();
    const event = await reader.expectEvent(10_000);
    assert.equal(event.type, 'ERROR');
    const status = event.object as unknown as Record<string, unknown>;
    assert.equal(status.code, 500);
    assert.match(String(status.message), /^Internal error occurred: etcd is unreachable/);
    await reader.expectDone();
  } finally {
    await storage.close();
    await etcd.stop();
  }
});
