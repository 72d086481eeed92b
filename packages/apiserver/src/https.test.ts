import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { startApiServer, type RunningServer } from './main.js';

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

void describe('HTTPS with a generated self-signed certificate', () => {
  let etcd: TestEtcd;
  let certDir: string;
  let server: RunningServer;
  before(async () => {
    etcd = await startEtcd();
    certDir = mkdtempSync(join(tmpdir(), 'kapi-certs-'));
    server = await startApiServer({ etcdServers: etcd.endpoints, etcdPrefix: uniquePrefix(), securePort: 0, bindAddress: '127.0.0.1', certDir, logger: silentLogger });
  });
  after(async () => {
    await server.close();
    await etcd.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  void it('serves TLS with SANs for localhost and loopback, and reuses the pair', async () => {
    const cert = readFileSync(join(certDir, 'apiserver.crt'), 'utf8');
    assert.equal(cert, server.certificate);
    const x509 = new X509Certificate(cert);
    assert.match(x509.subjectAltName ?? '', /DNS:localhost/);
    assert.match(x509.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    const res = await get(`https://localhost:${server.securePort}/version`, cert);
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { major: string }).major, '1');
    const ns = await get(`${server.url}/api/v1/namespaces/default`, cert);
    assert.equal(ns.status, 200);

    const second = await startApiServer({ etcdServers: etcd.endpoints, etcdPrefix: uniquePrefix(), securePort: 0, bindAddress: '127.0.0.1', certDir, logger: silentLogger });
    try {
      assert.equal(second.certificate, cert);
    } finally {
      await second.close();
    }
  });
});
