// The suite itself, run end to end at tiny sizes: every scenario must run against a real
// server and etcd without a single failed operation, and the report must show each one.
// Not a performance test — no figure is compared with anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKapiServer, writeKubeconfig } from '@kapi/apiserver/testing';
import { startEtcd } from '@kapi/storage/testing';
import { parseSuiteOptions } from './options.js';
import { writeReports } from './report.js';
import { runSuite, type SuiteResult } from './suite.js';
import { kubeApiserverBinary } from './kube-server.js';
import { runSideBySide, sideBySideRows } from './side-by-side.js';

const tiny = [
  '--quick', '--no-pin',
  '--concurrency', '4', '--object-sizes', '256,2048', '--duration', '0.5', '--warmup', '0.2',
  '--list-objects', '300', '--scenario-duration', '0.5',
  '--watchers', '20', '--fanout-rates', '20', '--selector-rate', '20',
  '--memory-objects', '300', '--restart-objects', '300', '--restart-informers', '5',
  '--mixed-duration', '2', '--large-objects', '3', '--large-concurrency', '2', '--replica-reads', '5',
  '--admission-concurrency', '2',
];

function describeErrors(result: SuiteResult): string {
  return JSON.stringify({ steps: result.steps.filter((s) => s.errors > 0), restart: result.restart?.errors, mixed: result.mixed?.errors, large: result.large?.errors, fanout: result.fanout?.errors, memory: result.memory?.errors, replicas: result.replicas?.errors });
}

void test('kapi-bench suite runs every default scenario (S1–S9) against a server it starts, without errors, and reports each', { timeout: 240_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'kapi-bench-suite-'));
  try {
    const options = parseSuiteOptions([...tiny, '--out', out], out);
    const result = await runSuite(options);
    assert.equal(result.totalErrors, 0, describeErrors(result));

    // S1/S2 at both sizes, for kapi and the raw-etcd baselines.
    for (const op of ['create', 'get']) {
      for (const size of [256, 2048]) {
        const step = result.steps.find((s) => s.target === 'kapi' && s.operation === op && s.objectBytes === size);
        assert.ok(step !== undefined && step.ops > 0, `kapi ${op} at ${size} B ran`);
      }
    }
    assert.ok(result.steps.some((s) => s.target === 'etcd' && s.operation === 'create-txn' && s.ops > 0));
    // The Go create baseline ran, writing values as large as the ConfigMap kapi stored (data + metadata), or says why not.
    const goTxn = result.steps.find((s) => s.target === 'etcd-go' && s.objectBytes === 256);
    assert.ok((goTxn !== undefined && goTxn.ops > 0 && goTxn.valueBytes! > 256) || result.skipped!.some((s) => s.startsWith('crud, raw etcd from Go')), JSON.stringify(goTxn ?? result.skipped));
    assert.ok((result.lists?.steps ?? []).some((s) => s.source === 'kapi-cache' && s.items >= 300));
    assert.ok((result.fanout?.steps ?? []).some((s) => s.writes > 0 && s.missingDeliveries === 0));
    assert.ok(result.memory !== undefined && result.restart !== undefined && result.mixed !== undefined);
    assert.ok(result.large !== undefined && result.replicas !== undefined);
    assert.ok(result.mixed.writes > 0);
    assert.ok(result.admission !== undefined && result.admission.policyEnforced && result.admission.steps.every((s) => s.ops > 0), JSON.stringify(result.admission));

    const files = writeReports(result, out);
    const markdown = readFileSync(files.markdown, 'utf8');
    for (const section of ['S1/S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'S8', 'S9', 'admission']) assert.match(markdown, new RegExp(`## ${section.replace('/', '\\/')}`), section);
    assert.match(markdown, /## Errors\n\nNone\./);
    assert.equal((JSON.parse(readFileSync(files.json, 'utf8')) as SuiteResult).totalErrors, 0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

void test('kapi-bench suite targets any server through a kubeconfig (TLS) and skips what needs control of the server', { timeout: 120_000 }, async () => {
  const etcd = await startEtcd();
  const server = await startKapiServer({ etcdServers: etcd.endpoints }).catch(async (err: unknown) => {
    await etcd.stop();
    throw err;
  });
  const out = mkdtempSync(join(tmpdir(), 'kapi-bench-kubeconfig-'));
  try {
    const kubeconfig = join(out, 'kubeconfig');
    writeKubeconfig(kubeconfig, { server: server.url, certificateAuthority: server.caFile });
    const options = parseSuiteOptions([...tiny, '--scenarios', 'crud,list,restart', '--kubeconfig', kubeconfig, '--out', out], out);
    const result = await runSuite(options);
    assert.equal(result.totalErrors, 0, describeErrors(result));
    assert.equal(result.target.url.replace(/\/$/, ''), server.url);
    assert.equal(result.target.startedBySuite, false);
    assert.ok(result.steps.some((s) => s.target === 'kapi' && s.operation === 'create' && s.ops > 0));
    assert.ok((result.lists?.steps ?? []).some((s) => s.source === 'kapi-cache' && s.ops > 0));
    assert.equal(result.restart, undefined);
    assert.ok(result.skipped?.some((s) => s.startsWith('restart: need control of the server')), JSON.stringify(result.skipped));
  } finally {
    rmSync(out, { recursive: true, force: true });
    await server.stop();
    await etcd.stop();
  }
});

const kubeBinary = kubeApiserverBinary();

void test('kapi-bench side by side runs crud against kapi and kube-apiserver, each on its own etcd, and compares them', {
  timeout: 180_000,
  skip: existsSync(kubeBinary) ? false : `no kube-apiserver at ${kubeBinary} (e2e/control-plane/build-binaries.sh kube-apiserver builds it)`,
}, async () => {
  const out = mkdtempSync(join(tmpdir(), 'kapi-bench-side-'));
  try {
    const options = parseSuiteOptions([...tiny, '--scenarios', 'crud', '--object-sizes', '256', '--against', 'kapi,kube', '--repetitions', '1', '--out', out], out);
    const result = await runSideBySide(options);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.runs.map((r) => r.error ?? (r.result ? describeErrors(r.result) : ''))));
    assert.deepEqual(result.runs.map((r) => r.server), ['kapi', 'kube-apiserver']);
    const create = sideBySideRows(result).find((r) => r[0] === 'S1/S2 create ConfigMap 256 B, 4 clients');
    assert.ok(create !== undefined, 'a create row');
    // Both servers measured, a ratio, raw etcd, and server CPU per create for each.
    for (const cell of [create[2], create[3], create[4], create[5], create[6], create[7]]) assert.match(cell!, /^[0-9]/, create.join(' | '));
    assert.match(result.kubeVersion ?? '', /v1\.32\./);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
