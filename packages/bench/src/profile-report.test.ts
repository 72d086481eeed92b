import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProfileOptions, type ProfiledRun, type ProfileResult, type ProfileRun } from './profile-command.js';
import { layers, profileReport, stageComparison } from './profile-report.js';
import { Stage } from './profile-stages.js';

const run = (server: ProfileRun['server'], serverCpuMsPerOp: number): ProfileRun => ({ server, variant: 'create/protobuf/h2', round: 1, ops: 1000, opsPerSecond: 100, p50: 1, p99: 2, errors: 0, serverCpuMsPerOp });
const profiled = (server: ProfiledRun['server'], stages: [string, number][]): ProfiledRun => ({
  server,
  variant: 'create/protobuf/h2',
  file: `/out/${server}-create-protobuf-h2.x`,
  flameGraph: `/out/${server}-create-protobuf-h2.svg`,
  ops: 100,
  summary: { busyMs: stages.reduce((t, [, ms]) => t + ms, 0), stages: stages.map(([stage, ms]) => ({ stage, ms })), topFunctions: [{ name: 'a|b', where: 'x.go:1', ms: 10 }] },
});

void test("stages side by side: each profile's shares of the unprofiled median CPU per op", () => {
  const result: ProfileResult = {
    options: parseProfileOptions(['--server=kapi,kube-apiserver', '--variants=create/protobuf/h2', '--cpu-profile'], '/out'),
    // kapi's median is 1.2 ms per op, kube's 0.8.
    runs: [run('kapi', 1.0), run('kapi', 1.4), run('kube-apiserver', 0.8)],
    profiles: [
      profiled('kapi', [
        ['etcd client', 60],
        ['GC', 40],
        ['protobuf codec', 20],
      ]),
      profiled('kube-apiserver', [
        ['etcd client', 40],
        ['allocation (Go malloc)', 40],
      ]),
    ],
    loadAverages: [3.5, 4.25],
  };
  assert.deepEqual(
    stageComparison(result, 'create/protobuf/h2')!.map((r) => [r.stage, r.kapi.toFixed(2), r.kube.toFixed(2)]),
    [
      ['etcd client', '0.60', '0.40'],
      ['GC', '0.40', '0.00'],
      ['allocation (Go malloc)', '0.00', '0.40'],
      ['protobuf codec', '0.20', '0.00'],
    ],
  );
  assert.equal(stageComparison(result, 'get/protobuf/h2'), undefined);
  const report = profileReport(result);
  assert.match(report, /load average \(1 min\) after each run: 3\.5–4\.3/);
  assert.match(report, /\| etcd client \| 0\.600 \| 0\.400 \| \+0\.200 \|/);
  // By layer: GC and Go's allocator are one row.
  assert.match(report, /### create\/protobuf\/h2 by layer\n\n\| layer [^\n]*\n[^\n]*\n\| etcd client \| 0\.600 \| 0\.400 \| \+0\.200 \|\n\| transport: HTTP\/2, HTTP\/1\.1, TLS, sockets \| — \| — \| \+0\.000 \|\n\| protobuf codec, body \| 0\.200 \| — \| \+0\.200 \|/);
  assert.match(report, /\| memory: GC, Go's allocator \| 0\.400 \| 0\.400 \| \+0\.000 \|/);
  assert.match(report, /\| allocation \(Go malloc\) \| — \| 0\.400 \| -0\.400 \|/);
  assert.match(report, /\| \*\*total\*\* \| 1\.200 \| 0\.800 \| \+0\.400 \|/);
  assert.match(report, /Flame graphs: \[create\/protobuf\/h2\]\(kube-apiserver-create-protobuf-h2\.svg\)/);
  assert.match(report, /\| a\\\|b \| x\.go:1 \| 0\.1000 \|/);
});

void test('every stage is in exactly one layer', () => {
  const placed = layers.flatMap((l) => l.stages);
  assert.deepEqual([...placed].sort(), Object.values(Stage).sort());
});
