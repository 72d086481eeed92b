/**
 * decodeEnvelope reads the envelopes kube and kapi write without protobufjs; anything else
 * goes to protobufjs. Both must give the same envelope (and the same errors) for any bytes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROTOBUF_MAGIC, ProtobufDecodeError, decodeEnvelope, encodeEnvelope, encodeEnvelopeGo, type Envelope } from './envelope.js';
import { envelopeMessages } from './messages.js';
import { encodeObjectGo } from './object-codec.js';

/** What protobufjs makes of the bytes after the magic, shaped as decodeEnvelope returns it. */
function generalDecode(data: Uint8Array): Envelope {
  const unknown = envelopeMessages.unknown().decode(data.subarray(PROTOBUF_MAGIC.length)) as {
    typeMeta?: { apiVersion?: string | null; kind?: string | null } | null;
    raw?: Uint8Array | null;
    contentType?: string | null;
  };
  return {
    apiVersion: unknown.typeMeta?.apiVersion ?? '',
    kind: unknown.typeMeta?.kind ?? '',
    raw: unknown.raw ?? new Uint8Array(0),
    contentType: unknown.contentType ?? '',
  };
}

const plain = (e: Envelope) => ({ ...e, raw: Buffer.from(e.raw).toString('hex') });

/** A length-delimited field. */
function field(n: number, bytes: Uint8Array): Buffer {
  const length = bytes.length;
  const varint: number[] = [];
  for (let v = length; ; v >>>= 7) {
    if (v < 0x80) {
      varint.push(v);
      break;
    }
    varint.push((v & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.of((n << 3) | 2, ...varint), bytes]);
}
const text = (s: string) => Buffer.from(s, 'utf8');
const enveloped = (...fields: Buffer[]) => Buffer.concat([Buffer.from(PROTOBUF_MAGIC), ...fields]);
const typeMeta = (apiVersion: string, kind: string) => field(1, Buffer.concat([field(1, text(apiVersion)), field(2, text(kind))]));

void describe('decodeEnvelope', () => {
  const big = Buffer.alloc(70_000, 7); // a raw part whose length takes three varint bytes
  const canonical: [string, Buffer][] = [
    ['as kapi writes it', encodeEnvelope('v1', 'ConfigMap', Buffer.from('0a0012', 'hex'))],
    ["as kube writes it (Go's empty contentEncoding and contentType)", encodeEnvelopeGo('apps/v1', 'Deployment', Buffer.from('0a00', 'hex'))],
    ['a stored object', encodeObjectGo({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'b' }, data: { k: 'v' } })],
    ['with a large raw part', enveloped(typeMeta('v1', 'Secret'), field(2, big))],
    ['with a content type', enveloped(typeMeta('v1', 'Pod'), field(2, Buffer.of(1)), field(3, text('gzip')), field(4, text('application/json')))],
    ['without raw', enveloped(typeMeta('v1', 'Pod'))],
    ['with an empty type', enveloped(field(1, Buffer.alloc(0)), field(2, Buffer.of(1, 2)))],
  ];
  for (const [name, bytes] of canonical) {
    void it(`reads an envelope ${name} as protobufjs does`, () => {
      assert.deepEqual(plain(decodeEnvelope(bytes)), plain(generalDecode(bytes)));
    });
  }

  const unusual: [string, Buffer][] = [
    ['fields out of order', enveloped(field(2, Buffer.of(9)), typeMeta('v1', 'Pod'))],
    ['a repeated type (merged)', enveloped(field(1, field(1, text('v1'))), field(1, field(2, text('Pod'))), field(2, Buffer.of(3)))],
    ['a repeated raw (the last wins)', enveloped(typeMeta('v1', 'Pod'), field(2, Buffer.of(1)), field(2, Buffer.of(2)))],
    ['an unknown field', enveloped(typeMeta('v1', 'Pod'), field(2, Buffer.of(1)), field(9, Buffer.of(1)))],
    ['a varint field', Buffer.concat([enveloped(typeMeta('v1', 'Pod')), Buffer.of(0x28, 0x01)])],
    ['non-ASCII text', enveloped(typeMeta('v1', 'Pöd'), field(2, Buffer.of(1)))],
    ['a long kind', enveloped(typeMeta('v1', 'K'.repeat(300)), field(2, Buffer.of(1)))],
    ['kind before apiVersion', enveloped(field(1, Buffer.concat([field(2, text('Pod')), field(1, text('v1'))])), field(2, Buffer.of(1)))],
  ];
  for (const [name, bytes] of unusual) {
    void it(`reads an envelope with ${name} as protobufjs does`, () => {
      assert.deepEqual(plain(decodeEnvelope(bytes)), plain(generalDecode(bytes)));
    });
  }

  void it('reads changing types in a row (the last type read is remembered, not assumed)', () => {
    const kinds = ['ConfigMap', 'ConfigMaq', 'Secret', 'ConfigMap', 'ConfigMa', 'ConfigMapX'];
    for (const kind of kinds) {
      const bytes = encodeEnvelope(kind === 'Secret' ? 'v2' : 'v1', kind, Buffer.of(1));
      assert.deepEqual(plain(decodeEnvelope(bytes)), plain(generalDecode(bytes)));
    }
  });

  void it('reports a truncated envelope as before', () => {
    const whole = encodeEnvelope('v1', 'ConfigMap', Buffer.alloc(300, 1));
    for (const cut of [5, 8, 20, whole.length - 1]) {
      assert.throws(() => decodeEnvelope(whole.subarray(0, cut)), (err: unknown) => err instanceof ProtobufDecodeError && err.message === 'unexpected EOF', `cut at ${cut}`);
    }
  });

  void it('returns raw as a view of the bytes, not a copy', () => {
    const bytes = enveloped(typeMeta('v1', 'Pod'), field(2, Buffer.of(1, 2, 3)));
    const { raw } = decodeEnvelope(bytes);
    assert.equal(raw.buffer, bytes.buffer);
    assert.ok(Buffer.isBuffer(raw));
  });
});
