import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, startEtcd, startEtcdCluster, uniquePrefix, type TestEtcd } from '../../testing/index.js';
import { toStorageError } from '../errors.js';
import { createEtcdUnaryClient } from './unary-client.js';
import { grpcTimeout } from './unary-call.js';
import { besideEtcd3, failure } from './beside-etcd3.js';

const T = 5000;

void describe('the unary gRPC client against a real etcd, beside the etcd3 client', { concurrency: false }, () => {
  const pair = besideEtcd3({ maxRequestBytes: 4 * 1024 * 1024 });

  void test('Put, Range, DeleteRange and Txn answer as the etcd3 client does', async () => {
    const prefix = uniquePrefix();
    const key = (name: string) => Buffer.from(`${prefix}/${name}`);
    const put = await pair.ours.put({ key: key('a'), value: Buffer.from('1') }, T);
    assert.ok(Number(put.header.revision) > 0);
    assert.equal(put.prev_kv, null);
    const again = await pair.ours.put({ key: key('a'), value: Buffer.from('one'), prev_kv: true }, T);
    assert.equal(again.prev_kv.value.toString(), '1');
    await pair.ours.put({ key: key('b'), value: Buffer.alloc(70_000, 'b') }, T);
    await pair.theirs.put(`${prefix}/c`).value('');

    // Same state, same request: the same answer, field for field.
    const ranges = [
      { key: key(''), range_end: key('~') },
      { key: key(''), range_end: key('~'), limit: 2, sort_order: 'Descend' as const, sort_target: 'Mod' as const },
      { key: key(''), range_end: key('~'), count_only: true },
      { key: key(''), range_end: key('~'), keys_only: true, min_mod_revision: Number(again.header.revision) },
      { key: key('a'), revision: put.header.revision },
      { key: key('missing') },
    ];
    for (const req of ranges) assert.deepEqual(await pair.ours.range(req, T), await pair.theirs.kv.range(req), JSON.stringify(req));

    const failing = {
      compare: [{ key: key('a'), target: 'Mod' as const, result: 'Equal' as const, mod_revision: 0 }],
      success: [{ request_put: { key: key('a'), value: Buffer.from('x') } }],
      failure: [{ request_range: { key: key('a') } }, { request_range: { key: key(''), range_end: key('~'), count_only: true } }],
    };
    assert.deepEqual(await pair.ours.txn(failing, T), await pair.theirs.kv.txn(failing));

    const created = await pair.ours.txn(
      {
        compare: [{ key: key('d'), target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key: key('d'), value: Buffer.from('new') } }],
        failure: [{ request_range: { key: key('d') } }],
      },
      T,
    );
    assert.equal(created.succeeded, true);
    assert.deepEqual(Object.keys(created.responses[0]!).sort(), ['response', 'response_put']);
    const read = await pair.theirs.kv.range({ key: key('d') });
    assert.equal(read.kvs[0]!.value.toString(), 'new');
    assert.equal(read.kvs[0]!.mod_revision, created.header.revision);

    const deleted = await pair.ours.deleteRange({ key: key(''), range_end: key('~'), prev_kv: true }, T);
    assert.equal(deleted.deleted, '4');
    assert.deepEqual(deleted.prev_kvs.map((kv) => kv.key.toString()).sort(), ['a', 'b', 'c', 'd'].map((n) => `${prefix}/${n}`));
    assert.equal(deleted.prev_kvs.find((kv) => kv.key.equals(key('b')))!.value.length, 70_000);
  });

  void test('a large range (many frames) decodes whole', async () => {
    const prefix = uniquePrefix();
    const value = Buffer.alloc(100_000, 'v');
    for (let i = 0; i < 40; i++) await pair.ours.put({ key: Buffer.from(`${prefix}/${String(i).padStart(2, '0')}`), value }, T);
    const res = await pair.ours.range({ key: Buffer.from(`${prefix}/`), range_end: Buffer.from(`${prefix}0`) }, T);
    assert.equal(res.kvs.length, 40);
    assert.ok(res.kvs.every((kv) => kv.value.equals(value)));
    assert.equal(res.count, '40');
  });

  void test('etcd errors come back with the class and message the etcd3 client gives them', async () => {
    const prefix = uniquePrefix();
    const key = Buffer.from(`${prefix}/k`);
    const first = await pair.ours.put({ key, value: Buffer.from('1') }, T);
    const second = await pair.ours.put({ key, value: Buffer.from('2') }, T);
    await pair.theirs.kv.compact({ revision: second.header.revision });
    const cases: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
      ['compacted', () => pair.ours.range({ key, revision: first.header.revision }, T), () => pair.theirs.kv.range({ key, revision: first.header.revision })],
      ['future', () => pair.ours.range({ key, revision: Number(second.header.revision) + 1000 }, T), () => pair.theirs.kv.range({ key, revision: Number(second.header.revision) + 1000 })],
      [
        'too large',
        () => pair.ours.put({ key, value: Buffer.alloc(1_600_000) }, T),
        () => pair.theirs.kv.put({ key, value: Buffer.alloc(1_600_000) }),
      ],
      ['duplicate key in txn', () => pair.ours.txn({ success: [{ request_put: { key } }, { request_put: { key } }] }, T), () => pair.theirs.kv.txn({ success: [{ request_put: { key } }, { request_put: { key } }] })],
    ];
    for (const [name, ourCall, theirCall] of cases) {
      const [mine, etcd3] = [await failure(ourCall()), await failure(theirCall())];
      assert.equal(mine.constructor, etcd3.constructor, name);
      assert.equal(mine.message, etcd3.message, name);
      assert.deepEqual(toStorageError(mine, 'k'), toStorageError(etcd3, 'k'), name);
    }
    assert.match((await failure(pair.ours.range({ key, revision: first.header.revision }, T))).message, /mvcc: required revision has been compacted/);
    assert.match((await failure(pair.ours.put({ key, value: Buffer.alloc(1_600_000) }, T))).message, /etcdserver: request is too large/);
  });

  void test('a message over the send limit is not sent: RESOURCE_EXHAUSTED, classified as too large', async () => {
    const small = createEtcdUnaryClient(pair.etcd.endpoints, { maxRequestBytes: 1024 });
    try {
      const err = await failure(small.put({ key: Buffer.from('k'), value: Buffer.alloc(600 * 1024) }, T));
      assert.match(err.message, /^8 RESOURCE_EXHAUSTED: Attempted to send message with a size larger than 525312$/);
      assert.equal(toStorageError(err, 'k').code, 'RequestTooLarge');
    } finally {
      small.close();
    }
  });

  void test('a client closed while its first connection is being made fails the call and throws nothing later', async () => {
    const uncaught: Error[] = [];
    const onUncaught = (err: Error) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      for (let i = 0; i < 5; i++) {
        const client = createEtcdUnaryClient(pair.etcd.endpoints);
        const call = failure(client.range({ key: Buffer.from('k') }, T));
        client.close();
        assert.ok((await call) instanceof Error);
      }
      // The queued connect events run after the close.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(uncaught.map((e) => e.message), []);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});

void test('grpc-timeout takes at most 8 digits', () => {
  assert.equal(grpcTimeout(10_000), '10000m');
  assert.equal(grpcTimeout(0.2), '1m');
  assert.equal(grpcTimeout(99_999_999), '99999999m');
  assert.equal(grpcTimeout(100_000_000), '100000S');
  assert.equal(grpcTimeout(1e12), '277778H');
  assert.equal(grpcTimeout(1e20), '99999999H');
});

void describe('the unary client when etcd fails', { concurrency: false }, () => {
  void test('a stopped etcd: UNAVAILABLE (never reached); a hung one: DEADLINE_EXCEEDED; both Unreachable; back after restart', async () => {
    const etcd = await startEtcd();
    const client = createEtcdUnaryClient(etcd.endpoints);
    try {
      const key = Buffer.from(`${uniquePrefix()}/k`);
      await client.put({ key, value: Buffer.from('1') }, T);
      etcd.pause();
      const start = Date.now();
      const hung = await failure(client.range({ key }, 500));
      assert.match(hung.message, /^4 DEADLINE_EXCEEDED: Deadline exceeded/);
      assert.equal(toStorageError(hung, 'k').code, 'Unreachable');
      assert.ok(Date.now() - start < 3000);
      etcd.resume();
      assert.equal((await client.range({ key }, T)).kvs[0]!.value.toString(), '1');

      await etcd.kill('SIGKILL');
      const dropped = await failure(client.range({ key }, T));
      assert.match(dropped.message, /^14 UNAVAILABLE: /);
      assert.equal(toStorageError(dropped, 'k').code, 'Unreachable');
      const refused = await failure(client.range({ key }, T));
      assert.match(refused.message, /^14 UNAVAILABLE: No connection established\. Last error: connect ECONNREFUSED/);

      await etcd.restart();
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          assert.equal((await client.range({ key }, T)).kvs[0]!.value.toString(), '1');
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      etcd.resume();
      client.close();
      await etcd.stop();
    }
  });

  void test('keepalive: a member that stops answering pings has its connection closed and its calls fail before their deadline', async () => {
    const etcd = await startEtcd();
    const client = createEtcdUnaryClient(etcd.endpoints, { keepaliveTimeMs: 300, keepaliveTimeoutMs: 500 });
    try {
      const key = Buffer.from(`${uniquePrefix()}/k`);
      await client.put({ key, value: Buffer.from('1') }, T);
      etcd.pause();
      const start = Date.now();
      const err = await failure(client.range({ key }, 30_000));
      assert.match(err.message, /^14 UNAVAILABLE: Connection dropped: keepalive ping not answered within 500 ms/);
      assert.equal(toStorageError(err, 'k').code, 'Unreachable');
      assert.ok(Date.now() - start < 10_000, `took ${Date.now() - start} ms`);
    } finally {
      etcd.resume();
      client.close();
      await etcd.stop();
    }
  });

  void test('with several endpoints, calls that cannot reach a member go to another one', async () => {
    const etcd = await startEtcd();
    const dead = `http://127.0.0.1:${await freePort()}`;
    const client = createEtcdUnaryClient([dead, dead, etcd.endpoints[0]!]);
    try {
      const key = Buffer.from(`${uniquePrefix()}/k`);
      for (let i = 0; i < 20; i++) await client.put({ key, value: Buffer.from(String(i)) }, T);
      assert.equal((await client.range({ key }, T)).kvs[0]!.value.toString(), '19');
    } finally {
      client.close();
      await etcd.stop();
    }
  });
});

void describe('the unary client on a cluster with a partitioned member', { concurrency: false }, () => {
  void test('calls the cut-off member refuses (no leader) are served by the others', async () => {
    const cluster = await startEtcdCluster();
    const client = createEtcdUnaryClient(cluster.endpoints);
    try {
      const key = Buffer.from(`${uniquePrefix()}/k`);
      await client.put({ key, value: Buffer.from('start') }, T);
      const cut = cluster.members[0]!;
      cluster.partition(cut);
      await cluster.waitLeaderless(cut);
      // When the cut member led, the others elect a new leader first: a write proposed during
      // their election is lost with the old leader and times out (etcd's behaviour, any client).
      await cluster.waitLeader(15_000);
      for (let i = 0; i < 20; i++) await client.put({ key, value: Buffer.from(String(i)) }, T);
      assert.equal((await client.range({ key }, T)).kvs[0]!.value.toString(), '19');
    } finally {
      client.close();
      await cluster.stop();
    }
  });
});

void describe('the unary client over mutual TLS', { concurrency: false }, () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd({ tls: true });
  });
  after(async () => {
    await etcd.stop();
  });

  void test('with the CA and a client certificate it reads and writes', async () => {
    const client = createEtcdUnaryClient(etcd.endpoints, { tls: etcd.tls! });
    try {
      const key = Buffer.from(`${uniquePrefix()}/k`);
      await client.put({ key, value: Buffer.from('tls') }, T);
      assert.equal((await client.range({ key }, T)).kvs[0]!.value.toString(), 'tls');
    } finally {
      client.close();
    }
  });

  void test('without a client certificate, or trusting another CA, calls fail as Unreachable', async () => {
    for (const tls of [{ caFile: etcd.tls!.caFile }, { certFile: etcd.tls!.certFile, keyFile: etcd.tls!.keyFile }]) {
      const client = createEtcdUnaryClient(etcd.endpoints, { tls, dialTimeoutMs: 2000 });
      try {
        const err = await failure(client.range({ key: Buffer.from('x') }, T));
        assert.match(err.message, /^14 UNAVAILABLE: .*certificate/i, JSON.stringify(tls));
        assert.equal(toStorageError(err, 'x').code, 'Unreachable');
      } finally {
        client.close();
      }
    }
  });

  void test('file errors are reported as kube reports them', () => {
    assert.throws(() => createEtcdUnaryClient(etcd.endpoints, { tls: { certFile: etcd.tls!.certFile } }), {
      message: `KeyFile and CertFile must both be present[key: , cert: ${etcd.tls!.certFile}]`,
    });
    assert.throws(() => createEtcdUnaryClient(etcd.endpoints, { tls: { caFile: '/nonexistent/ca.crt' } }), { message: 'open /nonexistent/ca.crt: no such file or directory' });
  });
});
