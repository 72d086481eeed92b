import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleWeightCap, summarizeProfile, type CpuProfile } from './profile-stages.js';
import { parseProfileOptions, variantName } from './profile-command.js';

/** A profile from stacks (outermost first, each frame `function@url`) with one sample of `us` each. */
function profileOf(samples: { stack: string[]; us: number }[]): CpuProfile {
  const nodes: CpuProfile['nodes'] = [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [] }];
  const ids: number[] = [];
  for (const { stack } of samples) {
    let parent = nodes[0]!;
    for (const frame of stack) {
      const at = frame.indexOf('@');
      const [functionName, url] = at < 0 ? [frame, undefined] : [frame.slice(0, at), frame.slice(at + 1)];
      let child = (parent.children ?? []).map((id) => nodes[id - 1]!).find((n) => n.callFrame.functionName === functionName && n.callFrame.url === (url ?? ''));
      if (child === undefined) {
        child = { id: nodes.length + 1, callFrame: { functionName, url: url ?? '', lineNumber: 0, columnNumber: 0 }, children: [] };
        nodes.push(child);
        parent.children!.push(child.id);
      }
      parent = child;
    }
    ids.push(parent.id);
  }
  // A sample's time is the next delta; the first delta is the profile's start.
  return { nodes, startTime: 0, endTime: 1, samples: ids, timeDeltas: [0, ...samples.map((s) => s.us)] };
}

const handler = 'handleCreate@file:///k/packages/apiserver/dist/handlers/write.js';
const grpc = 'makeUnaryRequest@file:///k/node_modules/@grpc/grpc-js/build/src/client.js';

void test('samples go to the innermost named stage; node layers under the etcd client are the etcd client', () => {
  const summary = summarizeProfile(
    profileOf([
      { stack: [handler, 'decodeEnveloped@file:///k/packages/machinery/dist/protobuf/object-codec.js', 'slice@node:buffer'], us: 300 },
      { stack: [handler, 'end@node:internal/http2/compat', 'writeGeneric@node:internal/stream_base_commons'], us: 200 },
      { stack: [handler, grpc, 'request@node:internal/http2/core', 'deprecate@node:internal/util'], us: 150 },
      { stack: [handler], us: 100 },
      { stack: ['(garbage collector)'], us: 50 },
      { stack: ['(idle)'], us: 10_000 },
      { stack: ['(program)'], us: 25 },
      { stack: ['onSessionHeaders@node:internal/http2/core', 'Duplex@node:internal/streams/duplex'], us: 40 },
      { stack: ['onSessionHeaders@node:internal/http2/core', 'onServerStream@node:internal/http2/compat', 'Http2ServerRequest@node:internal/http2/compat', 'Readable@node:internal/streams/readable'], us: 30 },
    ]),
  );
  assert.equal(summary.busyMs, 0.895);
  assert.deepEqual(
    summary.stages.map((s) => [s.stage, s.ms]),
    [
      ['protobuf codec', 0.3],
      ['HTTP/2 compat layer', 0.23],
      ['etcd client', 0.15],
      ['apiserver (routing, handlers, encode)', 0.1],
      ['GC', 0.05],
      ['HTTP/2', 0.04],
      ['other (native, program, unmatched)', 0.025],
    ],
  );
  assert.deepEqual(summary.topFunctions[0], { name: 'slice', where: 'node:buffer:1', ms: 0.3 });
});

void test('profile options', () => {
  const o = parseProfileOptions(['--variants=get/json/h1,create/protobuf/h2', '--rounds', '3', '--cpu-profile', '--out', '/x'], '/out');
  assert.deepEqual([o.variants.map(variantName), o.rounds, o.cpuProfile, o.outDir, o.servers], [['get/json/h1', 'create/protobuf/h2'], 3, true, '/x', ['kapi']]);
  assert.match(parseProfileOptions([], '/out').outDir, /^\/out\/profile-/);
  assert.throws(() => parseProfileOptions(['--variants=list/json/h1'], '/out'), /is not MODE\/CODEC\/HTTP/);
  const both = parseProfileOptions(['--server', 'kapi,kube-apiserver,kapi', '--cpu-profile'], '/out');
  assert.deepEqual([both.servers, both.cpuProfile], [['kapi', 'kube-apiserver'], true]);
  assert.deepEqual(parseProfileOptions(['--server=kube-apiserver', '--cpu-profile'], '/out').servers, ['kube-apiserver']);
  assert.throws(() => parseProfileOptions(['--server=kapi,kube'], '/out'), /--server takes kapi and\/or kube-apiserver, not kube/);
  assert.throws(() => parseProfileOptions(['--server'], '/out'), /--server needs a value/);
  assert.equal(parseProfileOptions([], '/out').kapiProfiler, 'pprof');
  assert.equal(parseProfileOptions(['--kapi-profiler=inspector'], '/out').kapiProfiler, 'inspector');
  assert.throws(() => parseProfileOptions(['--kapi-profiler=perf'], '/out'), /--kapi-profiler takes pprof or inspector, not perf/);
});

void test('profile options: connections and workers', () => {
  const o = parseProfileOptions(['--clients', '4', '--workers=2'], '/out');
  assert.deepEqual([o.clients, o.workers], [4, 2]);
  const d = parseProfileOptions([], '/out');
  assert.deepEqual([d.clients, d.workers], [1, 1]);
  assert.throws(() => parseProfileOptions(['--workers=2', '--cpu-profile'], '/out'), /--cpu-profile needs --workers 1/);
  assert.throws(() => parseProfileOptions(['--server=kube-apiserver', '--workers=2'], '/out'), /--workers is for --server kapi/);
});

void test('a sample stands for at most four median sample gaps (a descheduled process does not make one frame a stage)', () => {
  assert.equal(sampleWeightCap([0, 250, 240, 260, 250, 400_000]), 1000);
  assert.equal(sampleWeightCap([]), Infinity);
  const samples = Array.from({ length: 20 }, () => ({ stack: [handler], us: 250 }));
  samples.push({ stack: [handler, 'decodeEnveloped@file:///k/packages/machinery/dist/protobuf/object-codec.js'], us: 400_000 });
  samples.push({ stack: [handler], us: 250 });
  const summary = summarizeProfile(profileOf(samples));
  const protobuf = summary.stages.find((s) => s.stage === 'protobuf codec')!.ms;
  assert.equal(protobuf, 1, 'capped at 4 × 250 µs');
});
