import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { decodePprof, emptyPprof, encodePprof, encodePprofProto, pprofDelta, type PprofProfile } from './index.js';

const frame = (fn: string, line = 1) => ({ function: fn, file: `/src/${fn}.js`, line });

const cpu: PprofProfile = {
  ...emptyPprof([['samples', 'count'], ['cpu', 'nanoseconds']], {
    timeNanos: 1_700_000_000_000_000_000,
    durationNanos: 1_014_672_474,
    periodType: ['cpu', 'nanoseconds'],
    period: 1_000_000,
    comments: ['one worker of four'],
    defaultSampleType: 'cpu',
  }),
  samples: [
    { stack: [frame('leaf', 7), frame('handler', 3), frame('main')], values: [3, 3_000_000] },
    { stack: [frame('handler', 3), frame('main')], values: [1, 1_000_000] },
    // The same function at another line is another location of one function.
    { stack: [frame('leaf', 9), frame('main')], values: [2, 2_000_000] },
  ],
};

void test('what is encoded decodes to the same profile, gzip\'d or not', () => {
  const bytes = encodePprof(cpu);
  assert.equal(bytes[0], 0x1f);
  assert.equal(bytes[1], 0x8b);
  assert.deepEqual(decodePprof(bytes), cpu);
  assert.deepEqual(decodePprof(encodePprofProto(cpu)), cpu);
  assert.deepEqual(gunzipSync(bytes), Buffer.from(encodePprofProto(cpu)));
});

void test('interns strings, functions and locations once each', () => {
  const raw = Buffer.from(encodePprofProto(cpu));
  // Each function's name and file appears once in the string table, however many samples name it.
  assert.equal(raw.toString('latin1').split('/src/leaf.js').length - 1, 1);
  const many = { ...cpu, samples: Array.from({ length: 100 }, () => cpu.samples[0]!) };
  assert.ok(encodePprofProto(many).length < raw.length + 100 * 20);
});

void test('negative values survive (delta profiles), and large ones stay exact', () => {
  const before: PprofProfile = { ...emptyPprof([['inuse_objects', 'count'], ['inuse_space', 'bytes']], { timeNanos: 1_000_000_000 }), samples: [
    { stack: [frame('a')], values: [5, 5000] },
    { stack: [frame('b')], values: [1, 100] },
  ] };
  const after: PprofProfile = { ...before, timeNanos: 4_000_000_000, samples: [
    { stack: [frame('a')], values: [2, 2000] },
    { stack: [frame('b')], values: [1, 100] },
    { stack: [frame('c')], values: [1, 2 ** 40] },
  ] };
  const delta = pprofDelta(before, after);
  assert.equal(delta.durationNanos, 3_000_000_000);
  assert.deepEqual(delta.samples, [
    { stack: [frame('a')], values: [-3, -3000] },
    { stack: [frame('c')], values: [1, 2 ** 40] },
  ]);
  assert.deepEqual(decodePprof(encodePprof(delta)), delta);
});
