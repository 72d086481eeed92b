import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { counterChild, histogramChild } from './metric-children.js';

function metricsPair() {
  const make = () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['a', 'b'], buckets: [0.1, 1, 10], registers: [registry] });
    const counter = new Counter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'], registers: [registry] });
    return { registry, histogram, counter };
  };
  return { fast: make(), plain: make() };
}

void test('fast children record exactly what prom-client children record, across reset() and remove()', async () => {
  const { fast, plain } = metricsPair();
  const fh = histogramChild(fast.histogram, { a: 'x', b: 'y' });
  const fc = counterChild(fast.counter, { a: 'x', b: 'y' });
  const ph = plain.histogram.labels({ a: 'x', b: 'y' });
  const pc = plain.counter.labels({ a: 'x', b: 'y' });
  const values = [0.05, 0.1, 0.5, 1, 5, 10, 50, 0];
  const step = () => {
    for (const v of values) {
      fh.observe(v);
      ph.observe(v);
      fc.inc();
      pc.inc();
    }
  };
  step();
  // Other series and the public API mixed in.
  fast.histogram.observe({ a: 'x', b: 'y' }, 2);
  plain.histogram.observe({ a: 'x', b: 'y' }, 2);
  fast.counter.inc({ a: 'z', b: 'y' });
  plain.counter.inc({ a: 'z', b: 'y' });
  step();
  assert.equal(await fast.registry.metrics(), await plain.registry.metrics());
  assert.match(await fast.registry.metrics(), /h_seconds_count\{a="x",b="y"\} 17/);

  fast.registry.resetMetrics();
  plain.registry.resetMetrics();
  step();
  assert.equal(await fast.registry.metrics(), await plain.registry.metrics());
  assert.match(await fast.registry.metrics(), /c_total\{a="x",b="y"\} 8/);

  fast.histogram.remove({ a: 'x', b: 'y' });
  plain.histogram.remove({ a: 'x', b: 'y' });
  fast.counter.remove({ a: 'x', b: 'y' });
  plain.counter.remove({ a: 'x', b: 'y' });
  step();
  assert.equal(await fast.registry.metrics(), await plain.registry.metrics());
  assert.match(await fast.registry.metrics(), /h_seconds_bucket\{le="0.1",a="x",b="y"\} 3/);

  assert.throws(() => fh.observe(Number.NaN), TypeError);
});

void test('a fast child bound after its series exists (another labels object) still counts into it', async () => {
  const { fast, plain } = metricsPair();
  fast.histogram.observe({ a: '1', b: '2' }, 3);
  plain.histogram.observe({ a: '1', b: '2' }, 3);
  const fh = histogramChild(fast.histogram, { a: '1', b: '2' });
  for (let i = 0; i < 5; i++) {
    fh.observe(0.5);
    plain.histogram.observe({ a: '1', b: '2' }, 0.5);
  }
  assert.equal(await fast.registry.metrics(), await plain.registry.metrics());
});
