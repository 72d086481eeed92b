import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change } from '../interface.js';
import { isStorageError, type StorageError } from '../errors.js';
import { startEtcd, uniquePrefix, type TestEtcd } from '../testing/index.js';
import { createEtcdStorage, type EtcdStorage } from './etcd-storage.js';
import { openWatchStream } from './watch-stream.js';
import { progressRequestsOrdered } from './etcd-version.js';

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

/** Collects what a feed reports; `until` waits (bounded) for a condition on it. */
function recorder() {
  const changes: Change[] = [];
  const batches: number[][] = [];
  const progress: number[] = [];
  const errors: StorageError[] = [];
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  return {
    changes,
    batches,
    progress,
    errors,
    handlers: {
      onChanges(batch: readonly Change[]) {
        changes.push(...batch);
        batches.push(batch.map((c) => c.revision));
        poke();
      },
      onProgress(revision: number) {
        progress.push(revision);
        poke();
      },
      onError(err: Error) {
        errors.push(err as StorageError);
        poke();
      },
    },
    async until(what: string, condition: () => boolean, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        const left = deadline - Date.now();
        assert.ok(left > 0, `timed out waiting for ${what}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.min(left, 50));
        });
      }
    },
  };
}

void test('progressRequestsOrdered: trusted from 3.4.31, 3.5.13 and 3.6 on', () => {
  const cases: Record<string, boolean> = {
    '3.4.23': false,
    '3.4.30': false,
    '3.4.31': true,
    '3.4.40': true,
    '3.5.0': false,
    '3.5.12': false,
    '3.5.13': true,
    '3.6.0': true,
    '3.7.1': true,
    '4.0.0': true,
    '3.3.27': false,
    'v3.5.13': true,
    'garbage': false,
  };
  for (const [version, expected] of Object.entries(cases)) assert.equal(progressRequestsOrdered(version), expected, version);
});

void describe('etcd ChangeFeed (etcd with 250 ms progress notifications)', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  before(async () => {
    etcd = await startEtcd({ watchProgressNotifyIntervalMs: 250 });
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void test('feed: puts and deletes with previous states, in revision order, from afterRevision on', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const start = await storage.currentRevision();
    const a = await storage.create(`${prefix}/default/a`, cm('a', { v: '1' }));
    const a2 = await storage.guaranteedUpdate(`${prefix}/default/a`, (cur) => ({ ...cur!, data: { v: '2' } }));
    await storage.create(`${prefix}x/default/outside`, cm('outside'));
    const gone = await storage.delete(`${prefix}/default/a`);

    const rec = recorder();
    const feed = storage.feed(prefix, start, rec.handlers);
    try {
      await rec.until('three changes', () => rec.changes.length >= 3);
      const [created, updated, deleted] = rec.changes;
      assert.deepEqual(created, { type: 'put', key: `${prefix}/default/a`, object: a, revision: Number(a.metadata.resourceVersion) });
      assert.deepEqual(updated, { type: 'put', key: `${prefix}/default/a`, object: a2, prevObject: a, revision: Number(a2.metadata.resourceVersion) });
      assert.deepEqual(deleted, { type: 'delete', key: `${prefix}/default/a`, object: gone, prevObject: a2, revision: Number(gone.metadata.resourceVersion) });

      // Live changes follow, each revision after the last.
      const b = await storage.create(`${prefix}/other/b`, cm('b'));
      await rec.until('the live change', () => rec.changes.length >= 4);
      assert.deepEqual(rec.changes[3]!.object, b);
      const revisions = rec.batches.flat();
      for (let i = 1; i < revisions.length; i++) assert.ok(revisions[i]! > revisions[i - 1]!);
      assert.equal(rec.errors.length, 0);
    } finally {
      feed.close();
    }
  });

  void test('feed: periodic progress notifications reach onProgress and follow the store revision', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const rec = recorder();
    const feed = storage.feed(prefix, await storage.currentRevision(), rec.handlers);
    try {
      const elsewhere = await storage.create(`${uniquePrefix()}/configmaps/default/x`, cm('x'));
      await rec.until('progress past a write elsewhere', () => rec.progress.some((r) => r >= Number(elsewhere.metadata.resourceVersion)));
      assert.equal(rec.changes.length, 0);
      for (let i = 1; i < rec.progress.length; i++) assert.ok(rec.progress[i]! >= rec.progress[i - 1]!);
    } finally {
      feed.close();
    }
  });

  void test('feed: a compacted start revision ends the feed with one Expired error and records the compacted revision', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const start = await storage.currentRevision();
    await storage.create(`${prefix}/default/a`, cm('a'));
    await storage.create(`${prefix}/default/b`, cm('b'));
    const compactAt = await storage.currentRevision();
    await storage.client.kv.compact({ revision: compactAt });
    const rec = recorder();
    const feed = storage.feed(prefix, start, rec.handlers);
    await rec.until('the error', () => rec.errors.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(rec.errors.length, 1);
    assert.ok(isStorageError(rec.errors[0], 'Expired'), String(rec.errors[0]));
    assert.equal(rec.changes.length, 0);
    assert.ok(storage.compactedRevision() >= compactAt, `compactedRevision ${storage.compactedRevision()} < ${compactAt}`);
    feed.close();
  });

  void test('feed: close stops delivery', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const rec = recorder();
    const feed = storage.feed(prefix, await storage.currentRevision(), rec.handlers);
    await storage.create(`${prefix}/default/a`, cm('a'));
    await rec.until('the first change', () => rec.changes.length === 1);
    feed.close();
    await storage.create(`${prefix}/default/b`, cm('b'));
    const last = await storage.create(`${prefix}/default/c`, cm('c'));
    // A second feed sees the later writes, so they were sent by now; the closed one must not.
    const witness = recorder();
    const second = storage.feed(prefix, Number(last.metadata.resourceVersion) - 1, witness.handlers);
    await witness.until('the witness change', () => witness.changes.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    second.close();
    assert.equal(rec.changes.length, 1);
    assert.equal(rec.errors.length, 0);
  });

  void test('confirmUnchanged: one read proves the prefix unchanged since a revision, or not', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    await storage.create(`${prefix}/default/a`, cm('a'));
    await storage.create(`${prefix}/default/b`, cm('b'));
    const since = await storage.currentRevision();

    let result = await storage.confirmUnchanged(prefix, since, 2);
    assert.deepEqual(result, { unchanged: true, revision: since });
    assert.equal((await storage.confirmUnchanged(prefix, since, 3)).unchanged, false, 'a wrong count is not unchanged');

    // Writes outside the prefix (also under a longer sibling prefix) move the revision only.
    const outside = await storage.create(`${prefix}x/default/c`, cm('c'));
    result = await storage.confirmUnchanged(prefix, since, 2);
    assert.deepEqual(result, { unchanged: true, revision: Number(outside.metadata.resourceVersion) });

    // A create and delete in between cancel out: the state is the same.
    await storage.create(`${prefix}/default/tmp`, cm('tmp'));
    await storage.delete(`${prefix}/default/tmp`);
    assert.equal((await storage.confirmUnchanged(prefix, since, 2)).unchanged, true);

    // An update, or a delete plus a create, is a change.
    await storage.guaranteedUpdate(`${prefix}/default/a`, (cur) => ({ ...cur!, data: { v: '2' } }));
    assert.equal((await storage.confirmUnchanged(prefix, since, 2)).unchanged, false);
    const now = await storage.currentRevision();
    assert.equal((await storage.confirmUnchanged(prefix, now, 2)).unchanged, true);
    await storage.delete(`${prefix}/default/b`);
    await storage.create(`${prefix}/default/b`, cm('b'));
    assert.equal((await storage.confirmUnchanged(prefix, now, 2)).unchanged, false);
  });

  void test('watch stream: a progress request on the same stream is answered (watch id -1); periodic ones carry the watch id', async () => {
    const prefix = `${uniquePrefix()}/x/`;
    const seen: Array<{ revision: number; onDemand: boolean }> = [];
    let created = 0;
    const stream = openWatchStream(
      storage.client,
      { key: Buffer.from(prefix), rangeEnd: Buffer.from(`${prefix.slice(0, -1)}0`), startRevision: 0, prevKv: false, progressNotify: true },
      {
        onCreated: (revision) => (created = revision),
        onEvents: () => {},
        onProgress: (revision, onDemand) => seen.push({ revision, onDemand }),
        onCompacted: () => assert.fail('not compacted'),
        onError: (err) => assert.fail(err),
      },
    );
    try {
      stream.requestProgress(); // before the watch exists: sent once it does
      const deadline = Date.now() + 5000;
      while (!(seen.some((s) => s.onDemand) && seen.some((s) => !s.onDemand)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(created > 0);
      assert.ok(seen.some((s) => s.onDemand), 'no reply to the progress request');
      assert.ok(seen.some((s) => !s.onDemand), 'no periodic progress notification');
      for (const s of seen) assert.ok(s.revision >= created);
    } finally {
      stream.close();
    }
  });
});

void describe('etcd ChangeFeed on etcd 3.4.23 without periodic progress, and across an etcd restart', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void test('progressRequestsTrusted is false on etcd 3.4.23, and requestProgress then reports nothing', async () => {
    const status = await storage.client.maintenance.status();
    assert.equal(await storage.progressRequestsTrusted(), progressRequestsOrdered(status.version));
    if (progressRequestsOrdered(status.version)) return; // a newer etcd: nothing to check here
    const prefix = `${uniquePrefix()}/configmaps`;
    const rec = recorder();
    const feed = storage.feed(prefix, await storage.currentRevision(), rec.handlers);
    try {
      await storage.create(`${prefix}/default/a`, cm('a'));
      await rec.until('the change', () => rec.changes.length === 1);
      feed.requestProgress();
      feed.requestProgress();
      // An on-demand reply would come within milliseconds; wait for a later change to be delivered instead.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await storage.create(`${prefix}/default/b`, cm('b'));
      await rec.until('the second change', () => rec.changes.length === 2);
      assert.deepEqual(rec.progress, []);
    } finally {
      feed.close();
    }
  });

  void test('feed: an etcd restart ends the feed with one Unreachable error; a new feed resumes from the last revision', async () => {
    const prefix = `${uniquePrefix()}/configmaps`;
    const rec = recorder();
    const feed = storage.feed(prefix, await storage.currentRevision(), rec.handlers);
    const a = await storage.create(`${prefix}/default/a`, cm('a'));
    await rec.until('the change', () => rec.changes.length === 1);
    await etcd.kill();
    await rec.until('the error', () => rec.errors.length > 0);
    await etcd.restart();
    assert.equal(rec.errors.length, 1);
    assert.ok(isStorageError(rec.errors[0], 'Unreachable'), String(rec.errors[0]));
    feed.close();

    const resumed = recorder();
    let b;
    for (let attempt = 0; ; attempt++) {
      try {
        b = await storage.create(`${prefix}/default/b`, cm('b'));
        break;
      } catch (err) {
        if (attempt > 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const again = storage.feed(prefix, Number(a.metadata.resourceVersion), resumed.handlers);
    await resumed.until('the change after the restart', () => resumed.changes.length === 1);
    assert.deepEqual(resumed.changes[0]!.object, b);
    again.close();
  });
});
