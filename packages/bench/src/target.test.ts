import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, loadKubeconfig, registerAuth } from './target.js';

function withDir(f: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-kubeconfig-'));
  try {
    f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const config = (users: string, current = 'a') => `apiVersion: v1
kind: Config
current-context: ${current}
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: ca.crt
    tls-server-name: kapi.local
- name: c2
  cluster:
    server: https://10.0.0.1
    certificate-authority-data: ${Buffer.from('CA2').toString('base64')}
    insecure-skip-tls-verify: true
contexts:
- name: a
  context: {cluster: c1, user: u1}
- name: b
  context: {cluster: c2, user: u2}
users:
${users}
`;

void test('a kubeconfig context resolves to the server, its CA (file relative to the kubeconfig), token and client certificate', () => {
  withDir((dir) => {
    writeFileSync(join(dir, 'ca.crt'), 'CA1');
    writeFileSync(join(dir, 'token'), 'file-token\n');
    const users = `- name: u1
  user: {tokenFile: token}
- name: u2
  user:
    client-certificate-data: ${Buffer.from('CERT').toString('base64')}
    client-key-data: ${Buffer.from('KEY').toString('base64')}`;
    writeFileSync(join(dir, 'config'), config(users));
    const a = loadKubeconfig(join(dir, 'config'));
    assert.equal(a.server, 'https://127.0.0.1:6443');
    assert.equal(a.context, 'a');
    assert.equal(a.auth.ca?.toString(), 'CA1');
    assert.equal(a.auth.token, 'file-token');
    assert.equal(a.auth.serverName, 'kapi.local');
    assert.equal(a.auth.insecure, undefined);
    const b = loadKubeconfig(join(dir, 'config'), 'b');
    assert.equal(b.server, 'https://10.0.0.1');
    assert.deepEqual([b.auth.ca?.toString(), b.auth.cert?.toString(), b.auth.key?.toString(), b.auth.insecure, b.auth.token], ['CA2', 'CERT', 'KEY', true, undefined]);
    registerAuth(a.server, a.auth);
    assert.deepEqual(authHeaders('https://127.0.0.1:6443/api/v1/pods'), { authorization: 'Bearer file-token' });
    assert.deepEqual(authHeaders('https://127.0.0.1:6444/'), {});
  });
});

void test('kubeconfig problems are one-line errors', () => {
  withDir((dir) => {
    writeFileSync(join(dir, 'ca.crt'), 'CA1');
    writeFileSync(join(dir, 'exec'), config(`- name: u1
  user:
    exec: {command: aws}`));
    assert.throws(() => loadKubeconfig(join(dir, 'exec')), /exec\/auth-provider plugin/);
    assert.throws(() => loadKubeconfig(join(dir, 'exec'), 'zz'), /context zz not found/);
    writeFileSync(join(dir, 'nocurrent'), config('- name: u1\n  user: {}', "''"));
    assert.throws(() => loadKubeconfig(join(dir, 'nocurrent')), /no current-context; pass --context/);
    assert.throws(() => loadKubeconfig(join(dir, 'missing')), /ENOENT/);
  });
});
