import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy, type KubeObject } from '@kapi/machinery';
import { jsonCodec, storageCodec, type StorageCodec } from './codec.js';
import { kubeStorageCodec } from './kube-codec.js';
import { WrittenValues } from './written-values.js';

/** A codec that counts its decodes. */
function counting(): { codec: StorageCodec; decodes: () => number } {
  const inner = storageCodec(jsonCodec);
  let n = 0;
  const codec: StorageCodec = {
    ...inner,
    decodeSerialized: (bytes, key) => {
      n++;
      return inner.decodeSerialized(bytes, key);
    },
  };
  return { codec, decodes: () => n };
}

const cm = (name: string, value: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { k: value } }) as KubeObject;
const key = (name: string) => `/registry/configmaps/ns/${name}`;

function write(values: WrittenValues, codec: StorageCodec, obj: KubeObject) {
  const data = codec.encode(obj);
  const stored = codec.seal(data, key(obj.metadata.name!));
  return { stored, value: values.begin(key(obj.metadata.name!), stored, data) };
}

void test('the write and the feed share one decode, in either order; each gets the resourceVersion of the write', () => {
  const { codec, decodes } = counting();
  const values = new WrittenValues(codec);

  // The write's response first, then the feed's event.
  const a = write(values, codec, cm('a', '1'));
  const returned = values.committed(key('a'), a.value, 7);
  const fed = values.take(key('a'), a.stored, 7);
  assert.equal(decodes(), 1);
  const expected: KubeObject = { ...cm('a', '1'), metadata: { name: 'a', namespace: 'ns', resourceVersion: '7' } };
  assert.deepEqual(returned, expected);
  assert.deepEqual(fed, returned);
  assert.notEqual(fed, returned);
  assert.equal(values.size, 0);
  // The caller's copy is its own: changing it leaves the feed's object alone.
  (returned.data as Record<string, string>).k = 'changed';
  assert.equal((fed!.data as Record<string, string>).k, '1');

  // The event first, then the response.
  const b = write(values, codec, cm('b', '2'));
  const fedB = values.take(key('b'), b.stored, 9);
  const returnedB = values.committed(key('b'), b.value, 9);
  assert.equal(decodes(), 2);
  assert.equal(fedB?.metadata.resourceVersion, '9');
  assert.deepEqual(returnedB, fedB);
  assert.notEqual(returnedB, fedB);
  assert.equal(values.size, 0);
});

void test('the feed decodes itself what this process did not write: other bytes, a failed write, a value already taken', () => {
  const { codec } = counting();
  const values = new WrittenValues(codec);
  const a = write(values, codec, cm('a', '1'));
  assert.equal(values.take(key('a'), codec.seal(codec.encode(cm('a', 'other')), key('a')), 3), undefined);
  assert.equal(values.take(key('x'), a.stored, 3), undefined);
  assert.ok(values.take(key('a'), a.stored, 3));
  assert.equal(values.take(key('a'), a.stored, 4), undefined, 'one write, one event');
  values.committed(key('a'), a.value, 3);

  const b = write(values, codec, cm('b', '1'));
  values.failed(key('b'), b.value);
  assert.equal(values.size, 0);
  assert.equal(values.take(key('b'), b.stored, 5), undefined);

  // A newer write of the key replaces the older one; the older one's writer still gets its object.
  const c1 = write(values, codec, cm('c', '1'));
  const c2 = write(values, codec, cm('c', '2'));
  assert.equal(values.take(key('c'), c1.stored, 6), undefined);
  assert.equal((values.committed(key('c'), c1.value, 6).data as Record<string, string>).k, '1');
  assert.equal(values.size, 1);
  assert.equal((values.take(key('c'), c2.stored, 8)!.data as Record<string, string>).k, '2');
});

void test('values no feed takes are dropped oldest first beyond the entry and byte bounds', () => {
  const { codec } = counting();
  const values = new WrittenValues(codec, 3, 1_000_000);
  const written = ['a', 'b', 'c', 'd'].map((name) => write(values, codec, cm(name, '1')));
  for (const [i, w] of written.entries()) values.committed(key(['a', 'b', 'c', 'd'][i]!), w.value, i + 1);
  assert.equal(values.size, 3);
  assert.equal(values.take(key('a'), written[0]!.stored, 1), undefined);
  assert.ok(values.take(key('d'), written[3]!.stored, 4));

  const small = new WrittenValues(codec, 100, 300);
  write(small, codec, cm('a', 'x'.repeat(100)));
  write(small, codec, cm('b', 'x'.repeat(100)));
  assert.equal(small.size, 1);
});

void test("an update starting from an object the feed took compares with the bytes it was decoded from: what encoding it again gives", () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'ns',
      uid: 'u',
      labels: {},
      annotations: { b: '2', a: '1' },
      creationTimestamp: '2024-01-01T00:00:00Z',
      managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:containers': {} } } }],
    },
    spec: { containers: [{ name: 'c', image: 'i', resources: {}, ports: [{ containerPort: 80, protocol: 'TCP' }] }], nodeName: 'n1', restartPolicy: 'Always' },
    status: { phase: 'Pending', conditions: [] },
  } as unknown as KubeObject;
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', labels: { z: '1', a: '2' } }, spec: { size: 1.5, html: '<&>', text: 'ü', list: [], empty: {} } } as unknown as KubeObject;
  for (const mediaType of ['application/vnd.kubernetes.protobuf', 'application/json'] as const) {
    const codec = storageCodec(kubeStorageCodec(mediaType));
    for (const obj of [pod, widget, cm('a', 'x')]) {
      const values = new WrittenValues(codec);
      const name = obj.metadata.name!;
      const data = codec.encode(obj);
      const stored = codec.seal(data, key(name));
      const value = values.begin(key(name), stored, data);
      values.committed(key(name), value, 4);
      const fed = values.take(key(name), stored, 4)!;
      assert.equal(values.encodedOf(fed), data);
      assert.ok(codec.encode(fed).equals(data), `${mediaType} ${obj.kind}: decode then encode gives the bytes again`);
      assert.equal(values.encodedOf(deepCopy(fed)), undefined);
    }
  }
});

void test('a write whose encoder gave the decoded object decodes nothing: the write and the feed share that object', () => {
  const { codec, decodes } = counting();
  const values = new WrittenValues(codec);
  const { data, decoded } = kubeStorageCodec().encodeDecoded!(cm('d', '1'));
  assert.ok(decoded !== undefined);
  const stored = codec.seal(data, key('d'));
  const value = values.begin(key('d'), stored, data, decoded);
  const returned = values.committed(key('d'), value, 9, true);
  const fed = values.take(key('d'), stored, 9);
  assert.equal(decodes(), 0);
  assert.equal(returned, decoded);
  assert.equal(fed, decoded);
  assert.equal(returned.metadata.resourceVersion, '9');
});
