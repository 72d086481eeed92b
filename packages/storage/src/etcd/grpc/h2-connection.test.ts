import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, uniquePrefix, type TestEtcd } from '../../testing/index.js';
import { toStorageError } from '../errors.js';
import { failure } from './beside-etcd3.js';
import { createEtcdUnaryClient, type EtcdUnaryClient } from './unary-client.js';

// What the frames transport (the unary client's default, which unary-client.test.ts runs on)
// must get right beyond that suite: flow control both ways, and a connection that
// stays in step after calls it gave up on.
void describe('the frames transport (h2-connection.ts) against a real etcd', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let client: EtcdUnaryClient;
  before(async () => {
    etcd = await startEtcd();
    client = createEtcdUnaryClient(etcd.endpoints, { transport: 'frames' });
  });
  after(async () => {
    client.close();
    await etcd.stop();
  });

  void test('a range of 24 MiB (past both receive windows) and concurrent 1.4 MiB writes (past the server window) go through whole', async () => {
    const prefix = uniquePrefix();
    const value = (i: number) => Buffer.alloc(1024 * 1024, String.fromCharCode(97 + i));
    await Promise.all(Array.from({ length: 24 }, (_, i) => client.put({ key: Buffer.from(`${prefix}/big/${String(i).padStart(2, '0')}`), value: value(i) }, 30_000)));
    for (let round = 0; round < 2; round++) {
      const res = await client.range({ key: Buffer.from(`${prefix}/big/`), range_end: Buffer.from(`${prefix}/big0`) }, 30_000);
      assert.equal(res.kvs.length, 24);
      res.kvs.forEach((kv, i) => assert.ok(kv.value.equals(value(i)), `value ${i}`));
    }
    const large = Buffer.alloc(1_400_000, 'x');
    const writes = await Promise.all(Array.from({ length: 4 }, (_, i) => client.put({ key: Buffer.from(`${prefix}/large/${i}`), value: large, prev_kv: true }, 30_000)));
    assert.equal(new Set(writes.map((w) => w.header.revision)).size, 4);
    const read = await client.range({ key: Buffer.from(`${prefix}/large/3`) }, 30_000);
    assert.ok(read.kvs[0]!.value.equals(large));
  });

  void test('calls past their deadline are cancelled and the connection keeps serving the others', async () => {
    const prefix = uniquePrefix();
    const value = Buffer.alloc(512 * 1024, 'v');
    for (let i = 0; i < 8; i++) await client.put({ key: Buffer.from(`${prefix}/${i}`), value }, 30_000);
    const whole = { key: Buffer.from(`${prefix}/`), range_end: Buffer.from(`${prefix}0`) };
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => client.range(whole, i % 2 === 0 ? 1 : 30_000)));
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.ok(rejected.length > 0, 'some 1 ms calls time out');
    for (const r of rejected) {
      assert.match((r.reason as Error).message, /^4 DEADLINE_EXCEEDED: Deadline exceeded$/);
      assert.equal(toStorageError(r.reason, 'k').code, 'Unreachable');
    }
    for (const o of outcomes) if (o.status === 'fulfilled') assert.equal(o.value.kvs.length, 8);
    // The same connection (same HPACK state) answers what follows, errors included.
    const res = await client.range(whole, 30_000);
    assert.equal(res.kvs.length, 8);
    const future = await failure(client.range({ key: whole.key, revision: Number(res.header.revision) + 1000 }, 30_000));
    assert.match(future.message, /mvcc: required revision is a future revision/);
  });

  void test('many concurrent small calls each get their own answer', async () => {
    const prefix = uniquePrefix();
    const n = 600;
    await Promise.all(Array.from({ length: n }, (_, i) => client.put({ key: Buffer.from(`${prefix}/${i}`), value: Buffer.from(`value-${i}`) }, 30_000)));
    const reads = await Promise.all(Array.from({ length: n }, (_, i) => client.range({ key: Buffer.from(`${prefix}/${i}`) }, 30_000)));
    reads.forEach((res, i) => assert.equal(res.kvs[0]!.value.toString(), `value-${i}`));
  });
});
