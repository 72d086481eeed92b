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
import { dropStoredAnswer, encodeList, encodeObjectRaw, encodeWatchFrame, envelopeObject, takeStoredAnswer } from '@kapi/machinery';
import type { WatchEvent } from '@kapi/registry';

const objectJson = new WeakMap<object, Buffer>();
const objectProtobuf = new WeakMap<object, Uint8Array>();
const objectEnvelope = new WeakMap<object, Buffer>();
const eventLines = new WeakMap<WatchEvent, Buffer>();
const eventFrames = new WeakMap<WatchEvent, Buffer>();

/** The UTF-8 JSON of a shared, read-only object (cached by identity). */
export function jsonBytesOf(obj: object): Buffer {
  let bytes = objectJson.get(obj);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(obj));
    objectJson.set(obj, bytes);
  }
  return bytes;
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
}

/** Items at least this large go out as their cached buffers; smaller ones are copied into shared chunks. */
const LARGE_ITEM_BYTES = 16 * 1024;
/** Runs of small items are joined into chunks of about this size. */
const CHUNK_BYTES = 64 * 1024;

/**
 * listJsonBytes without the final copy: the same bytes as parts for one streamed write.
 * Every item's cached bytes are resolved up front (for the Content-Length); the chunks are
 * made as the response takes them: large items (≥ 16 KiB) are their cached per-object
 * buffers, runs of small items are joined into 64 KiB chunks (so a list of 10,000 small
 * objects is not 20,000 buffers). A response the client reads slowly holds one chunk, not a
 * copy of the whole list: ten concurrent 72 MB lists used to pin ~720 MB of chunk copies.
 */
export function listJsonParts(list: KubeList, options: ListItemOptions = {}): BodyParts {
  const head = Buffer.from(`{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`);
  const items = new Array<Buffer | readonly [Buffer, Buffer]>(list.items.length);
  let length = head.length + LIST_END.length + Math.max(0, items.length - 1) * COMMA.length;
  for (let i = 0; i < items.length; i++) {
    const obj = list.items[i] as KubeObject;
    const bytes = jsonBytesOf(obj);
    const cut = options.withoutTypeMeta === true ? typeMetaPrefixLength(obj, bytes) : 0;
    if (cut > 0) {
      items[i] = [OPEN_BRACE, bytes.subarray(cut)];
      length += 1 + bytes.length - cut;
    } else {
      items[i] = bytes;
      length += bytes.length;
    }
  }
  return { parts: listChunks(head, items), length };
}

export interface ListItemOptions {
  /**
   * Leave out each item's apiVersion and kind, as kube encodes the lists of its built-in kinds
   * (their items are typed Go structs, whose TypeMeta is empty); custom-resource list items
   * keep them. The cached object bytes are reused: only their leading TypeMeta is skipped.
   */
  readonly withoutTypeMeta?: boolean;
}

const OPEN_BRACE = Buffer.from('{');
const typeMetaPrefixes = new Map<string, Buffer>();

/** How many leading bytes of `bytes` (the JSON of `obj`) are `{"apiVersion":..,"kind":..,` (either order), else 0. */
function typeMetaPrefixLength(obj: KubeObject, bytes: Buffer): number {
  for (const order of [0, 1]) {
    const key = `${order}\u0000${obj.apiVersion}\u0000${obj.kind}`;
    let prefix = typeMetaPrefixes.get(key);
    if (prefix === undefined) {
      const av = `"apiVersion":${JSON.stringify(obj.apiVersion)}`;
      const kind = `"kind":${JSON.stringify(obj.kind)}`;
      prefix = Buffer.from(order === 0 ? `{${av},${kind},` : `{${kind},${av},`);
      if (typeMetaPrefixes.size < 4096) typeMetaPrefixes.set(key, prefix);
    }
    if (bytes.length > prefix.length && bytes.subarray(0, prefix.length).equals(prefix)) return prefix.length;
  }
  return 0;
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

function* listChunks(head: Buffer, items: readonly (Buffer | readonly [Buffer, Buffer])[]): Generator<Buffer, void, undefined> {
  let run: Buffer[] = [head];
  let runBytes = head.length;
  const take = (): Buffer => {
    const chunk = run.length === 1 ? run[0]! : Buffer.concat(run, runBytes);
    run = [];
    runBytes = 0;
    return chunk;
  };
  for (let i = 0; i < items.length; i++) {
    if (i > 0) {
      run.push(COMMA);
      runBytes += COMMA.length;
    }
    const entry = items[i]!;
    const pieces: readonly Buffer[] = Buffer.isBuffer(entry) ? [entry] : (entry as readonly [Buffer, Buffer]);
    let size = 0;
    for (const piece of pieces) size += piece.length;
    if (size >= LARGE_ITEM_BYTES) {
      if (run.length > 0) yield take();
      yield* pieces;
      continue;
    }
    for (const piece of pieces) run.push(piece);
    runBytes += size;
    if (runBytes >= CHUNK_BYTES) yield take();
  }
  run.push(LIST_END);
  runBytes += LIST_END.length;
  yield take();
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

/** One protobuf watch frame (length + WatchEvent with the enveloped object), cached per event. */
export function watchEventFrame(event: WatchEvent): Buffer {
  let frame = eventFrames.get(event);
  if (frame === undefined) {
    frame = encodeWatchFrame(event.type, protobufOf(event.object));
    eventFrames.set(event, frame);
  }
  return frame;
}
