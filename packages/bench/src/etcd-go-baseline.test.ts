import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Etcd3 } from 'etcd3';
import { startEtcd } from '@kapi/storage/testing';
import { etcdGoArgs, etcdGoBinary, parseEtcdGoResult, runEtcdGo } from './etcd-go-baseline.js';

const resultLine = {
  event: 'result', mode: 'create-txn', concurrency: 16, clients: 2, valueBytes: 1100, ops: 1000, errors: 1, errorSamples: ['key exists: /k/1'],
  seconds: 2, opsPerSecond: 500, p50: 1.5, p90: 3, p99: 7.25, max: 9, mean: 2, cpuSeconds: 0.4, keyPrefix: '/kapi-bench-raw/go/abc/',
};

void test('the command line carries every option, durations in ms', () => {
  assert.deepEqual(etcdGoArgs({ endpoints: ['http://a:1', 'http://b:2'], mode: 'create-txn', concurrency: 64, clients: 4, durationMs: 5000, warmupMs: 1500.4, valueBytes: 1187 }), [
    '--endpoints=http://a:1,http://b:2', '--mode=create-txn', '--concurrency=64', '--clients=4', '--duration=5000ms', '--warmup=1500ms', '--size=1187',
  ]);
  assert.equal(etcdGoArgs({ endpoints: ['http://a:1'], mode: 'put', concurrency: 1, clients: 1, durationMs: 1, warmupMs: 0, valueBytes: 0, prefix: '/p/' }).at(-1), '--prefix=/p/');
});

void test('a result line becomes a step: latency in ms, the program\'s CPU, its errors', () => {
  const r = parseEtcdGoResult(resultLine);
  assert.equal(r.opsPerSecond, 500);
  assert.equal(r.clients, 2);
  assert.deepEqual(r.latency, { count: 1000, p50: 1.5, p90: 3, p99: 7.25, max: 9, mean: 2 });
  assert.deepEqual(r.errorSamples, ['key exists: /k/1']);
  assert.equal(r.cpuSeconds, 0.4);
  assert.equal(r.keyPrefix, '/kapi-bench-raw/go/abc/');
  assert.equal(parseEtcdGoResult({ ...resultLine, mode: 'txn-put' }).mode, 'txn-put');
});

void test('without successful transactions the quantiles are NaN, not the program\'s -1', () => {
  const r = parseEtcdGoResult({ ...resultLine, ops: 0, opsPerSecond: 0, p50: -1, p90: -1, p99: -1, max: -1, mean: -1 });
  assert.ok(Number.isNaN(r.latency.p50) && Number.isNaN(r.latency.p99) && Number.isNaN(r.latency.max));
  assert.equal(r.latency.count, 0);
});

void test('a line with a missing or mistyped field is refused, never read as 0', () => {
  const { opsPerSecond: _ops, ...withoutRate } = resultLine;
  assert.throws(() => parseEtcdGoResult(withoutRate), /opsPerSecond is undefined, not a number/);
  assert.throws(() => parseEtcdGoResult({ ...resultLine, ops: '12' }), /ops is "12", not a number/);
  assert.throws(() => parseEtcdGoResult({ ...resultLine, mode: 'get' }), /unknown mode "get"/);
  assert.throws(() => parseEtcdGoResult({ ...resultLine, errorSamples: [1] }), /errorSamples is not a list of strings/);
  assert.throws(() => parseEtcdGoResult({ ...resultLine, keyPrefix: '' }), /keyPrefix missing/);
});

function haveGo(): boolean {
  try {
    execFileSync(process.env.GO ?? 'go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

void test('the Go program writes create transactions of the asked size to a real etcd, and a second create of a key fails', { skip: haveGo() ? false : 'go is not installed', timeout: 15 * 60_000 }, async () => {
  const binary = await etcdGoBinary();
  const etcd = await startEtcd();
  const client = new Etcd3({ hosts: etcd.endpoints });
  try {
    const { result } = await runEtcdGo(binary, { endpoints: etcd.endpoints, mode: 'create-txn', concurrency: 4, clients: 2, durationMs: 300, warmupMs: 100, valueBytes: 1187, prefix: '/t/' });
    assert.equal(result.errors, 0, result.errorSamples.join(' | '));
    assert.ok(result.ops > 0 && result.opsPerSecond > 0);
    assert.ok(result.keyPrefix.startsWith('/t/'));
    const stored = await client.getAll().prefix(result.keyPrefix).buffers();
    const values = Object.values(stored);
    // Warm-up and measured transactions both wrote; every one of them is a fresh key.
    assert.ok(values.length >= result.ops, `${values.length} keys for ${result.ops} measured creates`);
    assert.ok(values.every((v) => v.length === 1187));
    // Each call restarts its numbering under a fresh run id, so keys never collide across runs.
    const again = await runEtcdGo(binary, { endpoints: etcd.endpoints, mode: 'put', concurrency: 1, clients: 1, durationMs: 100, warmupMs: 0, valueBytes: 10, prefix: '/t/' });
    assert.notEqual(again.result.keyPrefix, result.keyPrefix);
    assert.equal(again.result.errors, 0);
    // Unreachable etcd: a rejection with the program's message, not a hang or a zero result.
    await assert.rejects(runEtcdGo(binary, { endpoints: ['http://127.0.0.1:1'], mode: 'create-txn', concurrency: 1, clients: 1, durationMs: 100, warmupMs: 0, valueBytes: 10 }), /without a result: kapi-bench-etcd: etcd at http:\/\/127\.0\.0\.1:1/);
  } finally {
    client.close();
    await etcd.stop();
  }
});
