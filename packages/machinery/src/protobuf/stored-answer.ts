/**
 * The protobuf answer to a write made from the bytes it stored. kube-apiserver answers a create
 * with the object it decoded from what it stored, so its protobuf answer is the stored
 * encoding (Go's zero values and Unknown's empty fields included) with
 * `metadata.resourceVersion` set, and nothing else changed. Splicing that one field into the
 * stored bytes gives the same answer without encoding the object a second time.
 */
import { PROTOBUF_MAGIC } from './envelope.js';
import { protobufKind } from './kind-codecs.js';
import { varintSize, writeVarint } from './wire-writer.js';

/** runtime.Unknown's `typeMeta` and `raw` (the object's message bytes). */
const UNKNOWN_TYPE_META = 1;
const UNKNOWN_RAW = 2;
/** TypeMeta's `apiVersion` and `kind`. */
const TYPE_META_API_VERSION = 1;
const TYPE_META_KIND = 2;
/** ObjectMeta's `resourceVersion`. */
const OBJECT_META_RESOURCE_VERSION = 6;
const LENGTH_DELIMITED = 2;

// The field `readField` read last (module scratch, so a scan allocates nothing).
let fieldNumber = 0;
let wireType = 0;
let lengthStart = 0;
let valueStart = 0;
let fieldEnd = 0;
// Where `readVarint` stopped.
let varintEnd = 0;

/** A varint below 2^32 at `pos` (sets varintEnd), or -1 (truncated, longer). */
function readVarint(data: Uint8Array, pos: number, end: number): number {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (pos >= end) return -1;
    const byte = data[pos++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) {
      varintEnd = pos;
      return value < 2 ** 32 ? value : -1;
    }
  }
  return -1;
}

/** Reads the field starting at `pos` of a message ending at `end` into the scratch; false when the bytes are not a well-formed field. */
function readField(data: Uint8Array, pos: number, end: number): boolean {
  const tag = readVarint(data, pos, end);
  if (tag < 0) return false;
  fieldNumber = Math.floor(tag / 8);
  wireType = tag & 7;
  lengthStart = valueStart = varintEnd;
  switch (wireType) {
    case 0: {
      // A varint value may hold 64 bits: up to ten bytes.
      let at = lengthStart;
      while (at < end && at - lengthStart < 10 && data[at]! >= 0x80) at++;
      if (at >= end || at - lengthStart >= 10) return false;
      fieldEnd = at + 1;
      break;
    }
    case 1:
      fieldEnd = lengthStart + 8;
      break;
    case LENGTH_DELIMITED: {
      const length = readVarint(data, lengthStart, end);
      if (length < 0) return false;
      valueStart = varintEnd;
      fieldEnd = valueStart + length;
      break;
    }
    case 5:
      fieldEnd = lengthStart + 4;
      break;
    default:
      return false;
  }
  return fieldNumber !== 0 && fieldEnd <= end;
}

/**
 * Finds the first field `number` of data[start, end), which must be length-delimited: true
 * with the scratch describing it. Canonical bytes (as an encoder writes them) have one of each.
 */
function findField(data: Uint8Array, start: number, end: number, number: number): boolean {
  for (let pos = start; pos < end; pos = fieldEnd) {
    if (!readField(data, pos, end)) return false;
    if (fieldNumber === number) return wireType === LENGTH_DELIMITED;
  }
  return false;
}

/** What a splice needs of a kind whose metadata is an ObjectMeta: the metadata's field number and the TypeMeta its envelope carries. */
interface KindLayout {
  readonly metaNumber: number;
  readonly apiVersion: Buffer;
  readonly kind: Buffer;
}

/** By `apiVersion/kind`; undefined for kinds without an ObjectMeta. */
const layouts = new Map<string, KindLayout | undefined>();

function kindLayout(apiVersion: string, kind: string): KindLayout | undefined {
  const key = `${apiVersion}/${kind}`;
  if (layouts.has(key)) return layouts.get(key);
  const type = protobufKind(apiVersion, kind)?.codec.type as { fields: Record<string, { id: number; type?: string }> } | undefined;
  const field = type?.fields['metadata'];
  const layout = field !== undefined && field.type !== undefined && /(^|\.)ObjectMeta$/.test(field.type) ? { metaNumber: field.id, apiVersion: Buffer.from(apiVersion), kind: Buffer.from(kind) } : undefined;
  if (layouts.size < 4096) layouts.set(key, layout);
  return layout;
}

/** Whether data[start, end), a TypeMeta message, names exactly `layout`'s apiVersion (1) and kind (2). */
function typeMetaIs(data: Uint8Array, start: number, end: number, layout: KindLayout): boolean {
  return findField(data, start, end, TYPE_META_API_VERSION) && bytesAre(data, valueStart, fieldEnd, layout.apiVersion) && findField(data, start, end, TYPE_META_KIND) && bytesAre(data, valueStart, fieldEnd, layout.kind);
}

function bytesAre(data: Uint8Array, start: number, end: number, expected: Buffer): boolean {
  if (end - start !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (data[start + i] !== expected[i]) return false;
  return true;
}

/**
 * `stored` (an enveloped object of `apiVersion`/`kind` as kapi's and kube's Go-form encoders
 * write it, without a resourceVersion) with `metadata.resourceVersion` set to
 * `resourceVersion`: the field replaced where the bytes have it (Go writes it even when empty),
 * else inserted before ObjectMeta's later fields. A new buffer; `stored` is not changed.
 * Undefined when the bytes are not an enveloped object of exactly `apiVersion`/`kind` (its
 * envelope's TypeMeta) whose metadata is an ObjectMeta in canonical form (the caller then
 * encodes the object instead).
 */
export function withResourceVersion(stored: Uint8Array, apiVersion: string, kind: string, resourceVersion: string): Buffer | undefined {
  const magic = PROTOBUF_MAGIC.length;
  if (!hasMagic(stored)) return undefined;
  const layout = kindLayout(apiVersion, kind);
  if (layout === undefined) return undefined;
  if (!findField(stored, magic, stored.length, UNKNOWN_TYPE_META) || !typeMetaIs(stored, valueStart, fieldEnd, layout)) return undefined;
  const metaNumber = layout.metaNumber;
  if (!findField(stored, magic, stored.length, UNKNOWN_RAW)) return undefined;
  const raw = { lengthStart, valueStart, end: fieldEnd };
  if (!findField(stored, raw.valueStart, raw.end, metaNumber)) return undefined;
  const meta = { lengthStart, valueStart, end: fieldEnd };
  // Where the new field goes: over the present one, or before the first later field.
  let cutStart = -1;
  let cutEnd = -1;
  for (let pos = meta.valueStart; pos < meta.end; pos = fieldEnd) {
    if (!readField(stored, pos, meta.end)) return undefined;
    if (fieldNumber === OBJECT_META_RESOURCE_VERSION) {
      if (wireType !== LENGTH_DELIMITED) return undefined;
      cutStart = pos;
      cutEnd = fieldEnd;
      break;
    }
    if (fieldNumber > OBJECT_META_RESOURCE_VERSION) {
      cutStart = cutEnd = pos;
      break;
    }
  }
  if (cutStart < 0) cutStart = cutEnd = meta.end;
  const rvLength = Buffer.byteLength(resourceVersion);
  const rvField = 1 + varintSize(rvLength) + rvLength;
  const metaLength = meta.end - meta.valueStart - (cutEnd - cutStart) + rvField;
  const rawLength = raw.end - raw.valueStart - (meta.end - meta.lengthStart) + varintSize(metaLength) + metaLength;
  const size = stored.length - (raw.end - raw.lengthStart) + varintSize(rawLength) + rawLength;
  const out = Buffer.allocUnsafe(size);
  let at = copy(stored, 0, raw.lengthStart, out, 0);
  at = writeVarint(out, at, rawLength);
  at = copy(stored, raw.valueStart, meta.lengthStart, out, at);
  at = writeVarint(out, at, metaLength);
  at = copy(stored, meta.valueStart, cutStart, out, at);
  out[at++] = (OBJECT_META_RESOURCE_VERSION << 3) | LENGTH_DELIMITED;
  at = writeVarint(out, at, rvLength);
  at += out.write(resourceVersion, at, 'utf8');
  at = copy(stored, cutEnd, stored.length, out, at);
  if (at !== size) throw new Error(`resourceVersion splice wrote ${at} of ${size} bytes`);
  return out;
}

/** Copies from[start, end) to out at `at`; returns the offset after it. */
function copy(from: Uint8Array, start: number, end: number, out: Buffer, at: number): number {
  if (end - start < 64) {
    for (let i = start; i < end; i++) out[at++] = from[i]!;
    return at;
  }
  out.set(from.subarray(start, end), at);
  return at + end - start;
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === PROTOBUF_MAGIC[0] && bytes[1] === PROTOBUF_MAGIC[1] && bytes[2] === PROTOBUF_MAGIC[2] && bytes[3] === PROTOBUF_MAGIC[3];
}

/**
 * The stored encodings of objects on their way to an answer, by the object's identity, until
 * their answers take them: the storage notes an object it hands to a caller that only reads it
 * (so it cannot change after the bytes were decoded into it), together with the bytes it was
 * decoded from (a write's result, a GET's read, an event of this process's write); the HTTP
 * layer takes the bytes back to answer with. An object may be noted by several requests at once
 * (a cached object read by concurrent GETs): each note is one use, each take ends one, and the
 * bytes go with the last. Bounded, oldest dropped first: a note nobody takes (a JSON answer, a
 * failed response, an event no protobuf watcher receives) costs nothing beyond the bound.
 */
interface Note {
  readonly bytes: Uint8Array;
  uses: number;
}
const notes = new Map<object, Note>();
let notedBytes = 0;
const MAX_NOTES = 256;
const MAX_NOTED_BYTES = 16 * 1024 * 1024;

/** Objects decoded from bytes that encoding them would not give back (see markNotReencodable). */
const notReencodable = new WeakSet<object>();

/**
 * Marks `obj` as decoded from protobuf bytes that encoding it would not reproduce (fields its
 * message type does not know, which decoding dropped; fields out of order): its stored bytes are
 * then never noted, and its answers are encoded.
 */
export function markNotReencodable(obj: object): void {
  notReencodable.add(obj);
}

/**
 * Notes that `obj`, which must never change from now on, was decoded from the enveloped
 * protobuf `stored` (its Go form, as the storage wrote or read it), for one answer. Only
 * protobuf values are noted, and not for objects marked by markNotReencodable.
 */
export function noteStoredEncoding(obj: object, stored: Uint8Array): void {
  if (!hasMagic(stored) || notReencodable.has(obj)) return;
  const note = notes.get(obj);
  // The same object decodes from the same bytes: a second note is a second use of the first.
  if (note !== undefined) {
    note.uses++;
    return;
  }
  notes.set(obj, { bytes: stored, uses: 1 });
  notedBytes += stored.length;
  while (notes.size > MAX_NOTES || notedBytes > MAX_NOTED_BYTES) forget(notes.keys().next().value as object);
}

function forget(obj: object): void {
  const note = notes.get(obj);
  if (note === undefined) return;
  notes.delete(obj);
  notedBytes -= note.bytes.length;
}

/** Ends one use of `obj`'s note; returns its bytes, or undefined when nothing is noted for it. */
function release(obj: object): Uint8Array | undefined {
  const note = notes.get(obj);
  if (note === undefined) return undefined;
  if (--note.uses <= 0) forget(obj);
  return note.bytes;
}

/**
 * The protobuf answer for `obj` made from its noted stored encoding (see
 * {@link withResourceVersion}), ending one use of the note; undefined when nothing is noted for
 * it, or the bytes cannot be spliced. The answer is what encoding `obj` in Go's form gives.
 */
export function takeStoredAnswer(obj: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): Buffer | undefined {
  const stored = release(obj);
  if (stored === undefined) return undefined;
  const resourceVersion = (obj.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  if (typeof resourceVersion !== 'string' || resourceVersion === '') return undefined;
  return withResourceVersion(stored, String(obj.apiVersion ?? ''), String(obj.kind ?? ''), resourceVersion);
}

/** Ends one use of `obj`'s note without answering from it (the answer came from elsewhere). */
export function dropStoredAnswer(obj: object): void {
  release(obj);
}
