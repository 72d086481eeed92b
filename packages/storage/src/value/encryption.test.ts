/**
 * Encryption at rest against values kube-apiserver v1.32.13 wrote (testdata/kube-encrypted.json:
 * a Secret under aescbc, a ConfigMap under aesgcm, a Lease under secretbox), and kapi's own
 * writes read back under kube's rules: first provider writes, every provider reads, stale
 * reads, authenticated keys, wrong keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { decodeStoredObject } from '../etcd/kube-codec.js';
import { encryptionProviders, EncryptionConfigError } from './encryption-config.js';
import { identityTransformer } from './transformer.js';

const fixture = JSON.parse(readFileSync(new URL('../../src/value/testdata/kube-encrypted.json', import.meta.url), 'utf8')) as {
  config: string;
  values: { key: string; stored: string }[];
};
const providers = encryptionProviders(jsYaml.load(fixture.config));
const resourceOf = (key: string) => {
  const plural = key.split('/')[2]!;
  return { group: plural === 'leases' ? 'coordination.k8s.io' : '', resource: plural };
};

void test("values kube-apiserver encrypted decrypt and decode (aescbc, aesgcm, secretbox)", () => {
  const prefixes: string[] = [];
  for (const { key, stored } of fixture.values) {
    const bytes = Buffer.from(stored, 'base64');
    prefixes.push(bytes.subarray(0, bytes.indexOf(':', 'k8s:enc:'.length + 1) + 1).toString());
    const opened = providers.transformerFor(resourceOf(key)).fromStorage(bytes, key);
    assert.equal(opened.stale, false);
    const obj = decodeStoredObject(opened.data, key);
    assert.equal(obj.metadata.name, key.split('/').pop());
  }
  assert.deepEqual(prefixes, ['k8s:enc:aescbc:', 'k8s:enc:aesgcm:', 'k8s:enc:secretbox:']);
  const secret = decodeStoredObject(providers.transformerFor(resourceOf(fixture.values[0]!.key)).fromStorage(Buffer.from(fixture.values[0]!.stored, 'base64'), fixture.values[0]!.key).data, 'k');
  assert.deepEqual(secret['data'], { a: 'Yg==' });
});

void test('AES-GCM binds the etcd key: a value moved to another key does not decrypt', () => {
  const { key, stored } = fixture.values[1]!;
  const moved = '/registry/configmaps/default/other';
  assert.throws(() => providers.transformerFor(resourceOf(moved)).fromStorage(Buffer.from(stored, 'base64'), moved), { message: 'cipher: message authentication failed' });
  assert.ok(providers.transformerFor(resourceOf(key)).fromStorage(Buffer.from(stored, 'base64'), key));
});

void test('kapi writes with the first provider and its first key; the older key reads, marked stale', () => {
  const k = (n: number) => Buffer.alloc(32, n).toString('base64');
  const config = (first: string, second: string) => ({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [{ resources: ['secrets', '*.apps'], providers: [{ aesgcm: { keys: [{ name: first, secret: first === 'new' ? k(2) : k(1) }, { name: second, secret: second === 'new' ? k(2) : k(1) }] } }, { identity: {} }] }],
  });
  const key = '/registry/secrets/ns/s';
  const old = encryptionProviders(config('old', 'new')).transformerFor({ group: '', resource: 'secrets' });
  const rotated = encryptionProviders(config('new', 'old')).transformerFor({ group: '', resource: 'secrets' });
  const written = old.toStorage(Buffer.from('{"metadata":{}}'), key);
  assert.equal(written.subarray(0, 'k8s:enc:aesgcm:v1:old:'.length).toString(), 'k8s:enc:aesgcm:v1:old:');
  assert.deepEqual(old.fromStorage(written, key), { data: Buffer.from('{"metadata":{}}'), stale: false });
  assert.deepEqual(rotated.fromStorage(written, key), { data: Buffer.from('{"metadata":{}}'), stale: true });
  // Plain values (written before encryption) read through identity, stale too.
  assert.deepEqual(rotated.fromStorage(Buffer.from('{"metadata":{}}'), key), { data: Buffer.from('{"metadata":{}}'), stale: true });
  // Wildcards: *.apps matches deployments.apps; other resources stay plain.
  const apps = encryptionProviders(config('new', 'old')).transformerFor({ group: 'apps', resource: 'deployments' });
  assert.match(apps.toStorage(Buffer.from('x'), '/registry/deployments/a/b').toString('latin1'), /^k8s:enc:aesgcm:v1:new:/);
  assert.equal(encryptionProviders(config('new', 'old')).transformerFor({ group: '', resource: 'configmaps' }), identityTransformer);
  // An unknown key name: kube's message.
  const other = encryptionProviders({ ...config('x', 'y'), resources: [{ resources: ['secrets'], providers: [{ aesgcm: { keys: [{ name: 'x', secret: k(3) }] } }] }] });
  assert.throws(() => other.transformerFor({ group: '', resource: 'secrets' }).fromStorage(written, key), { message: 'no matching key was found for the provided AES transformer' });
  assert.throws(() => identityTransformer.fromStorage(written, key), { message: 'identity transformer tried to read encrypted data' });
});

void test('aescbc and secretbox round trip; configurations kube refuses are startup errors', () => {
  const key32 = Buffer.alloc(32, 7).toString('base64');
  for (const provider of ['aescbc', 'secretbox', 'aesgcm']) {
    const t = encryptionProviders({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['*.*'], providers: [{ [provider]: { keys: [{ name: 'k', secret: key32 }] } }] }] }).transformerFor({ group: 'example.com', resource: 'widgets' });
    for (const size of [0, 1, 15, 16, 17, 1000]) {
      const data = Buffer.alloc(size, 'a');
      const stored = t.toStorage(data, '/registry/example.com/widgets/w');
      assert.ok(stored.toString('latin1').startsWith(`k8s:enc:${provider}:v1:k:`));
      assert.deepEqual(t.fromStorage(stored, '/registry/example.com/widgets/w').data, data);
    }
  }
  const bad = (providers: unknown[]) => () => encryptionProviders({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers }] });
  assert.throws(bad([{ kms: { name: 'x', endpoint: 'unix:///x' } }]), EncryptionConfigError);
  assert.throws(bad([{ secretbox: { keys: [{ name: 'k', secret: Buffer.alloc(16).toString('base64') }] } }]), { message: 'expected key size 32 for secretbox provider, got 16' });
  assert.throws(bad([{ aescbc: { keys: [] } }]), { message: 'aes provider has no valid keys' });
  assert.throws(bad([{}]), /provider does not contain any of the expected providers/);
  assert.throws(() => encryptionProviders({ apiVersion: 'v1', kind: 'EncryptionConfiguration' }), EncryptionConfigError);
});
