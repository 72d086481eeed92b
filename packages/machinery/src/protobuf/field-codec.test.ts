import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { intOrString, quantity, time, microTime, bytesMap, fieldsV1, rawExtension, stringMap, withGoBytes } from './field-codec.js';
import { messageType } from './messages.js';

const intstrMessages = { IntOrString: messageType('k8s.io.apimachinery.pkg.util.intstr.IntOrString') };
const resourceMessages = { Quantity: messageType('k8s.io.apimachinery.pkg.api.resource.Quantity') };

/** The JSON value after a trip through the field's protobuf message. */
function viaMessage(codec: typeof intOrString, type: { encode(m: object): { finish(): Uint8Array }; decode(b: Uint8Array): object }, value: unknown): unknown {
  return codec.fromProto(type.decode(type.encode(codec.toProto(value) as object).finish()));
}

void describe('field codecs for kube\'s wire quirks', () => {
  void it('IntOrString: numbers as {type: 0, intVal}, strings as {type: 1, strVal}', () => {
    assert.deepEqual(intOrString.toProto(8080), { type: 0, intVal: 8080 });
    assert.deepEqual(intOrString.toProto('25%'), { type: 1, strVal: '25%' });
    for (const value of [0, 8080, -1, '25%', 'http', '']) assert.equal(viaMessage(intOrString, intstrMessages.IntOrString, value), value);
    assert.equal(intOrString.toProto(1.5), undefined);
  });

  void it('Quantity: the string travels as is', () => {
    for (const value of ['500m', '1Gi', '0', '1e3']) assert.equal(viaMessage(quantity, resourceMessages.Quantity, value), value);
    assert.equal(viaMessage(quantity, resourceMessages.Quantity, 2), '2');
  });

  void it('Time and MicroTime: {seconds, nanos}; zero and unparsable are left out', () => {
    assert.deepEqual(time.toProto('2024-01-01T00:00:00Z'), { seconds: 1704067200 });
    assert.deepEqual(microTime.toProto('2024-01-01T00:00:00.000001Z'), { seconds: 1704067200, nanos: 1000 });
    assert.equal(time.toProto('yesterday'), undefined);
    assert.equal(time.fromProto({}), undefined);
    assert.equal(microTime.fromProto({ seconds: 0, nanos: 0 }), undefined);
    assert.equal(microTime.fromProto({ seconds: 1704067200, nanos: 999 }), '2024-01-01T00:00:00.000000Z');
  });

  void it('bytes: base64 in JSON, raw on the wire; FieldsV1 as its JSON text', () => {
    const wire = bytesMap.toProto({ k: Buffer.from([0, 255]).toString('base64') }) as Record<string, Uint8Array>;
    assert.deepEqual([...wire['k']!], [0, 255]);
    assert.deepEqual(bytesMap.fromProto(wire), { k: 'AP8=' });
    assert.equal(bytesMap.fromProto({}), undefined);
    const raw = fieldsV1.toProto({ 'f:a': {} }) as { Raw: Buffer };
    assert.equal(raw.Raw.toString(), '{"f:a":{}}');
    assert.deepEqual(fieldsV1.fromProto(raw), { 'f:a': {} });
  });

  void it('FieldsV1: the text is Go\'s (HTML characters escaped), and the same bytes when the value is encoded again', () => {
    const value = { 'f:metadata': { 'f:annotations': { 'f:a<b>&c': {}, 'f:\u2029': {} } } };
    const first = (fieldsV1.toProto(value) as { Raw: Buffer }).Raw;
    const text = '{"f:metadata":{"f:annotations":{"f:a\\u003cb\\u003e\\u0026c":{},"f:\\u2029":{}}}}';
    assert.equal(first.toString(), text);
    assert.equal((fieldsV1.toProto(value) as { Raw: Buffer }).Raw.toString(), text);
    // Another value with the same content but a different key gets its own text.
    assert.equal((fieldsV1.toProto({ 'f:x': {} }) as { Raw: Buffer }).Raw.toString(), '{"f:x":{}}');
  });

  void it('map<string,string>: Go\'s key order in Go-bytes mode, values that are not strings left out, whether or not the map is passed as it is', () => {
    const keys = (v: unknown) => Object.keys(v as object);
    const sorted = { a: '1', b: '2', c: '3' };
    assert.deepEqual(keys(withGoBytes(() => stringMap.toProto(sorted))), ['a', 'b', 'c']);
    assert.deepEqual(keys(withGoBytes(() => stringMap.toProto({ c: '3', a: '1', b: '2' }))), ['a', 'b', 'c']);
    assert.deepEqual(keys(stringMap.toProto({ c: '3', a: '1', b: '2' })), ['c', 'a', 'b']);
    assert.deepEqual(withGoBytes(() => stringMap.toProto({ a: '1', b: 2, c: null })), { a: '1' });
    assert.deepEqual(stringMap.toProto({ a: '1', b: 2, c: null }), { a: '1' });
    const withProto = JSON.parse('{"__proto__":"x","a":"1"}') as Record<string, unknown>;
    assert.deepEqual(keys(stringMap.toProto(withProto)), ['a']);
  });

  void it('RawExtension: the JSON text Go marshals (HTML characters escaped, nulls kept), so a controller comparing bytes sees its own', () => {
    const value = { spec: { template: { $patch: 'replace', metadata: { creationTimestamp: null }, spec: { containers: [{ args: ['a && b <c>', '\u2028'] }] } } } };
    const wire = rawExtension.toProto(value) as { raw: Buffer };
    // What json.Marshal writes for the same map in Go (sorted keys are the caller's order here).
    assert.equal(wire.raw.toString(), '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null},"spec":{"containers":[{"args":["a \\u0026\\u0026 b \\u003cc\\u003e","\\u2028"]}]}}}}');
    assert.deepEqual(rawExtension.fromProto(wire), value);
  });
});
