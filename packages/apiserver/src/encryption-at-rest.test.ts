/**
 * --encryption-provider-config end to end in one process: Secrets stored with kube's envelope
 * under the first provider's first key, other resources as they are; after a key rotation a
 * replica with the new key first reads old values and an unchanged update (`kubectl replace`
 * of what it read) rewrites them with the new key, while a replica without the new key
 * answers kube's error; configurations kube refuses stop the server at start.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEtcdClient } from '@kapi/storage';
import { uniquePrefix } from '@kapi/storage/testing';
import { startApiServer, type RunningServer } from './main.js';
import { silentLogger } from './logger.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');
const config = (keys: { name: string; secret: string }[]) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aesgcm:
      keys:
${keys.map((k) => `      - {name: ${k.name}, secret: ${k.secret}}`).join('\n')}
  - identity: {}
`;

void describe('encryption at rest', () => {
  let dir: string;
  let t: TestServer;
  let rotated: RunningServer | undefined;
  const prefix = uniquePrefix('encryption');
  const stored = async (etcdKey: string): Promise<string> => {
    const client = createEtcdClient(t.etcd.endpoints);
    try {
      return ((await client.get(etcdKey).buffer()) ?? Buffer.alloc(0)).toString('latin1');
    } finally {
      client.close();
    }
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-encryption-'));
    writeFileSync(join(dir, 'old.yaml'), config([{ name: 'old', secret: key(1) }]));
    writeFileSync(join(dir, 'rotated.yaml'), config([{ name: 'new', secret: key(2) }, { name: 'old', secret: key(1) }]));
    t = await startTestServer({ etcdPrefix: prefix, encryptionProviderConfig: join(dir, 'old.yaml') });
  });
  after(async () => {
    await rotated?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('stores Secrets under the first key with kube’s envelope, other resources as protobuf', async () => {
    assert.equal((await t.request('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'YQ==' } } })).status, 201);
    assert.equal((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } } })).status, 201);
    assert.match(await stored(`${prefix}/secrets/default/s`), /^k8s:enc:aesgcm:v1:old:/);
    assert.match(await stored(`${prefix}/configmaps/default/c`), /^k8s\0/);
    assert.deepEqual((await t.request('GET', '/api/v1/namespaces/default/secrets/s')).json['data'], { a: 'YQ==' });
  });

  void it('after a rotation, an unchanged update rewrites a Secret with the new key', async () => {
    rotated = await startApiServer({ etcdServers: t.etcd.endpoints, etcdPrefix: prefix, securePort: null, insecurePort: 0, logger: silentLogger, encryptionProviderConfig: join(dir, 'rotated.yaml') });
    const url = rotated.insecureUrl!;
    const current = (await (await fetch(`${url}/api/v1/namespaces/default/secrets/s`)).json()) as Record<string, unknown>;
    assert.deepEqual(current['data'], { a: 'YQ==' });
    const replaced = await fetch(`${url}/api/v1/namespaces/default/secrets/s`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(current) });
    assert.equal(replaced.status, 200);
    const after = (await replaced.json()) as { metadata: { resourceVersion: string } };
    assert.notEqual(after.metadata.resourceVersion, (current['metadata'] as { resourceVersion: string }).resourceVersion, 'the unchanged object was written again');
    assert.match(await stored(`${prefix}/secrets/default/s`), /^k8s:enc:aesgcm:v1:new:/);
    // A replica that does not have the new key: kube's error, for that object only.
    const old = await t.request('GET', '/api/v1/namespaces/default/secrets/s');
    assert.equal(old.status, 500);
    assert.equal(old.json['message'], 'Internal error occurred: no matching key was found for the provided AES transformer');
    assert.equal((await t.request('GET', '/api/v1/namespaces/default/configmaps/c')).status, 200);
    // A second unchanged update is a no-op again.
    const again = await fetch(`${url}/api/v1/namespaces/default/secrets/s`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(after) });
    assert.equal(((await again.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, after.metadata.resourceVersion);
  });

  void it('refuses configurations kube refuses, before serving', async () => {
    writeFileSync(join(dir, 'kms.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - kms: {name: x, endpoint: "unix:///x.sock"}\n');
    await assert.rejects(startApiServer({ etcdServers: t.etcd.endpoints, etcdPrefix: prefix, securePort: null, insecurePort: 0, logger: silentLogger, encryptionProviderConfig: join(dir, 'kms.yaml') }), /kms providers are not supported by kapi/);
    await assert.rejects(startApiServer({ etcdServers: t.etcd.endpoints, etcdPrefix: prefix, securePort: null, insecurePort: 0, logger: silentLogger, encryptionProviderConfig: join(dir, 'missing.yaml') }), /error opening encryption provider configuration file/);
  });
});
