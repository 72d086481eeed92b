/**
 * The kapi-apiserver binary against an etcd that serves TLS and requires client certificates
 * (--etcd-cafile, --etcd-certfile, --etcd-keyfile), and what it says when they are wrong.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { freePort, startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { defaultApiserverBinary, insecureGet, startKapiServer } from './testing/kapi-server.js';

void describe('etcd over mutual TLS (kapi-apiserver --etcd-cafile/--etcd-certfile/--etcd-keyfile)', () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd({ tls: true });
  });
  after(async () => {
    await etcd?.stop();
  });

  void it('serves, stores in etcd and reports etcd healthy', async () => {
    const tls = etcd.tls!;
    const server = await startKapiServer({ etcdServers: etcd.endpoints, insecure: true, extraArgs: [`--etcd-cafile=${tls.caFile}`, `--etcd-certfile=${tls.certFile}`, `--etcd-keyfile=${tls.keyFile}`] });
    try {
      const ready = await insecureGet(`${server.insecureUrl}/readyz?verbose`);
      assert.equal(ready.status, 200, ready.body);
      assert.match(ready.body, /\[\+\]etcd ok/);
      const res = await fetch(`${server.insecureUrl}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-tls' } }),
      });
      assert.equal(res.status, 201);
      assert.equal((await insecureGet(`${server.insecureUrl}/api/v1/namespaces/default/configmaps/over-tls`)).status, 200);
    } finally {
      await server.stop();
    }
  });

  void it('fails the start with kube\'s texts for a missing file or a certificate without its key', async () => {
    const port = await freePort();
    const run = (args: string[]) => spawnSync(process.execPath, [defaultApiserverBinary, `--etcd-servers=${etcd.endpoints[0]}`, `--secure-port=${port}`, `--cert-dir=${etcd.tls!.dir}/certs`, ...args], { encoding: 'utf8', timeout: 30_000 });
    const missing = run(['--etcd-cafile=/nonexistent/ca.crt']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /open \/nonexistent\/ca\.crt: no such file or directory/);
    const lone = run([`--etcd-cafile=${etcd.tls!.caFile}`, `--etcd-certfile=${etcd.tls!.certFile}`]);
    assert.equal(lone.status, 1);
    assert.match(lone.stderr, /KeyFile and CertFile must both be present\[key: , cert: .*client\.crt\]/);
  });
});
