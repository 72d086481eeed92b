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

const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', resourceVersion: '12', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z' }, data: { a: 'b' } };
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

void test('JSON is written as kube writes it: custom resources as Go maps (keys sorted, HTML escaped), built-ins in Go struct order', () => {
  // kube-apiserver 1.32 stored this Widget (sent with its keys in this order) as exactly these bytes.
  const sent: KubeObject = {
    kind: 'Widget',
    apiVersion: 'example.com/v1',
    metadata: { name: 'w1', namespace: 'default', uid: 'u1', resourceVersion: '9', labels: { z: '1', a: '2' } },
    zeta: 1,
    alpha: { y: 1, b: 2, html: '<a&b>' },
  };
  assert.equal(
    kubeStorageCodec().encode(sent).toString(),
    '{"alpha":{"b":2,"html":"\\u003ca\\u0026b\\u003e","y":1},"apiVersion":"example.com/v1","kind":"Widget","metadata":{"labels":{"a":"2","z":"1"},"name":"w1","namespace":"default","uid":"u1"},"zeta":1}\n',
  );
  const scrambled: KubeObject = { data: { a: 'b' }, metadata: { creationTimestamp: '2024-01-01T00:00:00Z', uid: 'u', namespace: 'ns', name: 'c', resourceVersion: '12' }, kind: 'ConfigMap', apiVersion: 'v1' };
  assert.equal(
    kubeStorageCodec('application/json').encode(scrambled).toString(),
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"ns","uid":"u","creationTimestamp":"2024-01-01T00:00:00Z"},"data":{"a":"b"}}\n',
  );
});

void test('encodeDecoded: the bytes encode gives, and for protobuf the object decoding them gives, without decoding', () => {
  const odd: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c\ud800', resourceVersion: '4' }, data: { a: 'b' } };
  const json = kubeStorageCodec('application/json');
  for (const [codec, obj, decodedToo] of [
    [kubeStorageCodec(), configMap, true],
    [kubeStorageCodec(), { ...configMap, metadata: { name: 'c' } } as KubeObject, true],
    // What the wire would change is left to the decoder (a lone surrogate becomes U+FFFD).
    [kubeStorageCodec(), odd, false],
    [kubeStorageCodec(), widget, false],
    [json, configMap, false],
  ] as const) {
    const { data, decoded } = codec.encodeDecoded!(obj);
    assert.deepEqual(data, codec.encode(obj));
    if (!decodedToo) {
      assert.equal(decoded, undefined);
      continue;
    }
    assert.equal(JSON.stringify(decoded), JSON.stringify(decodeStoredObject(data, key)));
    assert.equal(decoded!.metadata.resourceVersion, undefined);
  }
});
