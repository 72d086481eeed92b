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
import { conditionalPutSize, DEFAULT_MAX_REQUEST_BYTES } from './request-size.js';

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

  void test('the limit is on the request: exactly 1.5 MiB is sent, one byte more is not', async () => {
    const prefix = `${uniquePrefix()}/configmaps/default`;
    const sized = (name: string, requestBytes: number): KubeObject => {
      const obj = cm(name);
      const pad = requestBytes - createSize(`${prefix}/${name}`, obj);
      // Grow the value until the request has the size asked for (the length prefixes grow with it).
      let bytes = pad;
      while (createSize(`${prefix}/${name}`, cm(name, bytes)) > requestBytes) bytes--;
      assert.equal(createSize(`${prefix}/${name}`, cm(name, bytes)), requestBytes);
      return cm(name, bytes);
    };
    await storage.create(`${prefix}/exact`, sized('exact', DEFAULT_MAX_REQUEST_BYTES));
    await refusal(storage.create(`${prefix}/over`, sized('over', DEFAULT_MAX_REQUEST_BYTES + 1)));
  });

  void test('an update that grows an object past the limit is refused and leaves it as it was', async () => {
    const key = `${uniquePrefix()}/configmaps/default/grows`;
    const created = await storage.create(key, cm('grows', MiB));
    const err = await refusal(storage.guaranteedUpdate(key, (current) => ({ ...current!, data: { a: 'y'.repeat(1.6 * MiB) } })));
    assert.equal(err.message, 'etcdserver: request is too large');
    assert.deepEqual(await storage.get(key), created);
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
