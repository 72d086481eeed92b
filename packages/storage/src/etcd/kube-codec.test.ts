/**
 * kube's storage formats: protobuf for kinds with a message, JSON for the rest (custom
 * resources) or for everything with --storage-media-type=application/json, YAML likewise;
 * every format read back whatever the setting; values no format reads fail with `Corrupt`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { isStorageError } from '../errors.js';
import { decodeStoredObject, kubeStorageCodec } from './kube-codec.js';

const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', resourceVersion: '12', uid: 'u' }, data: { a: 'b' } };
const widget: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', resourceVersion: '3' }, spec: { size: 1 } };
const key = '/registry/x/ns/c';

void test('protobuf for built-ins, JSON for custom resources; no resourceVersion stored', () => {
  const codec = kubeStorageCodec();
  const stored = codec.encode(configMap);
  assert.equal(stored.subarray(0, 4).toString('latin1'), 'k8s\0');
  const { resourceVersion: _rv, ...metadata } = configMap.metadata;
  assert.deepEqual(decodeStoredObject(stored, key), { ...configMap, metadata });
  const cr = codec.encode(widget);
  assert.equal(cr.subarray(0, 1).toString(), '{');
  assert.equal((decodeStoredObject(cr, key).metadata as Record<string, unknown>)['resourceVersion'], undefined);
});

void test('JSON and YAML media types write every kind so, and all formats read back', () => {
  for (const [mediaType, first] of [['application/json', '{'], ['application/yaml', 'a']] as const) {
    const stored = kubeStorageCodec(mediaType).encode(configMap);
    assert.equal(stored.subarray(0, 1).toString(), first, mediaType);
    assert.equal(decodeStoredObject(stored, key).metadata.name, 'c');
  }
});

void test('values no format reads fail with Corrupt and the decoder’s message', () => {
  const corrupt = (bytes: Buffer) => {
    try {
      decodeStoredObject(bytes, key);
    } catch (err) {
      assert.ok(isStorageError(err, 'Corrupt'), String(err));
      return err.message;
    }
    assert.fail('decoded');
  };
  // kube-apiserver 1.32 answers exactly this for these bytes.
  assert.equal(corrupt(Buffer.from('k8s\0garbage')), 'proto: illegal wireType 7');
  assert.match(corrupt(Buffer.from([0xd9, 0xd9, 0xf7, 0xa0])), /CBOR/);
  assert.equal(corrupt(Buffer.from('{"not": "closed"')), "couldn't get version/kind; json parse error: unexpected end of JSON input");
  assert.equal(corrupt(Buffer.from('{"a":1}}')), "couldn't get version/kind; json parse error: invalid character '}' after top-level value");
  assert.equal(corrupt(Buffer.from('just words')), 'the value is not JSON, YAML or protobuf');
  assert.equal(corrupt(Buffer.from('[1, 2]')), 'the value is not JSON, YAML or protobuf');
});
