/**
 * kube's protobuf envelope: the magic bytes `k8s\0` followed by a runtime.Unknown that holds
 * the type (apiVersion, kind) and the object's own message bytes.
 */
import { envelopeMessages } from './messages.js';
import { assemble, type LengthDelimited } from './wire-writer.js';

/** "k8s\0". */
export const PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A decoding failure with Go's error text; callers wrap it into kube's 400 message. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  /** The object's message bytes (no envelope). */
  readonly raw: Uint8Array;
  /** runtime.Unknown.contentType: empty for protobuf. */
  readonly contentType: string;
}

const typeMetas = new Map<string, Uint8Array>();

/** runtime.TypeMeta's bytes, encoded once per apiVersion and kind (read-only: callers copy them). */
function typeMetaBytes(apiVersion: string, kind: string): Uint8Array {
  const key = `${apiVersion}\n${kind}`;
  let bytes = typeMetas.get(key);
  if (bytes === undefined) {
    bytes = envelopeMessages.typeMeta().encode({ apiVersion, kind }).finish();
    if (typeMetas.size >= 4096) typeMetas.clear();
    typeMetas.set(key, bytes);
  }
  return bytes;
}

/** Wraps an object's message bytes: magic + Unknown{typeMeta, raw}. */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  return encodeEnvelopeParts(apiVersion, kind, [raw]);
}

/**
 * The envelope as Go writes it: Unknown's empty `contentEncoding` and `contentType` are
 * written too (kube-apiserver's stored values end with them).
 */
export function encodeEnvelopeGo(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = typeMetaBytes(apiVersion, kind);
  return assemble(PROTOBUF_MAGIC, [{ field: 1, parts: [typeMeta] }, { field: 2, parts: [raw] }, { field: 3, parts: [] }, { field: 4, parts: [] }]);
}

/**
 * Wraps a message given as parts (raw bytes and length-delimited fields, e.g. a list's
 * metadata and its cached items) in the envelope, copying each part once.
 */
export function encodeEnvelopeParts(apiVersion: string, kind: string, raw: readonly (Uint8Array | LengthDelimited)[]): Buffer {
  const typeMeta = typeMetaBytes(apiVersion, kind);
  return assemble(PROTOBUF_MAGIC, [{ field: 1, parts: [typeMeta] }, { field: 2, parts: raw }]);
}

/**
 * Unwraps an enveloped body. Throws ProtobufDecodeError with kube's texts: `empty data`
 * (no bytes), `provided data does not appear to be a protobuf message, expected prefix
 * [107 56 115 0]` (wrong or missing magic), `empty body` (only the magic), or the decoding
 * error of a malformed Unknown.
 */
export function decodeEnvelope(data: Uint8Array): Envelope {
  if (data.length === 0) throw new ProtobufDecodeError('empty data');
  const hasMagic = data.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => data[i] === b);
  if (!hasMagic) throw new ProtobufDecodeError(`provided data does not appear to be a protobuf message, expected prefix [${PROTOBUF_MAGIC.join(' ')}]`);
  if (data.length === PROTOBUF_MAGIC.length) throw new ProtobufDecodeError('empty body');
  const unknown = decodeMessage(() => envelopeMessages.unknown().decode(data.subarray(PROTOBUF_MAGIC.length))) as UnknownMessage;
  return {
    apiVersion: unknown.typeMeta?.apiVersion ?? '',
    kind: unknown.typeMeta?.kind ?? '',
    raw: unknown.raw ?? new Uint8Array(0),
    contentType: unknown.contentType ?? '',
  };
}

/** runtime.Unknown as protobufjs decodes it. */
interface UnknownMessage {
  typeMeta?: { apiVersion?: string | null; kind?: string | null } | null;
  raw?: Uint8Array | null;
  contentType?: string | null;
}

/** Runs a protobufjs decode, turning its errors into Go-like ProtobufDecodeErrors. */
export function decodeMessage<T>(decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    // protobufjs reports truncation as "index out of range: <pos> + <n> > <len>"; Go says "unexpected EOF".
    if (/index out of range/.test(message)) throw new ProtobufDecodeError('unexpected EOF');
    // protobufjs: "invalid wire type 7 at offset 1"; Go's generated Unmarshal: "illegal wireType 7".
    const wireType = /invalid wire type (\d+)/.exec(message);
    if (wireType !== null) throw new ProtobufDecodeError(`proto: illegal wireType ${wireType[1]}`);
    throw new ProtobufDecodeError(`proto: ${message}`);
  }
}
