import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeObject, encodeObjectGo, encodeObjectRaw, envelopeObject } from './object-codec.js';
import { dropStoredAnswer, noteStoredEncoding, takeStoredAnswer, withResourceVersion } from './stored-answer.js';

type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };

const withRv = (obj: Obj, resourceVersion: string): Obj => ({ ...obj, metadata: { ...obj.metadata, resourceVersion } });
const withoutRv = (obj: Obj): Obj => {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return { ...obj, metadata };
};
/** What kapi answered before: the object encoded in full, without Go's zero values. */
const encodedAnswer = (obj: Obj) => envelopeObject(obj, encodeObjectRaw(obj));
const decode = (bytes: Uint8Array, obj: Obj) => decodeObject(bytes, { apiVersion: obj.apiVersion, kind: obj.kind }).object;

// kube-apiserver v1.32.13, a protobuf create of ConfigMap cm1 (labels app=x, data {payload, b: "é"}):
// the value it stored in etcd, and the body of its 201 answer (resourceVersion 72).
const KUBE_STORED =
  'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEoYCCtkBCgNjbTESABoHZGVmYXVsdCIAKiRmMmFjYTQ3MC1lYWUxLTQwZjItYjk2Yy05ODM0ZjE3NWVhN2UyADgAQggI6qWo2AYQAFoICgNhcHASAXiKAYUBCgRjdXJsEgZVcGRhdGUaAnYxIggI6qWo2AYQADIIRmllbGRzVjE6WwpZeyJmOmRhdGEiOnsiLiI6e30sImY6YiI6e30sImY6cGF5bG9hZCI6e319LCJmOm1ldGFkYXRhIjp7ImY6bGFiZWxzIjp7Ii4iOnt9LCJmOmFwcCI6e319fX1CABIHCgFiEgLDqRIfCgdwYXlsb2FkEhR4eHh4eHh4eHh4eHh4eHh4eHh4eBoAIgA=';
const KUBE_ANSWER =
  'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEogCCtsBCgNjbTESABoHZGVmYXVsdCIAKiRmMmFjYTQ3MC1lYWUxLTQwZjItYjk2Yy05ODM0ZjE3NWVhN2UyAjcyOABCCAjqpajYBhAAWggKA2FwcBIBeIoBhQEKBGN1cmwSBlVwZGF0ZRoCdjEiCAjqpajYBhAAMghGaWVsZHNWMTpbCll7ImY6ZGF0YSI6eyIuIjp7fSwiZjpiIjp7fSwiZjpwYXlsb2FkIjp7fX0sImY6bWV0YWRhdGEiOnsiZjpsYWJlbHMiOnsiLiI6e30sImY6YXBwIjp7fX19fUIAEgcKAWISAsOpEh8KB3BheWxvYWQSFHh4eHh4eHh4eHh4eHh4eHh4eHh4GgAiAA==';

interface CatalogGolden {
  apiVersion: string;
  kind: string;
  protobuf: string;
}
const catalogFile = new URL('../../src/protobuf/testdata/go-golden-catalog.json', import.meta.url);
const catalogGolden = (JSON.parse(readFileSync(catalogFile, 'utf8')) as { golden: CatalogGolden[] }).golden;

void describe('withResourceVersion: the answer to a write from its stored bytes', () => {
  void it("is kube-apiserver's answer to a protobuf create, byte for byte, from the value it stored", () => {
    const answer = withResourceVersion(Buffer.from(KUBE_STORED, 'base64'), 'v1', 'ConfigMap', '72');
    assert.equal(answer?.toString('base64'), KUBE_ANSWER);
  });

  void it("is kapi's Go-form encoding of the object with its resourceVersion, for every kind with an ObjectMeta", () => {
    let spliced = 0;
    for (const g of catalogGolden) {
      const object = decodeObject(Buffer.from(g.protobuf, 'base64'), g).object as Obj;
      if (typeof object.metadata?.['resourceVersion'] !== 'string') continue;
      const stored = encodeObjectGo(withoutRv(object));
      for (const rv of ['1', '12345678901234567890', object.metadata['resourceVersion'] as string]) {
        const answer = withResourceVersion(stored, g.apiVersion, g.kind, rv);
        assert.ok(answer !== undefined, `${g.apiVersion}/${g.kind}`);
        assert.deepEqual(answer, encodeObjectGo(withRv(object, rv)), `${g.apiVersion}/${g.kind} ${rv}`);
        // What a client decodes is what the full encoding of the old path gave.
        assert.deepEqual(decode(answer, object), decode(encodedAnswer(withRv(object, rv)), object), `${g.apiVersion}/${g.kind}`);
      }
      spliced++;
    }
    assert.ok(spliced > 40, `${spliced} kinds`);
  });

  void it('rewrites the lengths of the message and the metadata across varint sizes', () => {
    for (const nameLength of [90, 100, 110, 118, 119, 120, 121, 122, 125, 126, 127, 128, 200, 16_200, 16_250, 16_300, 16_370, 16_380, 16_390]) {
      const obj: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n'.repeat(nameLength), namespace: 'default' }, data: { k: 'v' } };
      for (const rv of ['7', '1234567']) {
        assert.deepEqual(withResourceVersion(encodeObjectGo(obj), 'v1', 'ConfigMap', rv), encodeObjectGo(withRv(obj, rv)), `${nameLength} ${rv}`);
      }
    }
  });

  void it('inserts the field where the encoding leaves it out, in field order', () => {
    const obj: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', uid: 'u', generation: 3, labels: { a: 'b' } }, data: { k: 'v' } };
    assert.deepEqual(withResourceVersion(encodedAnswer(obj), 'v1', 'ConfigMap', '42'), encodedAnswer(withRv(obj, '42')));
    const bare: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
    assert.deepEqual(withResourceVersion(encodedAnswer(bare), 'v1', 'ConfigMap', '42'), encodedAnswer(withRv(bare, '42')));
  });

  void it('declines what it cannot splice: not an envelope, malformed bytes, a kind without ObjectMeta', () => {
    const stored = encodeObjectGo({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    assert.equal(withResourceVersion(Buffer.from('{"kind":"ConfigMap"}'), 'v1', 'ConfigMap', '1'), undefined);
    // Cut inside the object's message (the last four bytes are Unknown's empty fields 3 and 4).
    for (let cut = 5; cut < stored.length - 4; cut++) assert.equal(withResourceVersion(stored.subarray(0, cut), 'v1', 'ConfigMap', '1'), undefined, `cut at ${cut}`);
    assert.equal(withResourceVersion(stored, 'v1', 'NoSuchKind', '1'), undefined);
    const status = encodeObjectGo({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code: 404 });
    assert.equal(withResourceVersion(status, 'v1', 'Status', '1'), undefined);
  });

  void it('declines bytes whose envelope names another version or kind than the answer', () => {
    const stored = encodeObjectGo({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    assert.ok(withResourceVersion(stored, 'v1', 'ConfigMap', '1') !== undefined);
    // Secret's metadata is field 1 as ConfigMap's: only the envelope tells them apart.
    assert.equal(withResourceVersion(stored, 'v1', 'Secret', '1'), undefined);
    const hpa = encodeObjectGo({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' } });
    assert.ok(withResourceVersion(hpa, 'autoscaling/v2', 'HorizontalPodAutoscaler', '1') !== undefined);
    assert.equal(withResourceVersion(hpa, 'autoscaling/v1', 'HorizontalPodAutoscaler', '1'), undefined);
  });
});

void describe('noteStoredEncoding and takeStoredAnswer', () => {
  const stored = (name: string) => encodeObjectGo({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
  const decoded = (bytes: Uint8Array, rv: string): Obj => {
    const obj = decodeObject(bytes, { apiVersion: 'v1', kind: 'ConfigMap' }).object as Obj;
    obj.metadata['resourceVersion'] = rv;
    return obj;
  };

  void it('answers a noted object once, with its resourceVersion; nothing for others', () => {
    const bytes = stored('a');
    const obj = decoded(bytes, '9');
    noteStoredEncoding(obj, bytes);
    const answer = takeStoredAnswer(obj);
    assert.deepEqual(answer, encodeObjectGo(obj));
    assert.deepEqual(decode(answer!, obj), decode(encodedAnswer(obj), obj));
    assert.equal(takeStoredAnswer(obj), undefined);
    assert.equal(takeStoredAnswer(decoded(bytes, '9')), undefined);
  });

  void it('notes protobuf only, and answers nothing without a resourceVersion', () => {
    const json = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}');
    const obj = decoded(stored('a'), '3');
    noteStoredEncoding(obj, json);
    assert.equal(takeStoredAnswer(obj), undefined);
    const noRv = decoded(stored('b'), '');
    noteStoredEncoding(noRv, stored('b'));
    assert.equal(takeStoredAnswer(noRv), undefined);
  });

  void it('answers each use of an object noted by several readers, then nothing', () => {
    const bytes = stored('shared');
    const obj = decoded(bytes, '4');
    noteStoredEncoding(obj, bytes);
    noteStoredEncoding(obj, bytes);
    noteStoredEncoding(obj, bytes);
    assert.deepEqual(takeStoredAnswer(obj), encodeObjectGo(obj));
    dropStoredAnswer(obj);
    assert.deepEqual(takeStoredAnswer(obj), encodeObjectGo(obj));
    assert.equal(takeStoredAnswer(obj), undefined);
    dropStoredAnswer(obj);
    assert.equal(takeStoredAnswer(obj), undefined);
  });

  void it('never notes an object decoded from bytes its encoding would not give back', () => {
    const obj: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { k: 'v' } };
    const raw = Buffer.from(encodeObjectRaw(obj));
    // A field ConfigMap does not have (99), and the same fields out of order (data before metadata).
    const unknown = envelopeObject(obj, Buffer.concat([raw, Buffer.from([0x9a, 0x06, 0x01, 0x78])]));
    const metadata = encodeObjectRaw({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' } });
    const reordered = envelopeObject(obj, Buffer.concat([raw.subarray(metadata.length), metadata]));
    for (const bytes of [unknown, reordered]) {
      const read = decoded(bytes, '8');
      assert.deepEqual({ ...read, metadata: { ...read.metadata, resourceVersion: undefined } }, { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } });
      noteStoredEncoding(read, bytes);
      assert.equal(takeStoredAnswer(read), undefined);
    }
    const canonical = encodeObjectGo(obj);
    const read = decoded(canonical, '8');
    noteStoredEncoding(read, canonical);
    assert.deepEqual(takeStoredAnswer(read), encodeObjectGo(read));
  });

  void it('keeps a bounded number of notes, dropping the oldest', () => {
    const first = decoded(stored('first'), '1');
    noteStoredEncoding(first, stored('first'));
    const bytes = stored('x');
    for (let i = 0; i < 300; i++) noteStoredEncoding(decoded(bytes, '2'), bytes);
    assert.equal(takeStoredAnswer(first), undefined);
    const last = decoded(bytes, '5');
    noteStoredEncoding(last, bytes);
    assert.deepEqual(takeStoredAnswer(last), encodeObjectGo(last));
  });
});
