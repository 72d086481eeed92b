/**
 * kube's protobuf envelope: the magic bytes `k8s\0` followed by a runtime.Unknown that holds
 * the type (apiVersion, kind) and the object's own message bytes.
 */
import { envelopeMessages } from './messages.js';
import { assemble, varintSize, writeVarint, type LengthDelimited } from './wire-writer.js';

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
 * The bytes of an envelope that come before a message of `rawLength` bytes (what
 * encodeEnvelope writes before `raw`), for a body written in pieces.
 */
export function envelopeHead(apiVersion: string, kind: string, rawLength: number): Buffer {
  const typeMeta = typeMetaBytes(apiVersion, kind);
  const head = Buffer.allocUnsafe(PROTOBUF_MAGIC.length + 1 + varintSize(typeMeta.length) + typeMeta.length + 1 + varintSize(rawLength));
  head.set(PROTOBUF_MAGIC, 0);
  let pos = writeVarint(head, PROTOBUF_MAGIC.length, (1 << 3) | 2);
  pos = writeVarint(head, pos, typeMeta.length);
  head.set(typeMeta, pos);
  pos = writeVarint(head, pos + typeMeta.length, (2 << 3) | 2);
  writeVarint(head, pos, rawLength);
  return head;
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
  const fast = readCanonicalEnvelope(data);
  if (fast !== undefined) return fast;
  const unknown = decodeMessage(() => envelopeMessages.unknown().decode(data.subarray(PROTOBUF_MAGIC.length))) as UnknownMessage;
  return {
    apiVersion: unknown.typeMeta?.apiVersion ?? '',
    kind: unknown.typeMeta?.kind ?? '',
    raw: unknown.raw ?? new Uint8Array(0),
    contentType: unknown.contentType ?? '',
  };
}

/** Reads a base-128 varint of at most 4 bytes (a length below 2^28) at `pos`: [value, next position], or undefined. */
function smallVarint(data: Uint8Array, pos: number): [number, number] | undefined {
  let value = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= data.length) return undefined;
    const byte = data[pos++]!;
    value |= (byte & 0x7f) << shift;
    if (byte < 0x80) return [value, pos];
  }
  return undefined;
}

/** The last strings read by `asciiString`, one per slot: stored values repeat the same apiVersion and kind. */
const lastAscii: string[] = ['', '', ''];

/**
 * An ASCII string of data[start, end), or undefined when a byte is not ASCII or it is longer
 * than 256 bytes (no apiVersion, kind or content type is; the general reader takes those). The string of
 * the last call with the same `slot` is returned again when the bytes are the same (no new string).
 */
function asciiString(data: Uint8Array, start: number, end: number, slot: number): string | undefined {
  const last = lastAscii[slot]!;
  if (last.length === end - start) {
    let same = true;
    for (let i = 0; i < last.length; i++) {
      if (data[start + i] !== last.charCodeAt(i)) {
        same = false;
        break;
      }
    }
    if (same) return last;
  }
  if (end - start > 256) return undefined;
  for (let i = start; i < end; i++) if (data[i]! >= 0x80) return undefined;
  const text = String.fromCharCode(...data.subarray(start, end));
  lastAscii[slot] = text;
  return text;
}

/**
 * The envelope as kube and kapi write it, read without protobufjs: Unknown's fields 1..4 each
 * at most once and in order, TypeMeta's apiVersion and kind each at most once, ASCII text.
 * Undefined for anything else (repeated, unknown or out-of-order fields, other wire types,
 * truncation, non-ASCII text), which the general decoder then reads, with its errors. What it
 * returns is what the general decoder returns for the same bytes (raw is a view of `data`).
 */
function readCanonicalEnvelope(data: Uint8Array): Envelope | undefined {
  let pos = PROTOBUF_MAGIC.length;
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array | undefined;
  let contentType = '';
  let lastField = 0;
  while (pos < data.length) {
    const tag = data[pos++]!;
    // Fields 1..4, length-delimited: tags 0x0a, 0x12, 0x1a, 0x22.
    const field = tag >> 3;
    if ((tag & 7) !== 2 || field < 1 || field > 4 || field <= lastField) return undefined;
    lastField = field;
    const length = smallVarint(data, pos);
    if (length === undefined) return undefined;
    const start = length[1];
    const end = start + length[0];
    if (end > data.length) return undefined;
    pos = end;
    if (field === 1) {
      let at = start;
      let typeField = 0;
      while (at < end) {
        const typeTag = data[at++]!;
        const f = typeTag >> 3;
        if ((typeTag & 7) !== 2 || f < 1 || f > 2 || f <= typeField) return undefined;
        typeField = f;
        const l = smallVarint(data, at);
        if (l === undefined || l[1] + l[0] > end) return undefined;
        const text = asciiString(data, l[1], l[1] + l[0], f - 1);
        if (text === undefined) return undefined;
        if (f === 1) apiVersion = text;
        else kind = text;
        at = l[1] + l[0];
      }
    } else if (field === 2) {
      raw = data.subarray(start, end);
    } else if (field === 4) {
      const text = asciiString(data, start, end, 2);
      if (text === undefined) return undefined;
      contentType = text;
    }
  }
  return { apiVersion, kind, raw: raw ?? new Uint8Array(0), contentType };
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
