/**
 * Objects, lists and watch frames as protobuf. Object bytes (`encodeObjectRaw`) are the
 * message alone, as list items and the inside of an envelope need them; callers cache them
 * per shared object and build envelopes and lists around the cached bytes.
 */
import type { KubeList, ListMeta } from '../object.js';
import { decodeEnvelope, decodeMessage, encodeEnvelope, encodeEnvelopeGo, encodeEnvelopeParts, envelopeHead, ProtobufDecodeError, type Envelope } from './envelope.js';
import { varintSize, writeVarint, type LengthDelimited } from './wire-writer.js';
import { fromProtoMessage, fromProtoMessageInterning, fromProtoMessageInto, toProtoMessage, withGoBytes, withGoBytesExact, type MessageCodec } from './field-codec.js';
import { watchEventMessage } from './messages.js';
import { protobufKind, protobufKindOfList, type ProtobufKind } from './kind-codecs.js';
import { checkWireTypes } from './wire-types.js';
import { markNotReencodable } from './stored-answer.js';
import { messageCodecOf } from './wire-codecs.js';
import { readerFor } from './interning-reader.js';

const listMetaCodec = (): MessageCodec => messageCodecOf('k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta');

function kindOf(obj: { apiVersion?: unknown; kind?: unknown }): ProtobufKind {
  const found = protobufKind(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
  if (found === undefined) throw new Error(`no protobuf message for ${String(obj.apiVersion)}/${String(obj.kind)}`);
  return found;
}

/** Whether kapi can encode objects of this apiVersion/kind as protobuf. */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return protobufKind(apiVersion, kind) !== undefined;
}

/** The object's message bytes, without envelope. Throws for a kind without protobuf. */
export function encodeObjectRaw(obj: { apiVersion?: unknown; kind?: unknown; [field: string]: unknown }): Uint8Array {
  const { codec } = kindOf(obj);
  return codec.type.encode(toProtoMessage(codec, obj)).finish();
}

/**
 * The object enveloped as kube-apiserver's Go encoder writes it (what it stores in etcd), in
 * Go-bytes mode (see `withGoBytes`) with Unknown's empty fields: byte for byte what kube
 * writes for the same object, the value structs and scalars the JSON leaves out included as
 * Go's zero values. Throws for a kind without protobuf.
 */
export function encodeObjectGo(obj: { apiVersion?: unknown; kind?: unknown; [field: string]: unknown }): Buffer {
  const { codec } = kindOf(obj);
  const raw = withGoBytes(() => codec.type.encode(toProtoMessage(codec, obj)).finish());
  return encodeEnvelopeGo(String(obj.apiVersion ?? ''), String(obj.kind ?? ''), raw);
}

/**
 * encodeObjectGo, and the object decoding those bytes gives (what decodeEnveloped returns for
 * them), made from the message the bytes were encoded from rather than by decoding them: the
 * same fields, values and key order, at a third of the cost. `decoded` is undefined when the
 * message cannot stand for the bytes (a string that is not well-formed UTF-16, an integer out of
 * its field's range: see withGoBytesExact); the caller then decodes the bytes. The decoded
 * object shares nothing with `obj` but its managed fields' FieldsV1 values, which are never
 * changed in place (a decode would parse equal ones from their text).
 */
export function encodeObjectGoDecoded(obj: { apiVersion?: unknown; kind?: unknown; [field: string]: unknown }): { bytes: Buffer; decoded: Record<string, unknown> | undefined } {
  const { codec } = kindOf(obj);
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const { result: message, exact } = withGoBytesExact(() => toProtoMessage(codec, obj));
  const raw = withGoBytes(() => codec.type.encode(message).finish());
  const bytes = encodeEnvelopeGo(apiVersion, kind, raw);
  if (!exact) return { bytes, decoded: undefined };
  const decoded: Record<string, unknown> = {};
  if (apiVersion !== '') decoded['apiVersion'] = apiVersion;
  if (kind !== '') decoded['kind'] = kind;
  return { bytes, decoded: fromProtoMessageInterning(codec, message, decoded) };
}

/** The object enveloped (`k8s\0` + Unknown), from its message bytes. */
export function envelopeObject(obj: { apiVersion?: unknown; kind?: unknown }, raw: Uint8Array): Buffer {
  return encodeEnvelope(String(obj.apiVersion ?? ''), String(obj.kind ?? ''), raw);
}

/**
 * A list enveloped: `<Kind>List{metadata=1, items=2...}` from each item's message bytes
 * (`itemRaw(i)`), so cached item bytes are copied, not re-encoded.
 */
export function encodeList(list: Pick<KubeList, 'apiVersion' | 'kind' | 'metadata'> & { items: readonly unknown[] }, itemRaw: (index: number) => Uint8Array): Buffer {
  const fields = protobufKindOfList(list.apiVersion, list.kind)?.listFields ?? { metadata: 1, items: 2 };
  const codec = listMetaCodec();
  const parts: LengthDelimited[] = new Array<LengthDelimited>(list.items.length + 1);
  parts[0] = { field: fields.metadata, parts: [codec.type.encode(toProtoMessage(codec, list.metadata)).finish()] };
  for (let i = 0; i < list.items.length; i++) parts[i + 1] = { field: fields.items, parts: [itemRaw(i)] };
  return encodeEnvelopeParts(list.apiVersion, list.kind, parts);
}

/**
 * How encodeList's bytes are framed, for a list written in pieces: `head` (the envelope and
 * the list's metadata field), then for each item the key `itemKey` (one byte), the item's size
 * as a varint, and the item's message bytes. `length` is the whole body's.
 */
export interface ListFraming {
  readonly head: Buffer;
  readonly itemKey: number;
  readonly length: number;
}

/** The framing of encodeList(list, ...) for items of `itemSizes` bytes. */
export function frameList(list: Pick<KubeList, 'apiVersion' | 'kind' | 'metadata'>, itemSizes: ArrayLike<number>): ListFraming {
  const fields = protobufKindOfList(list.apiVersion, list.kind)?.listFields ?? { metadata: 1, items: 2 };
  const codec = listMetaCodec();
  const metadata = codec.type.encode(toProtoMessage(codec, list.metadata)).finish();
  const metadataKey = (fields.metadata << 3) | 2;
  const itemKey = (fields.items << 3) | 2;
  if (itemKey >= 0x80) throw new Error(`list items field ${fields.items} needs a key of more than one byte`);
  let rawLength = varintSize(metadataKey) + varintSize(metadata.length) + metadata.length;
  for (let i = 0; i < itemSizes.length; i++) rawLength += 1 + varintSize(itemSizes[i]!) + itemSizes[i]!;
  const envelope = envelopeHead(list.apiVersion, list.kind, rawLength);
  const head = Buffer.allocUnsafe(envelope.length + varintSize(metadataKey) + varintSize(metadata.length) + metadata.length);
  head.set(envelope, 0);
  let pos = writeVarint(head, envelope.length, metadataKey);
  pos = writeVarint(head, pos, metadata.length);
  head.set(metadata, pos);
  return { head, itemKey, length: envelope.length + rawLength };
}

/** Whether kapi can encode a list of this apiVersion/listKind. */
export function hasProtobufList(apiVersion: string, listKind: string): boolean {
  return protobufKindOfList(apiVersion, listKind) !== undefined;
}

/**
 * One protobuf watch frame: 4-byte big-endian length + WatchEvent{type, object: RawExtension{raw:
 * enveloped object}} (the event itself is not enveloped).
 */
export function encodeWatchFrame(type: string, envelopedObject: Uint8Array): Buffer {
  const event = watchEventMessage().encode({ type, object: { raw: envelopedObject } }).finish();
  const out = Buffer.allocUnsafe(4 + event.length);
  out.writeUInt32BE(event.length, 0);
  out.set(event, 4);
  return out;
}

/** A decoded protobuf object: JSON with apiVersion/kind from the envelope (when non-empty). */
export interface DecodedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly object: Record<string, unknown>;
}

/**
 * Decodes an enveloped body as the message of `decodeAs` (the endpoint's kind: the body's own
 * type is reported back for the caller to check, as kube's decoder does). Throws
 * ProtobufDecodeError for a bad envelope or malformed message bytes.
 */
export function decodeObject(data: Uint8Array, decodeAs: { apiVersion: string; kind: string }): DecodedObject {
  return decodeEnveloped(decodeEnvelope(data), decodeAs);
}

/** The second half of decodeObject: the message inside an already unwrapped envelope. */
export function decodeEnveloped(envelope: Envelope, decodeAs: { apiVersion: string; kind: string }): DecodedObject {
  if (envelope.contentType !== '' && envelope.contentType !== 'application/vnd.kubernetes.protobuf') {
    throw new ProtobufDecodeError(`unsupported content type ${JSON.stringify(envelope.contentType)} in the protobuf envelope`);
  }
  const target = protobufKind(decodeAs.apiVersion, decodeAs.kind);
  if (target === undefined) throw new ProtobufDecodeError(`no kind "${decodeAs.kind}" is registered for version "${decodeAs.apiVersion}"`);
  const canonical = checkWireTypes(target.codec.type, envelope.raw);
  const message = decodeMessage(() => target.codec.type.decode(readerFor(envelope.raw)));
  const object: Record<string, unknown> = {};
  if (envelope.apiVersion !== '') object['apiVersion'] = envelope.apiVersion;
  if (envelope.kind !== '') object['kind'] = envelope.kind;
  if (!canonical) markNotReencodable(object);
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, object: fromProtoMessageInto(target.codec, message, object) };
}

/** Decodes an enveloped list (for tests and clients): items carry the list's apiVersion and item kind. */
export function decodeList(data: Uint8Array): KubeList {
  const envelope = decodeEnvelope(data);
  const kind = protobufKindOfList(envelope.apiVersion, envelope.kind);
  if (kind === undefined || kind.listType === undefined) throw new ProtobufDecodeError(`no list kind "${envelope.kind}" is registered for version "${envelope.apiVersion}"`);
  const listType = kind.listType;
  const message = decodeMessage(() => listType.decode(envelope.raw)) as { metadata?: unknown; items?: unknown[] };
  const items = (message.items ?? []).map((item) => ({ apiVersion: kind.apiVersion, kind: kind.kind, ...(fromProtoMessage(kind.codec, item) as Record<string, unknown>) }));
  return {
    apiVersion: envelope.apiVersion,
    kind: envelope.kind,
    metadata: (message.metadata !== undefined && message.metadata !== null ? fromProtoMessage(listMetaCodec(), message.metadata) : {}) as ListMeta,
    items: items as KubeList['items'],
  };
}

/** Splits a protobuf watch stream into events (for tests and clients). Returns the undecoded rest. */
export function decodeWatchFrames(data: Uint8Array): { events: { type: string; object: DecodedObject }[]; rest: Uint8Array } {
  const events: { type: string; object: DecodedObject }[] = [];
  let offset = 0;
  while (data.length - offset >= 4) {
    const length = Buffer.from(data.buffer, data.byteOffset + offset, 4).readUInt32BE(0);
    if (data.length - offset - 4 < length) break;
    const frame = data.subarray(offset + 4, offset + 4 + length);
    const event = decodeMessage(() => watchEventMessage().decode(frame)) as { type?: string | null; object?: { raw?: Uint8Array | null } | null };
    const raw = event.object?.raw ?? new Uint8Array(0);
    const envelope = decodeEnvelope(raw);
    events.push({ type: event.type ?? '', object: decodeObject(raw, { apiVersion: envelope.apiVersion, kind: envelope.kind }) });
    offset += 4 + length;
  }
  return { events, rest: data.subarray(offset) };
}

