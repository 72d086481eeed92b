import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fanoutStepLine, type FanoutStep } from './fanout-scenario.js';
import { summarize } from './stats.js';

const step: FanoutStep = {
  target: 'kapi', variant: 'all', watchers: 1000, rate: 100, durationSeconds: 5, writes: 500, writesSkipped: 0, writeErrors: 0, errorSamples: [],
  writeLatency: summarize([1, 2]), delivery: summarize([10, 20, 30]), deliveryFromRequest: summarize([12, 22]), deliveredBeforeAck: 0,
  expectedDeliveries: 500_000, missingDeliveries: 0, watchersTerminated: 0, usage: undefined, loadGeneratorCpuSeconds: 2.5,
};

void test('a fan-out log line names the server that served it, not always kapi', () => {
  assert.match(fanoutStepLine('kube-apiserver', step), /^fanout kube-apiserver 1000 watchers 100\/s: delivery p50 20\.0 ms p99 30\.0 ms max 30 ms; .* client cpu 0\.50 cores$/);
  assert.match(fanoutStepLine('kapi', { ...step, variant: 'field-selector' }), /^fanout kapi field-selector 1000 watchers/);
  assert.match(fanoutStepLine('bare', step), /^fanout bare 1000 watchers/);
});

void test("a fan-out log line ends with the server's busiest thread's run and run-queue time when they are known", () => {
  const usage = { cpuSeconds: 1, peakRssBytes: 1, endRssBytes: 1, schedule: { waitSeconds: 5, busiest: { runSeconds: 1.25, waitSeconds: 3.5 } } };
  assert.match(fanoutStepLine('kapi', { ...step, usage }), /client cpu 0\.50 cores; server's busiest thread ran 1\.25 s, waited 3\.50 s for a CPU$/);
  assert.match(fanoutStepLine('kapi', { ...step, usage: { cpuSeconds: 1, peakRssBytes: 1, endRssBytes: 1 } }), /client cpu 0\.50 cores$/);
});
