/**
 * --tracing-config-file on the real binary: a valid TracingConfiguration starts the SDK (the
 * server serves normally even when the collector is unreachable); an invalid one stops the
 * process with kube-like messages and exit code 1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { defaultApiserverBinary } from '@kapi/apiserver/testing';
import { http, isResult, spawnServer } from './process.js';

void describe('--tracing-config-file', () => {
  let etcd: TestEtcd;
  let dir: string;
  before(async () => {
    etcd = await startEtcd();
    dir = mkdtempSync(join(tmpdir(), 'kapi-tracing-'));
  });
  after(async () => {
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('starts with a valid configuration and keeps serving with no collector listening', async () => {
    const file = join(dir, 'tracing.yaml');
    writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:${await freePort()}\nsamplingRatePerMillion: 1000000\n`);
    const server = await spawnServer(etcd.endpoints, [`--tracing-config-file=${file}`]);
    try {
      const res = await http(`${server.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', body: { metadata: { name: 'traced' } } });
      assert.ok(isResult(res) && res.status === 201, JSON.stringify(res));
      assert.match(server.output(), /"msg":"tracing enabled"/);
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    } finally {
      await server.cleanup();
    }
  });

  void it('refuses an invalid configuration with exit code 1', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -5\n');
    const run = spawnSync(process.execPath, [defaultApiserverBinary, `--etcd-servers=${etcd.endpoints.join(',')}`, `--tracing-config-file=${bad}`], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /samplingRatePerMillion: Invalid value: -5: sampling rate must be positive/);
    const missing = spawnSync(process.execPath, [defaultApiserverBinary, `--etcd-servers=${etcd.endpoints.join(',')}`, `--tracing-config-file=${join(dir, 'nope.yaml')}`], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /failed to read tracing configuration from/);
  });
});
