import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePprof, emptyPprof, encodePprof, type PprofProfile } from '@kapi/machinery';
import { kapiPprofFlameStacks, summarizeKapiPprof } from './kapi-pprof-stages.js';

/** Frames `function@file`, outermost first as written, stored innermost first as pprof keeps them. */
const stack = (...frames: string[]) =>
  frames
    .map((f) => {
      const at = f.indexOf('@');
      return at < 0 ? { function: f, file: '', line: 0 } : { function: f.slice(0, at), file: f.slice(at + 1), line: 3 };
    })
    .reverse();

const handler = 'handleCreate@/k/packages/apiserver/dist/handlers/write.js';

void test("kapi's served CPU profile splits into the V8 stages, by CPU time", () => {
  const profile: PprofProfile = {
    ...emptyPprof([['samples', 'count'], ['cpu', 'nanoseconds']], { periodType: ['cpu', 'nanoseconds'], period: 1e6 }),
    samples: [
      { stack: stack(handler, 'decodeEnveloped@/k/packages/machinery/dist/protobuf/object-codec.js', 'slice@node:buffer'), values: [3, 3e6] },
      { stack: stack(handler, 'makeUnaryRequest@/k/node_modules/@grpc/grpc-js/build/src/client.js', 'request@node:internal/http2/core'), values: [2, 2e6] },
      { stack: stack('(garbage collector)'), values: [1, 1e6] },
    ],
  };
  // As served: through the pprof wire format and back.
  const served = decodePprof(encodePprof(profile));
  const summary = summarizeKapiPprof(served);
  assert.equal(summary.busyMs, 6);
  assert.deepEqual(summary.stages.map((s) => [s.stage, s.ms]), [['protobuf codec', 3], ['etcd client', 2], ['GC', 1]]);
  assert.deepEqual(summary.topFunctions[0], { name: 'slice', where: 'node:buffer:3', ms: 3 });
  const stacks = kapiPprofFlameStacks(served);
  assert.deepEqual(stacks[0], {
    frames: [{ name: 'handleCreate', detail: 'packages/apiserver/dist/handlers/write.js:3' }, { name: 'decodeEnveloped', detail: 'packages/machinery/dist/protobuf/object-codec.js:3' }, { name: 'slice', detail: 'node:buffer:3' }],
    weight: 3,
  });
  assert.throws(() => summarizeKapiPprof(emptyPprof([['inuse_space', 'bytes']])), /not a CPU profile/);
});
