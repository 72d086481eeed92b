import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { decodePprof } from '@kapi/machinery';

/** A 1 s CPU profile of kube-apiserver v1.32.13 serving client-go creates (4 goroutines, loaded machine). */
const fixture = readFileSync(new URL('../testdata/kube-apiserver-create.pprof.gz', import.meta.url));

void test('decodes a CPU profile served by kube-apiserver', () => {
  const profile = decodePprof(fixture);
  assert.deepEqual(profile.sampleTypes, [
    ['samples', 'count'],
    ['cpu', 'nanoseconds'],
  ]);
  // As `go tool pprof -raw` reads the same file: 18 samples of 10 ms over 1.01 s.
  assert.equal(profile.samples.length, 18);
  assert.equal(profile.period, 10_000_000);
  assert.equal(profile.durationNanos, 1_014_672_474);
  assert.equal(
    profile.samples.reduce((t, s) => t + s.values[1]!, 0),
    180_000_000,
  );
  // The first sample, innermost frame first, inlined frames included.
  const first = profile.samples[0]!.stack;
  assert.equal(first.length, 25);
  assert.deepEqual(first[0], { function: 'context.parentCancelCtx', file: 'context/context.go', line: first[0]!.line });
  assert.ok(first[0]!.line > 0);
  assert.equal(first[16]!.function, 'k8s.io/apiserver/pkg/storage/etcd3.(*store).Create');
  assert.match(first[16]!.file, /^k8s\.io\/apiserver@v0\.32\.13\/pkg\/storage\/etcd3\/store\.go$/);
  assert.equal(first[24]!.function, 'k8s.io/apiserver/pkg/endpoints/handlers/finisher.finishRequest.func1');
});

void test('reads an uncompressed profile the same, and rejects truncated ones', () => {
  const plain = gunzipSync(fixture);
  assert.deepEqual(decodePprof(plain), decodePprof(fixture));
  assert.throws(() => decodePprof(plain.subarray(0, plain.length - 3)), /pprof: field runs past its message/);
  // duration_nanos (field 10, a varint) whose last byte is missing.
  assert.throws(() => decodePprof(Buffer.concat([plain, Buffer.from([0x50, 0x80])])), /pprof: truncated varint/);
});
