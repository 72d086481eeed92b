import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type TestEtcd } from '../testing/start-etcd.js';
import { uniquePrefix } from '../testing/unique-prefix.js';
import { createEtcdClient, etcdCredentials } from './client.js';
import { createEtcdStorage } from './etcd-storage.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: 'b' } });

void describe('etcd over mutual TLS (--etcd-cafile/--etcd-certfile/--etcd-keyfile)', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let otherCa: string;
  before(async () => {
    etcd = await startEtcd({ tls: true });
    otherCa = mkdtempSync(join(tmpdir(), 'kapi-other-ca-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=other'], { cwd: otherCa, stdio: 'ignore' });
  });
  after(async () => {
    await etcd.stop();
    rmSync(otherCa, { recursive: true, force: true });
  });

  void test('the test etcd serves https only and its files are removed by stop', () => {
    assert.match(etcd.endpoints[0]!, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(etcd.tls !== undefined && existsSync(etcd.tls.caFile) && existsSync(etcd.tls.certFile));
  });

  void test('storage with the CA and a client certificate writes and reads', async () => {
    const storage = createEtcdStorage({ endpoints: etcd.endpoints, tls: etcd.tls!, requestTimeoutMs: 5000 });
    try {
      const key = `${uniquePrefix()}/configmaps/default/a`;
      const created = await storage.create(key, cm('a'));
      const got = await storage.get(key);
      assert.equal(got?.metadata.resourceVersion, created.metadata.resourceVersion);
    } finally {
      await storage.close();
    }
  });

  void test('without a client certificate etcd refuses the connection', async () => {
    const client = createEtcdClient(etcd.endpoints, { tls: { caFile: etcd.tls!.caFile }, dialTimeoutMs: 2000 });
    try {
      await assert.rejects(client.get('x').string(), /bad certificate|certificate required/);
    } finally {
      client.close();
    }
  });

  void test('a server certificate from another CA is not trusted', async () => {
    const client = createEtcdClient(etcd.endpoints, { tls: { caFile: join(otherCa, 'ca.crt'), certFile: etcd.tls!.certFile, keyFile: etcd.tls!.keyFile }, dialTimeoutMs: 2000 });
    try {
      await assert.rejects(client.get('x').string(), /certificate/i);
    } finally {
      client.close();
    }
  });

  void test('plaintext gRPC to the TLS port fails', async () => {
    const client = createEtcdClient([etcd.endpoints[0]!.replace('https:', 'http:')], { dialTimeoutMs: 2000 });
    try {
      await assert.rejects(client.get('x').string());
    } finally {
      client.close();
    }
  });

  void test('file errors are reported as kube reports them', () => {
    assert.equal(etcdCredentials(undefined), undefined);
    assert.equal(etcdCredentials({ caFile: '', certFile: '', keyFile: '' }), undefined);
    assert.throws(() => etcdCredentials({ certFile: etcd.tls!.certFile }), { message: `KeyFile and CertFile must both be present[key: , cert: ${etcd.tls!.certFile}]` });
    assert.throws(() => etcdCredentials({ caFile: '/nonexistent/ca.crt' }), { message: 'open /nonexistent/ca.crt: no such file or directory' });
  });
});
