import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope } from './envelope.js';
import { decodeEnveloped, encodeObjectGo } from './object-codec.js';
import { internString, readerFor } from './interning-reader.js';
import { messageType } from './messages.js';

void describe('the interning reader', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'né', namespace: 'default', labels: { a: '', b: 'x'.repeat(40), c: '☃' }, managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] },
    data: { short: 'v', long: 'y'.repeat(5000), empty: '' },
  };

  void it('decodes what protobufjs decodes, strings of every length and script included', () => {
    const bytes = encodeObjectGo(pod);
    const envelope = decodeEnvelope(bytes);
    const type = messageType('k8s.io.api.core.v1.ConfigMap');
    assert.deepEqual(type.decode(readerFor(Buffer.from(envelope.raw))), type.decode(Buffer.from(envelope.raw)));
    const { object } = decodeEnveloped(envelope, envelope);
    assert.deepEqual(object, { ...pod, metadata: { ...pod.metadata, creationTimestamp: null } });
  });

  void it('gives back equal strings for any input, many distinct ones included', () => {
    for (let i = 0; i < 40_000; i++) assert.equal(internString(`s-${i % 20_000}`), `s-${i % 20_000}`);
    assert.equal(internString(''), '');
    assert.equal(internString('z'.repeat(100)), 'z'.repeat(100));
  });
});
