/**
 * Serialize once (DESIGN §4): objects and watch events shared between many readers (cached
 * objects, events fanned out to N watchers) are encoded once per media type; the bytes are
 * remembered by the object's identity in WeakMaps, so every watcher and every list that
 * carries the same object reuses them, and they are dropped with the object. This relies on
 * the contract that shared objects and events are read-only: an object must never be changed
 * after it has been encoded here.
 *
 * Per object: its UTF-8 JSON, its protobuf message bytes (what a list item is) and its
 * enveloped protobuf (what a single response and a watch event carry). Per event: the JSON
 * line and the protobuf frame.
 */
import type { KubeList, KubeObject } from '@kapi/machinery';
import { dropStoredAnswer, encodeList, encodeObjectRaw, encodeWatchFrame, envelopeObject, frameList, takeStoredAnswer } from '@kapi/machinery';
import type { WatchEvent } from '@kapi/registry';
import { ChunkCopier, LARGE_PIECE_BYTES } from './body-chunks.js';

/** An object's JSON and where its list-item form (without TypeMeta) starts in it. */
interface EncodedJson {
  readonly bytes: Buffer;
  /**
   * How many leading bytes the list item without apiVersion and kind leaves out: those of
   * `{"apiVersion":..,"kind":..` (either order), so that the comma after them, written as an
   * opening brace, starts the item; 0 when the JSON does not begin with them.
   */
  readonly typeMetaSkip: number;
}

const objectJson = new WeakMap<object, EncodedJson>();
const objectProtobuf = new WeakMap<object, Uint8Array>();
const objectEnvelope = new WeakMap<object, Buffer>();
const eventLines = new WeakMap<WatchEvent, Buffer>();
const eventFrames = new WeakMap<WatchEvent, Buffer>();

/** The UTF-8 JSON of a shared, read-only object (cached by identity). */
export function jsonBytesOf(obj: object): Buffer {
  return encodedJsonOf(obj).bytes;
}

function encodedJsonOf(obj: object): EncodedJson {
  let encoded = objectJson.get(obj);
  if (encoded === undefined) {
    const bytes = Buffer.from(JSON.stringify(obj));
    encoded = { bytes, typeMetaSkip: typeMetaSkipOf(obj as KubeObject, bytes) };
    objectJson.set(obj, encoded);
  }
  return encoded;
}

/** The JSON text of a shared, read-only object (from the cached bytes). */
export function jsonOf(obj: object): string {
  return jsonBytesOf(obj).toString('utf8');
}

const LINE_END = Buffer.from('}\n');

/**
 * One watch event as it goes on the wire: `{"type":"ADDED","object":{...}}` and a newline.
 * The line is cached per event, the object's JSON per object (a selector transition sends the
 * same object as MODIFIED to one watcher and DELETED to another).
 */
export function watchEventLine(event: WatchEvent): Buffer {
  let line = eventLines.get(event);
  if (line === undefined) {
    line = Buffer.concat([Buffer.from(`{"type":${JSON.stringify(event.type)},"object":`), jsonBytesOf(event.object), LINE_END]);
    eventLines.set(event, line);
  }
  return line;
}

const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}');

/**
 * A list as UTF-8 JSON, with each item's bytes taken from (or put into) the per-object cache
 * and copied once into the body. The envelope is written as kube writes it: kind,
 * apiVersion, metadata, items.
 */
export function listJsonBytes(list: KubeList): Buffer {
  const parts: Buffer[] = new Array<Buffer>(list.items.length * 2 + 1);
  parts[0] = Buffer.from(`{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`);
  let n = 1;
  for (let i = 0; i < list.items.length; i++) {
    if (i > 0) parts[n++] = COMMA;
    parts[n++] = jsonBytesOf(list.items[i] as KubeObject);
  }
  parts[n++] = LIST_END;
  parts.length = n;
  return Buffer.concat(parts);
}

/**
 * A body as buffers written in order (no copy into one buffer). `parts` may be produced lazily
 * while the body is written, so iterate it once.
 */
export interface BodyParts {
  readonly parts: Iterable<Buffer>;
  readonly length: number;
  /**
   * The same body as one buffer, for a response that is gzipped when the body can be made so
   * (instead of `parts`): Node's gzip stream costs far more CPU fed chunk by chunk than given
   * the body at once (a 10k-item protobuf list over HTTPS: ~170 against ~65 ms).
   */
  readonly joined?: () => Buffer;
}

const COMMA_BYTE = 0x2c;
const OPEN_BRACE_BYTE = 0x7b;

/**
 * listJsonBytes without the final copy: the same bytes as parts for one streamed write.
 * Every item's cached bytes are resolved up front (for the Content-Length); the chunks are
 * made as the response takes them: large items (≥ 16 KiB) are their cached per-object
 * buffers, runs of small items are copied into chunks of 64–80 KiB (so a list of 10,000 small
 * objects is not 20,000 buffers). A response the client reads slowly holds one chunk, not a
 * copy of the whole list: ten concurrent 72 MB lists used to pin ~720 MB of chunk copies.
 */
export function listJsonParts(list: KubeList, options: ListItemOptions = {}): BodyParts {
  const head = Buffer.from(`{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`);
  const count = list.items.length;
  const bodies = new Array<Buffer>(count);
  // Per item, how many leading bytes of its cached JSON are left out (EncodedJson.typeMetaSkip).
  const skips = options.withoutTypeMeta === true ? new Int32Array(count) : undefined;
  let length = head.length + LIST_END.length + Math.max(0, count - 1);
  for (let i = 0; i < count; i++) {
    const encoded = encodedJsonOf(list.items[i] as KubeObject);
    bodies[i] = encoded.bytes;
    length += encoded.bytes.length;
    if (skips !== undefined) {
      skips[i] = encoded.typeMetaSkip;
      length -= encoded.typeMetaSkip;
    }
  }
  return { parts: listChunks(head, bodies, skips, length), length };
}

export interface ListItemOptions {
  /**
   * Leave out each item's apiVersion and kind, as kube encodes the lists of its built-in kinds
   * (their items are typed Go structs, whose TypeMeta is empty); custom-resource list items
   * keep them. The cached object bytes are reused: only their leading TypeMeta is skipped.
   */
  readonly withoutTypeMeta?: boolean;
}

const typeMetaPrefixes = new Map<string, readonly [Buffer, Buffer]>();

/** EncodedJson.typeMetaSkip of `bytes`, the JSON of `obj`. */
function typeMetaSkipOf(obj: KubeObject, bytes: Buffer): number {
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return 0;
  for (const prefix of typeMetaPrefixesOf(obj.apiVersion, obj.kind)) if (startsWith(bytes, prefix)) return prefix.length - 1;
  return 0;
}

function typeMetaPrefixesOf(apiVersion: string, kind: string): readonly [Buffer, Buffer] {
  const key = `${apiVersion}\u0000${kind}`;
  let prefixes = typeMetaPrefixes.get(key);
  if (prefixes === undefined) {
    const av = `"apiVersion":${JSON.stringify(apiVersion)}`;
    const k = `"kind":${JSON.stringify(kind)}`;
    prefixes = [Buffer.from(`{${av},${k},`), Buffer.from(`{${k},${av},`)];
    if (typeMetaPrefixes.size < 4096) typeMetaPrefixes.set(key, prefixes);
  }
  return prefixes;
}

/** Whether `bytes` is longer than `prefix` and starts with it (a byte loop: no views made). */
function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length <= prefix.length) return false;
  for (let i = prefix.length - 1; i >= 0; i--) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** A copy of a list whose items lack apiVersion and kind (see ListItemOptions); items are shallow copies. */
export function withoutItemTypeMeta<L extends KubeList>(list: L): L {
  return {
    ...list,
    items: list.items.map((item) => {
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = item as KubeObject;
      return rest;
    }),
  };
}

/** The body of listJsonParts, chunk by chunk (see body-chunks.ts). */
function* listChunks(head: Buffer, bodies: readonly Buffer[], skips: Int32Array | undefined, length: number): Generator<Buffer, void, undefined> {
  const out = new ChunkCopier(length);
  if (head.length >= LARGE_PIECE_BYTES) {
    out.passed(head.length);
    yield head;
  } else out.copy(head);
  for (let i = 0; i < bodies.length; i++) {
    if (i > 0) out.byte(COMMA_BYTE);
    const bytes = bodies[i]!;
    const skip = skips === undefined ? 0 : skips[i]!;
    if (bytes.length - skip >= LARGE_PIECE_BYTES) {
      // A large item goes out as its cached bytes (after its opening brace when its TypeMeta is left out).
      if (skip > 0) out.byte(OPEN_BRACE_BYTE);
      const before = out.take();
      if (before !== undefined) yield before;
      const rest = skip > 0 ? bytes.subarray(skip + 1) : bytes;
      out.passed(rest.length);
      yield rest;
      continue;
    }
    if (skip > 0) {
      out.byte(OPEN_BRACE_BYTE);
      out.copy(bytes, skip + 1);
    } else out.copy(bytes);
    if (out.full) yield out.take()!;
  }
  out.copy(LIST_END);
  const last = out.take();
  if (last !== undefined) yield last;
}

/** listJsonBytes as text. */
export function listJson(list: KubeList): string {
  return listJsonBytes(list).toString('utf8');
}

interface Typed {
  apiVersion?: unknown;
  kind?: unknown;
}

/** The protobuf message bytes of a shared object, as `type` (cached by identity). Throws for a kind without protobuf. */
export function protobufRawOf(obj: object, type: Typed = obj as Typed): Uint8Array {
  let raw = objectProtobuf.get(obj);
  if (raw === undefined) {
    raw = encodeObjectRaw({ ...(obj as object), apiVersion: type.apiVersion, kind: type.kind });
    objectProtobuf.set(obj, raw);
  }
  return raw;
}

/**
 * The enveloped protobuf (`k8s\0` + Unknown) of a shared object that carries its apiVersion and
 * kind (cached by identity): when the storage noted the bytes the object was decoded from (an
 * event of this process's write), those bytes with its resourceVersion (Go's form, as kube's
 * watch sends it), else encoded.
 */
export function protobufOf(obj: object): Buffer {
  let bytes = objectEnvelope.get(obj);
  if (bytes === undefined) {
    bytes = takeStoredAnswer(obj) ?? envelopeObject(obj as Typed, protobufRawOf(obj));
    objectEnvelope.set(obj, bytes);
  }
  return bytes;
}

/**
 * The enveloped protobuf of an object answered alone (a GET, a create, an update): the cached
 * bytes when a watcher has already encoded it; else, for an object the storage read or wrote
 * for this answer, its stored bytes with its resourceVersion (what kube answers: the same object
 * as an encoding gives, with Go's zero values written out); else encoded without keeping the
 * bytes, so that answering a single request does not pin encoded bytes to an object the watch
 * cache holds. Ends this answer's use of a noted encoding either way.
 */
export function answerProtobufOf(obj: object): Buffer {
  const cached = objectEnvelope.get(obj);
  if (cached !== undefined) {
    dropStoredAnswer(obj);
    return cached;
  }
  const stored = takeStoredAnswer(obj);
  if (stored !== undefined) return stored;
  return envelopeObject(obj as Typed, objectProtobuf.get(obj) ?? encodeObjectRaw(obj as Typed & Record<string, unknown>));
}

/** A list as enveloped protobuf; items reuse their cached message bytes. Items are typed by the list (`<Kind>List` → `<Kind>`). */
export function listProtobuf(list: KubeList): Buffer {
  const itemType = { apiVersion: list.apiVersion, kind: list.kind.endsWith('List') ? list.kind.slice(0, -'List'.length) : list.kind };
  return encodeList(list, (i) => protobufRawOf(list.items[i] as object, itemType));
}

/**
 * listProtobuf as parts for one streamed write (the same bytes): items' cached message bytes
 * are resolved up front (for the Content-Length), then copied into chunks as the response
 * takes them, large ones (≥ 16 KiB) going out as they are (see body-chunks.ts). A list of
 * 10,000 items is not one 12 MB allocation per request.
 */
export function listProtobufParts(list: KubeList): BodyParts {
  const itemType = { apiVersion: list.apiVersion, kind: list.kind.endsWith('List') ? list.kind.slice(0, -'List'.length) : list.kind };
  const count = list.items.length;
  const raws = new Array<Uint8Array>(count);
  const sizes = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const raw = protobufRawOf(list.items[i] as object, itemType);
    raws[i] = raw;
    sizes[i] = raw.length;
  }
  const framing = frameList(list, sizes);
  return { parts: protobufListChunks(framing.head, framing.itemKey, raws, framing.length), length: framing.length, joined: () => listProtobuf(list) };
}

function* protobufListChunks(head: Buffer, itemKey: number, raws: readonly Uint8Array[], length: number): Generator<Buffer, void, undefined> {
  const out = new ChunkCopier(length);
  if (head.length >= LARGE_PIECE_BYTES) {
    out.passed(head.length);
    yield head;
  } else out.copy(head);
  for (const raw of raws) {
    out.byte(itemKey);
    out.varint(raw.length);
    if (raw.length >= LARGE_PIECE_BYTES) {
      yield out.take()!;
      out.passed(raw.length);
      yield Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.length);
      continue;
    }
    out.copy(raw);
    if (out.full) yield out.take()!;
  }
  const last = out.take();
  if (last !== undefined) yield last;
}

/** One protobuf watch frame (length + WatchEvent with the enveloped object), cached per event. */
export function watchEventFrame(event: WatchEvent): Buffer {
  let frame = eventFrames.get(event);
  if (frame === undefined) {
    frame = encodeWatchFrame(event.type, protobufOf(event.object));
    eventFrames.set(event, frame);
  }
  return frame;
}
