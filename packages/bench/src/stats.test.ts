import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantile, ratio, SampleBuffer, summarize } from './stats.js';

void test('quantile uses the nearest-rank method', () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(quantile(sorted, 0.5), 5);
  assert.equal(quantile(sorted, 0.9), 9);
  assert.equal(quantile(sorted, 0.99), 10);
  assert.equal(quantile(sorted, 1), 10);
  assert.equal(quantile(sorted, 0), 1);
  assert.equal(quantile([42], 0.99), 42);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});

void test('quantile rejects q outside [0, 1]', () => {
  assert.throws(() => quantile([1], 1.5), RangeError);
  assert.throws(() => quantile([1], -0.1), RangeError);
  assert.throws(() => quantile([1], Number.NaN), RangeError);
});

void test('summarize sorts a copy and reports p50/p99/max/mean', () => {
  const input = [];
  for (let i = 1000; i >= 1; i--) input.push(i);
  const summary = summarize(input);
  assert.deepEqual(summary, { count: 1000, p50: 500, p90: 900, p99: 990, max: 1000, mean: 500.5 });
  assert.equal(input[0], 1000, 'input is not mutated');
});

void test('summarize of nothing is all NaN with count 0', () => {
  const summary = summarize([]);
  assert.equal(summary.count, 0);
  for (const key of ['p50', 'p90', 'p99', 'max', 'mean'] as const) assert.ok(Number.isNaN(summary[key]), key);
});

void test('SampleBuffer grows past its initial capacity and keeps every sample', () => {
  const buffer = new SampleBuffer();
  for (let i = 0; i < 5000; i++) buffer.add(i);
  assert.equal(buffer.size, 5000);
  assert.equal(buffer.values()[4999], 4999);
  assert.equal(summarize(buffer.values()).max, 4999);
});

void test('ratio is NaN when undefined', () => {
  assert.equal(ratio(1, 4), 0.25);
  assert.ok(Number.isNaN(ratio(1, 0)));
  assert.ok(Number.isNaN(ratio(Number.NaN, 1)));
});
