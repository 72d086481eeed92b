import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { IWatchResponse } from 'etcd3';
import { startEtcd, uniquePrefix, type TestEtcd } from '../../testing/index.js';
import { toStorageError } from '../errors.js';
import { failure } from './beside-etcd3.js';
import { createEtcdUnaryClient, type EtcdUnaryClient } from './unary-client.js';
import type { FramedWatchCall, WatchCall } from './watch-call.js';

/** A Watch call on `prefix` (from revision `from`), its responses' events, and a way to wait for some. */
function watchPrefix(client: EtcdUnaryClient, prefix: string, from = 0) {
  const { call } = client.watch();
  const values: Buffer[] = [];
  let created!: () => void;
  const isCreated = new Promise<void>((resolve) => (created = resolve));
  let failure: Error | undefined;
  call.on('error', (err: Error) => (failure = err));
  call.on('data', (res: IWatchResponse) => {
    if (res.created) created();
    for (const e of res.events) values.push(e.kv.value);
  });
  call.write({ create_request: { key: Buffer.from(`${prefix}/`), range_end: Buffer.from(`${prefix}0`), start_revision: from } });
  const until = async (n: number, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (values.length < n) {
      if (failure !== undefined) throw failure;
      if (Date.now() > deadline) assert.fail(`${values.length} of ${n} events within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { call: call as WatchCall as FramedWatchCall, values, isCreated, until };
}

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

  void test('watches share the connection: a paused one holds at most its window (16 MiB) while another gets a 24 MiB burst and unary calls go on; resumed, it gets everything in order', async () => {
    const prefix = uniquePrefix();
    const slow = watchPrefix(client, prefix);
    const fast = watchPrefix(client, prefix);
    await Promise.all([slow.isCreated, fast.isCreated]);
    slow.call.pause();
    const value = (i: number) => Buffer.alloc(1024 * 1024, String.fromCharCode(97 + i));
    for (let i = 0; i < 24; i++) await client.put({ key: Buffer.from(`${prefix}/${String(i).padStart(2, '0')}`), value: value(i) }, 30_000);
    await fast.until(24);
    fast.values.forEach((v, i) => assert.ok(v.equals(value(i)), `fast: value ${i}`));
    // The paused call's messages are held, not emitted, and its window bounds them.
    assert.equal(slow.values.length, 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(slow.call.bufferedBytes > 8 * 1024 * 1024, `held ${slow.call.bufferedBytes} bytes`);
    assert.ok(slow.call.bufferedBytes <= 16 * 1024 * 1024, `held ${slow.call.bufferedBytes} bytes, past the stream's window`);
    const read = await client.range({ key: Buffer.from(`${prefix}/23`) }, 5_000);
    assert.ok(read.kvs[0]!.value.equals(value(23)));
    slow.call.resume();
    await slow.until(24);
    slow.values.forEach((v, i) => assert.ok(v.equals(value(i)), `slow: value ${i}`));
    for (const w of [slow, fast]) {
      w.call.end();
      w.call.cancel();
    }
  });

  void test('an open watch keeps the process alive, as a grpc-js call does; cancelled, it lets the process exit', async () => {
    const script = `
      const { createEtcdUnaryClient } = await import(${JSON.stringify(new URL('./unary-client.js', import.meta.url).href)});
      const client = createEtcdUnaryClient(${JSON.stringify(etcd.endpoints)});
      const { call } = client.watch();
      call.on('error', () => undefined);
      call.on('data', (res) => {
        if (!res.created) return;
        console.log('created');
        setTimeout(() => { console.log('cancel'); call.cancel(); }, 1500).unref();
      });
      call.write({ create_request: { key: Buffer.from('/keepalive-test') } });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Only the open call kept it running until the (unref'd) timer cancelled it; then it exited by itself.
    assert.equal(out, 'created\ncancel\n');
    assert.equal(code, 0);
  });

  void test('many concurrent small calls each get their own answer', async () => {
    const prefix = uniquePrefix();
    const n = 600;
    await Promise.all(Array.from({ length: n }, (_, i) => client.put({ key: Buffer.from(`${prefix}/${i}`), value: Buffer.from(`value-${i}`) }, 30_000)));
    const reads = await Promise.all(Array.from({ length: n }, (_, i) => client.range({ key: Buffer.from(`${prefix}/${i}`) }, 30_000)));
    reads.forEach((res, i) => assert.equal(res.kvs[0]!.value.toString(), `value-${i}`));
  });
});

void test('watches and unary calls over TLS with a client certificate', async () => {
  const etcd = await startEtcd({ tls: true });
  const tls = etcd.tls!;
  const client = createEtcdUnaryClient(etcd.endpoints, { tls: { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile } });
  try {
    const prefix = uniquePrefix();
    const w = watchPrefix(client, prefix);
    await w.isCreated;
    await client.put({ key: Buffer.from(`${prefix}/a`), value: Buffer.from('tls') }, 10_000);
    await w.until(1);
    assert.equal(w.values[0]!.toString(), 'tls');
    w.call.cancel();
  } finally {
    client.close();
    await etcd.stop();
  }
});
