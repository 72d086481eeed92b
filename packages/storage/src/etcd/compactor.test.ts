import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Etcd3 } from 'etcd3';
import { isStorageError } from '../errors.js';
import { listTooOldMessage } from '../messages.js';
import { startEtcd, uniquePrefix, type TestEtcd } from '../testing/index.js';
import { createEtcdClient } from './client.js';
import { createEtcdStorage, type EtcdStorage } from './etcd-storage.js';
import { compactRevKey, startCompactor, type CompactionRound, type Compactor } from './compactor.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: {} });

async function readCompactRevKey(client: Etcd3): Promise<{ value: string; version: number } | undefined> {
  const res = await client.kv.range({ key: Buffer.from(compactRevKey) });
  const kv = res.kvs[0];
  return kv ? { value: kv.value.toString(), version: Number(kv.version) } : undefined;
}

async function until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether etcd still has `revision` (a read at it succeeds). */
async function retained(client: Etcd3, revision: number): Promise<boolean> {
  try {
    await client.kv.range({ key: Buffer.from('/'), revision });
    return true;
  } catch (err) {
    if (String((err as Error).message).includes('compacted')) return false;
    throw err;
  }
}

void describe('compactor (kube compact_rev_key protocol)', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  // Each test uses a fresh etcd key space for compact_rev_key, so these run on their own etcd.
  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void test('two replicas: one compacts per round, the other takes over when the winner stops, both learn the revision', async () => {
    const clientB = createEtcdClient(etcd.endpoints);
    const a = startCompactor({ client: storage.client, intervalMs: 0 });
    const b = startCompactor({ client: clientB, intervalMs: 0 });
    const prefix = `${uniquePrefix()}/configmaps`;
    try {
      // Round 1: A claims the key (version 0 → 1) and compacts nothing; B loses and adopts version 1.
      const r1 = await storage.currentRevision();
      assert.deepEqual(await a.runOnce(), { outcome: 'claimed' });
      assert.deepEqual(await readCompactRevKey(storage.client), { value: '0', version: 1 });
      assert.deepEqual(await b.runOnce(), { outcome: 'lost', revision: 0 });

      const old = await storage.create(`${prefix}/default/a`, cm('a'));
      await storage.create(`${prefix}/default/b`, cm('b'));

      // Round 2: A wins again and compacts at the revision it saw in round 1 (the txn's own revision, r1 + 1).
      const r2 = await a.runOnce();
      assert.equal(r2.outcome, 'compacted');
      const firstCompaction = (r2 as { revision: number }).revision;
      assert.equal(firstCompaction, r1 + 1);
      assert.deepEqual(await readCompactRevKey(storage.client), { value: String(firstCompaction), version: 2 });
      assert.equal(a.compactedRevision(), firstCompaction);
      assert.equal(await retained(storage.client, firstCompaction - 1), false);
      assert.equal(await retained(storage.client, firstCompaction), true);

      // B learns A's compaction from compact_rev_key without winning anything.
      await until('B to learn the compaction', () => b.compactedRevision() === firstCompaction);
      // B's round: version moved on (2 ≠ 1), so it loses, adopts version 2 and remembers the current revision.
      assert.deepEqual(await b.runOnce(), { outcome: 'lost', revision: firstCompaction });

      // A stops (the replica died); B's next round wins and compacts what it remembered.
      await a.stop();
      const beforeB = await storage.currentRevision();
      await storage.create(`${prefix}/default/c`, cm('c'));
      const r3 = await b.runOnce();
      assert.equal(r3.outcome, 'compacted');
      const secondCompaction = (r3 as { revision: number }).revision;
      assert.ok(secondCompaction > firstCompaction && secondCompaction <= beforeB);
      assert.deepEqual(await readCompactRevKey(storage.client), { value: String(secondCompaction), version: 3 });
      assert.equal(b.compactedRevision(), secondCompaction);

      // A list at a compacted revision is Expired with kube's message.
      await assert.rejects(
        storage.list(prefix, { resourceVersion: old.metadata.resourceVersion!, resourceVersionMatch: 'Exact' }),
        (err) => isStorageError(err, 'Expired') && err.message === listTooOldMessage,
      );
    } finally {
      await a.stop();
      await b.stop();
      clientB.close();
    }
  });

  void test('on a timer: replicas never compact twice for one version of compact_rev_key, and the storage reports the compacted revision', async () => {
    const clientB = createEtcdClient(etcd.endpoints);
    const rounds: Array<{ who: string; round: CompactionRound }> = [];
    const start = await readCompactRevKey(storage.client);
    const compactors: Compactor[] = [
      startCompactor({ client: storage.client, intervalMs: 150, onRound: (round) => rounds.push({ who: 'a', round }) }),
      startCompactor({ client: clientB, intervalMs: 150, onRound: (round) => rounds.push({ who: 'b', round }) }),
    ];
    const withCompaction = createEtcdStorage({ endpoints: [], client: storage.client, compaction: compactors[1]! });
    const prefix = `${uniquePrefix()}/configmaps`;
    try {
      let i = 0;
      await until(
        'two compactions',
        () => {
          void storage.create(`${prefix}/default/o${i++}`, cm('x')).catch(() => {});
          return rounds.filter((r) => r.round.outcome === 'compacted').length >= 2;
        },
        20_000,
      );
      for (const c of compactors) await c.stop();

      const compacted = rounds.filter((r) => r.round.outcome === 'compacted').map((r) => (r.round as { revision: number }).revision);
      const wins = rounds.filter((r) => r.round.outcome === 'compacted' || r.round.outcome === 'claimed').length;
      assert.equal(rounds.filter((r) => r.round.outcome === 'failed').length, 0);
      // Every win moved the key's version on by exactly one: no two compactors won the same round.
      const end = await readCompactRevKey(storage.client);
      assert.equal(end!.version - (start?.version ?? 0), wins);
      for (let k = 1; k < compacted.length; k++) assert.ok(compacted[k]! > compacted[k - 1]!, `compactions out of order: ${compacted.join(',')}`);
      const newest = compacted.at(-1)!;
      await until('both to learn the newest compaction', () => compactors.every((c) => c.compactedRevision() === newest));
      assert.equal(withCompaction.compactedRevision(), newest);
    } finally {
      for (const c of compactors) await c.stop();
      await withCompaction.close();
      clientB.close();
    }
  });

  void test('intervalMs 0 never compacts on its own, but still learns compactions from compact_rev_key', async () => {
    const passive = startCompactor({ client: storage.client, intervalMs: 0 });
    const other = createEtcdClient(etcd.endpoints);
    try {
      const before = await readCompactRevKey(storage.client);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(await readCompactRevKey(storage.client), before);
      // Another replica (here: a raw write in the Go apiserver's format) compacts.
      const revision = await storage.currentRevision();
      await other.put(compactRevKey).value(String(revision));
      await until('the passive compactor to learn it', () => passive.compactedRevision() === revision);
    } finally {
      await passive.stop();
      other.close();
    }
  });

  void test('createEtcdStorage({ compactionIntervalMs }) runs a compactor that close() stops', async () => {
    const compacting = createEtcdStorage({ endpoints: etcd.endpoints, compactionIntervalMs: 100 });
    const prefix = `${uniquePrefix()}/configmaps`;
    const old = await compacting.create(`${prefix}/default/a`, cm('a'));
    await until('a compaction past the write', () => compacting.compactedRevision() > Number(old.metadata.resourceVersion));
    // compactedRevision() learns a round from compact_rev_key, written just before etcd's own
    // compaction: wait until etcd has compacted too.
    const deadline = Date.now() + 15_000;
    while (await retained(storage.client, Number(old.metadata.resourceVersion))) {
      assert.ok(Date.now() < deadline, 'timed out waiting for etcd to compact past the write');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await assert.rejects(
      compacting.list(prefix, { resourceVersion: old.metadata.resourceVersion!, resourceVersionMatch: 'Exact' }),
      (err) => isStorageError(err, 'Expired'),
    );
    await compacting.close();
    const after = await readCompactRevKey(storage.client);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await readCompactRevKey(storage.client), after, 'no more rounds after close');
  });
});
