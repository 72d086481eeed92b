/**
 * encodeObjectGoDecoded: the stored bytes and the object decoding them gives, the object made
 * from the message instead of the bytes. Pinned against the decode itself for every catalogue
 * kind and for JSON that is not in canonical form, and declined where the wire would change a
 * value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeObjectGo, encodeObjectGoDecoded } from './object-codec.js';
import { catalogGolden as loadCatalogGolden } from './catalog-golden.js';

type Obj = Record<string, unknown> & { apiVersion: string; kind: string };

const catalogGolden = loadCatalogGolden();

/** What the storage read back before: the bytes decoded. */
const decodedBytes = (obj: Obj) => decodeObject(encodeObjectGo(obj), { apiVersion: obj.apiVersion, kind: obj.kind }).object;

function assertSameAsDecoding(obj: Obj, what: string): void {
  const before = JSON.stringify(obj);
  const { bytes, decoded } = encodeObjectGoDecoded(obj);
  assert.deepEqual(bytes, encodeObjectGo(obj), `${what}: the bytes`);
  assert.ok(decoded !== undefined, `${what}: declined`);
  const expected = decodedBytes(obj);
  assert.deepEqual(decoded, expected, `${what}: the object`);
  assert.deepEqual(Object.keys(decoded), Object.keys(expected), `${what}: the key order`);
  assert.equal(JSON.stringify(decoded), JSON.stringify(expected), `${what}: the JSON`);
  assert.equal(JSON.stringify(obj), before, `${what}: the input is not changed`);
}

/** Every record and array reachable from `value`. */
function containers(value: unknown, out = new Set<object>()): Set<object> {
  if (typeof value === 'object' && value !== null) {
    out.add(value);
    for (const v of Object.values(value)) containers(v, out);
  }
  return out;
}

void describe('encodeObjectGoDecoded', () => {
  void it('gives the bytes and the decoded object of every catalogue kind, in Go form and in Go JSON', () => {
    let kinds = 0;
    for (const g of catalogGolden) {
      if (g.kind.endsWith('List')) continue;
      const typed = { apiVersion: g.apiVersion, kind: g.kind };
      assertSameAsDecoding({ ...decodeObject(Buffer.from(g.protobuf, 'base64'), typed).object, ...typed }, `${g.apiVersion}/${g.kind}`);
      assertSameAsDecoding({ ...g.goJson, ...typed }, `${g.apiVersion}/${g.kind} (Go JSON)`);
      kinds++;
    }
    assert.ok(kinds > 40, `${kinds} kinds`);
  });

  void it('normalizes JSON out of canonical form as decoding does, sharing nothing with the input', () => {
    const pod: Obj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { z: 'a', a: 'z' }, annotations: {}, finalizers: [], creationTimestamp: '2024-01-02T03:04:05.123+02:00', unknownField: 1, ownerReferences: null },
      spec: {
        containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: '' }], resources: { limits: { cpu: 0.5, memory: '1Gi' } }, env: [] }],
        volumes: [{ name: 'v', emptyDir: {} }],
        nodeSelector: {},
        tolerations: [{ key: 'k', tolerationSeconds: 0 }],
      },
      status: { phase: 'Pending', startTime: null, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z' }] },
    };
    assertSameAsDecoding(pod, 'a Pod');
    const { decoded } = encodeObjectGoDecoded(pod);
    const shared = [...containers(decoded)].filter((c) => containers(pod).has(c));
    assert.deepEqual(shared, []);
    const secret: Obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { b: 'AQI', a: 'AQID' }, stringData: { x: 'y' }, type: '' };
    assertSameAsDecoding(secret, 'a Secret with unpadded base64');
    const cm: Obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2024-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:<a&b>': {} } } }],
      },
      data: { 'b': 'é😀', a: '' },
      binaryData: {},
    };
    assertSameAsDecoding(cm, 'a ConfigMap');
    // Only the FieldsV1 values are shared (never changed in place): the value itself, not a parse of its text.
    const written = encodeObjectGoDecoded(cm).decoded as { metadata: { managedFields: { fieldsV1: unknown }[] } };
    const fieldsV1 = (cm['metadata'] as { managedFields: { fieldsV1: object }[] }).managedFields[0]!.fieldsV1;
    assert.equal(written.metadata.managedFields[0]!.fieldsV1, fieldsV1);
    assert.deepEqual([...containers(written)].filter((c) => containers(cm).has(c) && !containers(fieldsV1).has(c)), []);
    const service: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] } };
    assertSameAsDecoding(service, 'a Service');
  });

  void it('declines values the wire would change: lone surrogates, integers out of their field', () => {
    const cm = (data: Record<string, string>, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels }, data });
    const declined = (obj: Obj, what: string) => {
      const { bytes, decoded } = encodeObjectGoDecoded(obj);
      assert.equal(decoded, undefined, what);
      assert.deepEqual(bytes, encodeObjectGo(obj), what);
    };
    declined(cm({ k: 'a\ud800' }), 'a map value');
    declined(cm({ ['k\udc00']: 'v' }), 'a map key');
    declined(cm({ b: 'x', a: '\ud800' }), 'a map value in the sorted path');
    declined(cm({}, { l: '\udfff' }), 'a label');
    declined({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c\ud800' } }, 'a string field');
    declined({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['f\ud800'] } }, 'a list item');
    declined({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', generation: 2 ** 60 } }, 'an int64 past 2^53');
    const pod = (port: unknown): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', ports: [{ containerPort: port }] }] } });
    declined(pod(2 ** 31), 'an int32 past 2^31 - 1');
    declined(pod(-(2 ** 31) - 1), 'an int32 below -2^31');
    const service = (targetPort: unknown): Obj => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } });
    declined(service(2 ** 32), 'an IntOrString number');
    declined(service('h\ud800'), 'an IntOrString string');
    assertSameAsDecoding(pod(2 ** 31 - 1), 'the largest int32');
    assertSameAsDecoding(cm({ k: '\ud83d\ude00' }), 'a surrogate pair');
  });

  void it('leaves no exactness state behind: a later encode is exact again', () => {
    assert.equal(encodeObjectGoDecoded({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a\ud800' } }).decoded, undefined);
    assert.ok(encodeObjectGoDecoded({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }).decoded !== undefined);
  });
});
