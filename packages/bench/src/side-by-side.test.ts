import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSuiteOptions } from './options.js';
import { measuresOf, roundOrder, runRows, sideBySideRows, range, type SideBySideResult, type SideBySideRun } from './side-by-side.js';
import type { FanoutStep } from './fanout-scenario.js';
import { summarize } from './stats.js';
import { sideBySideMarkdownReport, sideBySideTextReport } from './side-by-side-report.js';
import type { StepResult, SuiteResult } from './suite.js';

function step(target: StepResult['target'], operation: StepResult['operation'], opsPerSecond: number, cpuSeconds: number, rssMiB: number): StepResult {
  return {
    target,
    operation,
    objectBytes: 1024,
    concurrency: 16,
    ops: opsPerSecond * 10,
    errors: 0,
    errorSamples: [],
    elapsedSeconds: 10,
    opsPerSecond,
    latency: { count: opsPerSecond * 10, p50: 1, p90: 2, p99: 3, max: 4, mean: 1.5 },
    nextSeq: 0,
    usage: target === 'kapi' ? { kapi: { cpuSeconds, peakRssBytes: rssMiB * 2 ** 20, endRssBytes: 0 } } : {},
    loadGeneratorCpuSeconds: 1,
  };
}

const options = parseSuiteOptions(['--quick', '--scenarios', 'crud', '--against', 'kapi,kube'], '/o');

function suite(steps: StepResult[], totalErrors = 0): SuiteResult {
  return {
    date: '2026-01-01T00:00:00.000Z',
    host: { cpus: 2, cpuModel: 'cpu', memoryBytes: 2 ** 30, node: 'v20', etcdVersion: 'etcd Version: 3.4.23' },
    options: (({ outDir: _o, ...rest }) => rest)(options),
    pinning: { enabled: false, reason: 'disabled by --no-pin' },
    target: { url: 'https://x', startedBySuite: true, baselineEtcd: 'http://e', baselineEtcdIsServerEtcd: true },
    steps,
    totalErrors,
  };
}

function run(server: SideBySideRun['server'], repetition: number, result: SuiteResult | undefined, error?: string): SideBySideRun {
  return { server, repetition, position: 1, loadBefore: [1, 2, 3], loadAfter: [1.5, 2, 3], elapsedSeconds: 30, ...(result ? { result } : {}), ...(error !== undefined ? { error } : {}) };
}

function sideBySide(runs: SideBySideRun[]): SideBySideResult {
  return {
    date: '2026-01-01T00:00:00.000Z',
    host: { cpus: 2, cpuModel: 'cpu', memoryBytes: 2 ** 30, node: 'v20', etcdVersion: 'etcd Version: 3.4.23' },
    options: (({ outDir: _o, ...rest }) => rest)(options),
    servers: ['kapi', 'kube-apiserver'],
    runs,
    skipped: [],
    totalErrors: runs.reduce((n, r) => n + (r.result?.totalErrors ?? 0) + (r.error ? 1 : 0), 0),
    elapsedSeconds: 120,
  };
}

void test('the comparison puts each server, the per-round ratio, raw etcd, CPU per op and RSS in one row', () => {
  const result = sideBySide([
    // round 1: kapi 600/s at 6 s CPU over 6000 creates = 1 ms/op; kube 400/s at 6 s over 4000 = 1.5 ms/op
    run('kapi', 1, suite([step('kapi', 'create', 600, 6, 200), step('etcd', 'create-txn', 2000, 0, 0)])),
    run('kube-apiserver', 1, suite([step('kapi', 'create', 400, 6, 300), step('etcd', 'create-txn', 1800, 0, 0)])),
    // round 2: kapi 500/s (1.2 ms/op), kube 500/s (1.2 ms/op)
    run('kube-apiserver', 2, suite([step('kapi', 'create', 500, 6, 310), step('etcd', 'create-txn', 1900, 0, 0)])),
    run('kapi', 2, suite([step('kapi', 'create', 500, 6, 210), step('etcd', 'create-txn', 2100, 0, 0)])),
  ]);
  const rows = sideBySideRows(result);
  assert.deepEqual(rows[0], [
    'figure', 'unit', 'kapi', 'kube-apiserver', 'kapi ÷ kube', 'raw etcd, Go clientv3', 'kapi ÷ raw etcd Go', 'raw etcd, Node etcd3',
    'kapi CPU ms/op', 'kube-apiserver CPU ms/op', 'CPU kapi ÷ kube', 'kapi RSS MiB', 'kube-apiserver RSS MiB',
  ]);
  assert.deepEqual(rows[1], ['S1/S2 create ConfigMap 1 KiB, 16 clients', 'creates/s (higher is better)', '500–600', '400–500', '1.00–1.50×', '—', '—', '1800–2100', '1.000–1.200', '1.200–1.500', '0.67–1.00×', '200–210', '300–310']);
  assert.deepEqual(rows.at(-1)!.slice(0, 4), ['errors (every scenario of the run)', 'count (lower is better)', '0', '0']);
});

void test('kapi creates divide by the Go create transactions of the same run, kube runs not counted', () => {
  const result = sideBySide([
    run('kapi', 1, suite([step('kapi', 'create', 600, 6, 200), step('etcd-go', 'create-txn', 1000, 0, 0), step('etcd', 'create-txn', 700, 0, 0)])),
    run('kube-apiserver', 1, suite([step('kapi', 'create', 400, 6, 300), step('etcd-go', 'create-txn', 4000, 0, 0)])),
    run('kube-apiserver', 2, suite([step('kapi', 'create', 500, 6, 310), step('etcd-go', 'create-txn', 1500, 0, 0)])),
    run('kapi', 2, suite([step('kapi', 'create', 500, 6, 210), step('etcd-go', 'create-txn', 2000, 0, 0)])),
  ]);
  const rows = sideBySideRows(result);
  // kapi: 600/1000 in round 1, 500/2000 in round 2; the Node figure only where it ran.
  assert.deepEqual(rows[1]!.slice(5, 8), ['1000–4000', '0.25–0.60×', '700']);
});

void test('a server without a figure or a run that did not start shows a dash and counts as an error, never as zero', () => {
  const result = sideBySide([
    run('kapi', 1, suite([step('kapi', 'get', 900, 9, 200)])),
    run('kube-apiserver', 1, undefined, 'kube-apiserver exited early (code 1):\nboom'),
  ]);
  const rows = sideBySideRows(result);
  assert.deepEqual(rows[1]!.slice(2, 5), ['900', '—', '—']);
  assert.deepEqual(rows.at(-1)!.slice(2, 4), ['0', '1']);
  assert.equal(result.totalErrors, 1);
  assert.deepEqual(runRows(result)[2]!.at(-1), 'did not run: kube-apiserver exited early (code 1):');
  const text = sideBySideTextReport(result);
  assert.match(text, /errors: 1 — THIS RUN FAILED/);
  assert.match(text, /kube-apiserver round 1: kube-apiserver exited early/);
  const markdown = sideBySideMarkdownReport(result, 'x.json');
  assert.match(markdown, /## Comparison\n/);
  assert.match(markdown, /## kube-apiserver, round 1\n\nDid not run:/);
});

void test('rounds alternate the order of the servers', () => {
  assert.deepEqual(roundOrder(['kapi', 'kube-apiserver'], 1), ['kapi', 'kube-apiserver']);
  assert.deepEqual(roundOrder(['kapi', 'kube-apiserver'], 2), ['kube-apiserver', 'kapi']);
  assert.deepEqual(roundOrder(['kapi', 'kube-apiserver'], 3), ['kapi', 'kube-apiserver']);
});

void test('ranges collapse equal values and skip missing ones', () => {
  assert.equal(range([1.234, 1.234]), '1.23');
  assert.equal(range([Number.NaN, 5, 150]), '5.00–150');
  assert.equal(range([]), '—');
});

void test('--against parses kube as kube-apiserver and refuses what it cannot combine with', () => {
  assert.deepEqual(options.against, ['kapi', 'kube-apiserver']);
  assert.equal(options.repetitions, 2);
  assert.deepEqual(parseSuiteOptions([], '/o').against, ['kapi']);
  // Side by side, the neutral client runs by default; named scenarios are kept as given.
  assert.ok(parseSuiteOptions(['--against', 'kapi,kube'], '/o').scenarios.includes('client-go'));
  assert.ok(!parseSuiteOptions([], '/o').scenarios.includes('client-go'));
  assert.deepEqual(options.scenarios, ['crud']);
  assert.throws(() => parseSuiteOptions(['--against', 'kapi,etcd'], '/o'), /--against takes kapi,kube/);
  assert.throws(() => parseSuiteOptions(['--against', 'kube', '--url', 'http://x'], '/o'), /excludes --url/);
});

void test('client-go figures line up by request and count per-write server CPU for watch delivery', () => {
  const withClientGo = (opsPerSecond: number, p99: number, cpuSeconds: number): SuiteResult => ({
    ...suite([]),
    clientGo: {
      errors: [],
      steps: [
        { mode: 'get', request: 'GET ConfigMap 1 KiB', concurrency: 16, ops: opsPerSecond * 2, errors: 0, errorSamples: [], seconds: 2, opsPerSecond, p50: 1, p99: 2, max: 3, serverCpuMsPerOp: (cpuSeconds * 1000) / (opsPerSecond * 2), usage: { cpuSeconds, peakRssBytes: 2 ** 27, endRssBytes: 0 } },
        { mode: 'watch', request: '200 watches, 100 updates/s: delivery', concurrency: 200, ops: 200, errors: 0, errorSamples: [], seconds: 2, opsPerSecond: 100, p50: 3, p99, max: p99, expectedDeliveries: 40000, deliveries: 40000, serverCpuMsPerOp: 2 },
      ],
    },
  });
  const rows = sideBySideRows(sideBySide([run('kapi', 1, withClientGo(1000, 20, 2)), run('kube-apiserver', 1, withClientGo(800, 40, 2))]));
  const get = rows.find((r) => r[0] === 'client-go GET ConfigMap 1 KiB, 16 clients')!;
  assert.deepEqual(get.slice(1, 13), ['gets/s (higher is better)', '1000', '800', '1.25×', '—', '—', '—', '1.000', '1.250', '0.80×', '128', '128']);
  const p99 = rows.find((r) => r[0] === 'client-go 200 watches, 100 updates/s: delivery p99')!;
  assert.deepEqual(p99.slice(1, 5), ['ms (lower is better)', '20.0', '40.0', '0.50×']);
});

void test("a fan-out step's figures include the share of its runnable time the server's busiest thread waited for a CPU, when known", () => {
  const fanoutStep: FanoutStep = {
    target: 'kapi', variant: 'field-selector', watchers: 1000, watchersPerEvent: 10, rate: 100, durationSeconds: 5, writes: 500, writesSkipped: 0, writeErrors: 0, errorSamples: [],
    writeLatency: summarize([1]), delivery: summarize([1, 2]), deliveryFromRequest: summarize([1]), deliveredBeforeAck: 0, expectedDeliveries: 5000, missingDeliveries: 0,
    watchersTerminated: 0, loadGeneratorCpuSeconds: 1,
    usage: { cpuSeconds: 2, peakRssBytes: 2 ** 20, endRssBytes: 2 ** 20, schedule: { waitSeconds: 4, busiest: { runSeconds: 1, waitSeconds: 3 } } },
  };
  const result = (steps: FanoutStep[]) => ({ steps: [], fanout: { eventBytes: 1, steps, errors: [] } }) as unknown as SuiteResult;
  const waiting = measuresOf(result([fanoutStep])).find((m) => m.key.endsWith("server's busiest thread, waiting for a CPU"));
  assert.equal(waiting?.value, 75);
  assert.equal(waiting?.unit, '% of its runnable time');
  const { schedule: _schedule, ...withoutSchedule } = fanoutStep.usage!;
  assert.equal(measuresOf(result([{ ...fanoutStep, usage: withoutSchedule }])).filter((m) => m.key.includes('waiting for a CPU')).length, 0);
});
