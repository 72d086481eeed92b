/**
 * Writes larger than etcd takes, against real etcd: refused before sending with
 * kube-apiserver's texts, and — when etcd itself refuses them — without harm to the client's
 * connections, breakers or change feeds.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Change } from '../interface.js';
import { isStorageError, type StorageError } from '../errors.js';
import { startEtcd, startEtcdCluster, uniquePrefix, type TestEtcd, type TestEtcdCluster } from '../testing/index.js';
import { createEtcdStorage, type EtcdStorage } from './etcd-storage.js';
import { jsonCodec } from './codec.js';
import { conditionalPutEntrySize, conditionalPutSize, DEFAULT_MAX_REQUEST_BYTES, requestIdBytes } from './request-size.js';

const MiB = 1024 * 1024;
const cm = (name: string, bytes = 0): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { a: 'x'.repeat(bytes) },
});

/** The size of the txn that creates `obj` at `key`, as etcd measures it. */
const createSize = (key: string, obj: KubeObject) => conditionalPutSize(Buffer.byteLength(key), 0, jsonCodec.encode(obj).length);

async function refusal(promise: Promise<unknown>): Promise<StorageError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(isStorageError(err, 'RequestTooLarge'), `expected RequestTooLarge, got ${String(err)}`);
    return err;
  }
  assert.fail('the write was accepted');
}

/** Each member's gRPC channels as the client holds them now (white box: the etcd3 pool's hosts). */
function channels(storage: EtcdStorage): unknown[] {
  const pool = (storage.client as unknown as { pool: { hosts: Array<{ getServiceClient(name: string): unknown }> } }).pool;
  return pool.hosts.flatMap((host) => ['KV', 'Watch'].map((service) => host.getServiceClient(service)));
}

/** A change feed from now on, collecting what it delivers and whether it failed. */
async function openFeed(storage: EtcdStorage, prefix: string): Promise<{ changes: Change[]; errors: Error[]; close(): void }> {
  const changes: Change[] = [];
  const errors: Error[] = [];
  const handle = storage.feed(prefix, await storage.currentRevision(), {
    onChanges: (batch) => changes.push(...batch),
    onProgress: () => {},
    onError: (err) => errors.push(err),
  });
  return { changes, errors, close: () => handle.close() };
}

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

void describe('writes over --etcd-max-request-bytes are refused before they are sent', () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  before(async () => {
    // etcd would take 8 MiB: whatever is refused here, kapi refused.
    etcd = await startEtcd({ extraArgs: ['--max-request-bytes=8388608'] });
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void test('up to 1.5 MiB + 512 KiB: etcd\'s "request is too large"; beyond: the client\'s send limit, with the size', async () => {
    const prefix = `${uniquePrefix()}/configmaps/default`;
    assert.equal((await refusal(storage.create(`${prefix}/a`, cm('a', 1.6 * MiB)))).message, 'etcdserver: request is too large');
    const big = cm('b', 2.5 * MiB);
    assert.equal(
      (await refusal(storage.create(`${prefix}/b`, big))).message,
      `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${createSize(`${prefix}/b`, big)} vs. 2097152)`,
    );
    for (const name of ['a', 'b']) assert.equal(await storage.get(`${prefix}/${name}`, { ignoreNotFound: true }), undefined);
  });

  void test('an update that grows an object past the limit is refused and leaves it as it was', async () => {
    const key = `${uniquePrefix()}/configmaps/default/grows`;
    const created = await storage.create(key, cm('grows', MiB));
    const err = await refusal(storage.guaranteedUpdate(key, (current) => ({ ...current!, data: { a: 'y'.repeat(1.6 * MiB) } })));
    assert.equal(err.message, 'etcdserver: request is too large');
    assert.deepEqual(await storage.get(key), created);
  });
});

/** etcd's count of Txn calls its gRPC server has started (from its /metrics). */
async function txnCallsStarted(etcd: TestEtcd): Promise<number> {
  const text = await (await fetch(`${etcd.endpoints[0]}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('grpc_server_started_total{') && l.includes('grpc_method="Txn"'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

void describe('the limit is etcd\'s raft entry, to the byte, against an etcd at its default limit', () => {
  let etcd: TestEtcd;
  // Checks before sending, as kapi does by default; and one told etcd takes 8 MiB, so that etcd decides.
  let checked: EtcdStorage;
  let unchecked: EtcdStorage;
  let idBytes: number;
  before(async () => {
    etcd = await startEtcd();
    checked = createEtcdStorage({ endpoints: etcd.endpoints });
    unchecked = createEtcdStorage({ endpoints: etcd.endpoints, maxRequestBytes: 8 * MiB });
    idBytes = requestIdBytes((await checked.client.maintenance.status()).header.member_id);
  });
  after(async () => {
    await checked.close();
    await unchecked.close();
    await etcd.stop();
  });

  /** A ConfigMap whose create at `key` makes a raft entry of exactly `entryBytes`. */
  const sized = (key: string, entryBytes: number): KubeObject => {
    const name = key.slice(key.lastIndexOf('/') + 1);
    const entry = (bytes: number) => conditionalPutEntrySize(Buffer.byteLength(key), 0, jsonCodec.encode(cm(name, bytes)).length, idBytes);
    let bytes = entryBytes - entry(0);
    while (entry(bytes) > entryBytes) bytes--;
    assert.equal(entry(bytes), entryBytes);
    return cm(name, bytes);
  };

  void test('one byte under and exactly at the limit are sent and stored; one byte over is refused by kapi without a call, as etcd would refuse it', async () => {
    const prefix = `${uniquePrefix()}/configmaps/default`;
    // Any answer teaches the storage the member's request ID size.
    await checked.create(`${prefix}/warm`, cm('warm'));
    for (const [name, bytes] of [['under', DEFAULT_MAX_REQUEST_BYTES - 1], ['exact', DEFAULT_MAX_REQUEST_BYTES]] as const) {
      const created = await checked.create(`${prefix}/${name}`, sized(`${prefix}/${name}`, bytes));
      assert.deepEqual(await checked.get(`${prefix}/${name}`), created);
    }
    const over = sized(`${prefix}/over`, DEFAULT_MAX_REQUEST_BYTES + 1);
    // The computed entry is etcd's: this one is too large for etcd itself...
    assert.equal((await refusal(unchecked.create(`${prefix}/over`, over))).message, 'etcdserver: request is too large');
    // ...and kapi refuses it with the same text, never calling etcd.
    const calls = await txnCallsStarted(etcd);
    assert.ok(calls > 0, 'etcd counts Txn calls');
    assert.equal((await refusal(checked.create(`${prefix}/over`, over))).message, 'etcdserver: request is too large');
    assert.equal(await txnCallsStarted(etcd), calls, 'the refused write reached etcd');
    assert.equal(await checked.get(`${prefix}/over`, { ignoreNotFound: true }), undefined);
  });

  void test('a request ID takes the bytes its member ID\'s low 16 bits put above 48 bits of time and counter', () => {
    assert.ok(idBytes <= 10);
    assert.equal(requestIdBytes('0'), 7);
    assert.equal(requestIdBytes(String(0xffffn)), 10);
    assert.equal(requestIdBytes(String((1n << 62n) | 0x00ffn)), 8);
    assert.equal(requestIdBytes(String(0x0100n)), 9);
    assert.equal(requestIdBytes(String(0x7fffn)), 9);
    assert.equal(requestIdBytes(String(0x8000n)), 10);
  });
});

void describe('etcd refusing a request for its size is an answer to that request only', () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  before(async () => {
    etcd = await startEtcd();
    // kapi told that etcd takes more than it does (etcd keeps its default 1.5 MiB): etcd refuses.
    storage = createEtcdStorage({ endpoints: etcd.endpoints, maxRequestBytes: 8 * MiB });
  });
  after(async () => {
    await storage.close();
    await etcd.stop();
  });

  void test('the refusals get kube-apiserver\'s texts; the size etcd reports is the one kapi computes', async () => {
    const prefix = `${uniquePrefix()}/configmaps/default`;
    assert.equal((await refusal(storage.create(`${prefix}/a`, cm('a', 1.6 * MiB)))).message, 'etcdserver: request is too large');
    const big = cm('b', 2.5 * MiB);
    assert.equal(
      (await refusal(storage.create(`${prefix}/b`, big))).message,
      `rpc error: code = ResourceExhausted desc = grpc: received message larger than max (${createSize(`${prefix}/b`, big)} vs. 2097152)`,
    );
  });

  void test('ten concurrent refusals leave the connection and a change feed opened before as they were', async () => {
    const prefix = `${uniquePrefix()}/configmaps/default`;
    const feed = await openFeed(storage, prefix);
    const before = channels(storage);
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => storage.create(`${prefix}/big${i}`, cm(`big${i}`, (i % 2 === 0 ? 2.5 : 1.6) * MiB))));
    assert.deepEqual(results.map((r) => r.status === 'rejected' && isStorageError(r.reason, 'RequestTooLarge')), Array(10).fill(true));
    assert.deepEqual(channels(storage), before, 'the client rebuilt its channels');
    const next = await storage.create(`${prefix}/next`, cm('next'));
    await until('the feed to deliver the next write', () => feed.changes.length > 0);
    assert.deepEqual(feed.changes.map((c) => c.revision), [Number(next.metadata.resourceVersion)]);
    assert.deepEqual(feed.errors, []);
    feed.close();
  });
});

void describe('etcd refusing requests for their size: members are not set aside', () => {
  let cluster: TestEtcdCluster;
  let storage: EtcdStorage;
  before(async () => {
    cluster = await startEtcdCluster();
    storage = createEtcdStorage({ endpoints: cluster.endpoints, maxRequestBytes: 8 * MiB });
  });
  after(async () => {
    await storage.close();
    await cluster.stop();
  });

  void test('after refusals on every member, the next calls are served at once, on the same channels', async () => {
    const prefix = `${uniquePrefix()}/configmaps/default`;
    await storage.create(`${prefix}/warm`, cm('warm'));
    const before = channels(storage);
    // Six in a row: a member whose breaker opened would pass the next ones to the others,
    // so three are enough to set every member aside for the breakers' second.
    for (let i = 0; i < 6; i++) await refusal(storage.create(`${prefix}/big${i}`, cm(`big${i}`, 2.5 * MiB)));
    const start = Date.now();
    for (let i = 0; i < 10; i++) await storage.get(`${prefix}/warm`);
    const elapsed = Date.now() - start;
    assert.ok(elapsed < 900, `10 reads took ${elapsed} ms (members set aside wait for their breakers)`);
    assert.deepEqual(channels(storage), before, 'the client rebuilt channels');
  });
});
