import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fanoutRows, listRows, scenarioErrors } from './scenario-report.js';
import { countErrors, type SuiteResult } from './suite.js';
import type { ListStep } from './list-scenario.js';
import type { FanoutStep } from './fanout-scenario.js';

const latency = (p50: number, p99: number) => ({ count: 10, p50, p90: p99, p99, max: p99, mean: p50 });

function listStep(source: ListStep['source'], opsPerSecond: number, p50: number, errors = 0): ListStep {
  return {
    source,
    request: source,
    concurrency: 1,
    ops: opsPerSecond * 5,
    errors,
    errorSamples: errors > 0 ? ['boom'] : [],
    elapsedSeconds: 5,
    opsPerSecond,
    latency: latency(p50, p50 * 2),
    nextSeq: 0,
    usage: {},
    loadGeneratorCpuSeconds: 1,
    bodyBytes: 12_000_000,
    items: 10_000,
    megabytesPerSecond: opsPerSecond * 12,
    serverCpuMsPerOp: 50,
  };
}

function fanoutStep(target: FanoutStep['target'], p99: number, missing = 0): FanoutStep {
  return {
    target,
    watchers: 1000,
    rate: 100,
    durationSeconds: 5,
    writes: 500,
    writesSkipped: 0,
    writeErrors: 0,
    errorSamples: [],
    writeLatency: latency(1, 2),
    delivery: latency(p99 / 4, p99),
    deliveryFromRequest: latency(p99 / 2, p99 * 2),
    deliveredBeforeAck: 0,
    expectedDeliveries: 500_000,
    missingDeliveries: missing,
    watchersTerminated: 0,
    usage: undefined,
    loadGeneratorCpuSeconds: 2,
  };
}

const base = { steps: [], lists: undefined, fanout: undefined, memory: undefined } as unknown as SuiteResult;

void test('list rows compare throughput and p50 with the bare server at the same concurrency', () => {
  const result = { ...base, lists: { objects: 10_000, itemBytes: 1200, loadSeconds: 1, loadErrors: 0, skipped: [], steps: [listStep('kapi-cache', 10, 90), listStep('bare', 50, 10)] } };
  const rows = listRows(result);
  assert.deepEqual(rows[1]!.slice(-2), ['0.200', '9.0']);
  assert.deepEqual(rows[2]!.slice(-2), ['1.000', '1.0']);
});

void test('fan-out rows divide p99 by the bare fan-out at the same rate; missing deliveries are errors', () => {
  const result = { ...base, fanout: { eventBytes: 1300, errors: [], steps: [fanoutStep('kapi', 120, 3), fanoutStep('bare', 40)] } };
  assert.equal(fanoutRows(result)[1]!.at(-1), '3.0');
  assert.equal(countErrors(result), 3);
  assert.deepEqual(scenarioErrors(result), ['fanout kapi 100/s: 3 of 500000 deliveries missing']);
});

void test('failed list steps count as errors and are listed', () => {
  const result = { ...base, lists: { objects: 10, itemBytes: 1, loadSeconds: 1, loadErrors: 2, skipped: [], steps: [listStep('kapi-etcd', 0, Number.NaN, 1)] } };
  assert.equal(countErrors(result), 3);
  assert.deepEqual(scenarioErrors(result), ['list: 2 failed creates while loading', 'list kapi-etcd c=1: 1 errors, e.g. boom']);
});
