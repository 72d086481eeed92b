import { parseSuiteOptions } from './options.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ratioRows, textReport, textTable } from './report.js';
import type { StepResult, SuiteResult } from './suite.js';

function step(target: StepResult['target'], operation: StepResult['operation'], opsPerSecond: number, errors = 0, objectBytes = 1024): StepResult {
  return {
    target,
    operation,
    objectBytes,
    concurrency: 16,
    ops: opsPerSecond * 10,
    errors,
    errorSamples: errors > 0 ? ['HTTP 500 InternalError: boom'] : [],
    elapsedSeconds: 10,
    opsPerSecond,
    latency: { count: opsPerSecond * 10, p50: 1, p90: 2, p99: 3, max: 4, mean: 1.5 },
    nextSeq: 0,
    usage: { kapi: { cpuSeconds: 5, peakRssBytes: 100 * 1048576, endRssBytes: 0 } },
    loadGeneratorCpuSeconds: 1,
  };
}

function result(steps: StepResult[]): SuiteResult {
  return {
    date: '2025-01-01T00:00:00.000Z',
    host: { cpus: 2, cpuModel: 'cpu', memoryBytes: 2 ** 30, node: 'v20', etcdVersion: 'etcd Version: 3.4.23' },
    options: {
      ...parseSuiteOptions(['--quick', '--scenarios', 'crud'], '/o'),
      quick: true,
      scenarios: ['crud'],
      concurrency: [16],
      durationMs: 10_000,
      warmupMs: 2000,
      url: undefined,
      serverPid: undefined,
      workers: 1,
      etcdServers: undefined,
      pin: false,
      listObjects: 10_000,
      listConcurrency: [1],
      scenarioDurationMs: 5000,
      watchers: 1000,
      fanoutRates: [100],
      memoryObjects: [10_000],
    },
    pinning: { enabled: false, reason: 'disabled by --no-pin' },
    target: { url: 'http://x', startedBySuite: true, baselineEtcd: 'http://e', baselineEtcdIsServerEtcd: true },
    steps,
    totalErrors: steps.reduce((n, s) => n + s.errors, 0),
  };
}

void test('ratio rows divide kapi throughput by the raw-etcd baseline at the same concurrency', () => {
  const rows = ratioRows(result([step('kapi', 'create', 500), step('kapi', 'get', 1500), step('etcd', 'create-txn', 2000), step('etcd', 'put', 2500), step('etcd', 'get', 3000)]));
  assert.deepEqual(rows[1], ['1 KiB', '16', '500', '—', '—', '2000', '0.250', '2500', '1500', '3000', '0.500']);
});

void test('creates divide by the Go create transactions and by the Node ones, each labeled', () => {
  const rows = ratioRows(result([step('kapi', 'create', 500), step('etcd', 'create-txn', 800), step('etcd-go', 'create-txn', 1000)]));
  assert.deepEqual(rows[0]!.slice(2, 7), ['kapi creates/s', 'etcd create-txn/s, Go clientv3', 'kapi ÷ Go txn', 'etcd create-txn/s, Node etcd3', 'kapi ÷ Node txn']);
  assert.deepEqual(rows[1]!.slice(0, 7), ['1 KiB', '16', '500', '1000', '0.500', '800', '0.625']);
  assert.match(textReport(result([step('etcd-go', 'create-txn', 1000)])), /etcd-go +create-txn +1 KiB +16 +1000 /);
});

void test('ratio rows pair kapi and raw etcd of the same object size, one row per size', () => {
  const rows = ratioRows(
    result([
      step('kapi', 'create', 500),
      step('etcd', 'create-txn', 2000),
      step('kapi', 'create', 300, 0, 10240),
      step('kapi', 'get', 900, 0, 10240),
      step('etcd', 'create-txn', 1200, 0, 10240),
      step('etcd', 'get', 1800, 0, 10240),
    ]),
  );
  assert.equal(rows.length, 3);
  assert.deepEqual(rows[1], ['1 KiB', '16', '500', '—', '—', '2000', '0.250', '—', '—', '—', '—']);
  assert.deepEqual(rows[2], ['10 KiB', '16', '300', '—', '—', '1200', '0.250', '—', '900', '1800', '0.500']);
  const text = textReport(result([step('kapi', 'create', 300, 0, 10240)]));
  assert.match(text, /kapi +create +10 KiB +16 /);
});

void test('a missing baseline gives a dash, not a number', () => {
  const rows = ratioRows(result([step('kapi', 'create', 500)]));
  assert.deepEqual(rows[1], ['1 KiB', '16', '500', '—', '—', '—', '—', '—', '—', '—', '—']);
});

void test('errors are always shown and mark the run failed', () => {
  const ok = textReport(result([step('kapi', 'create', 500)]));
  assert.match(ok, /errors: none/);
  const failed = textReport(result([step('kapi', 'create', 500, 3)]));
  assert.match(failed, /errors: 3 — THIS RUN FAILED/);
  assert.match(failed, /kapi\/create 1 KiB c=16: 3 errors, e\.g\. HTTP 500 InternalError: boom/);
});

void test('text tables right-align numeric columns', () => {
  assert.equal(textTable([['name', 'n'], ['a', '1'], ['bb', '10']]), 'name   n\na      1\nbb    10');
});
