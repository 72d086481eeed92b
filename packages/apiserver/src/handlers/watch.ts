/**
 * The watch verb on the wire (kube's serveWatch): a 200 response with chunked events until
 * the timeout, the client leaving, an ERROR event, or server shutdown. Events are
 * newline-delimited JSON documents, or protobuf frames (4-byte big-endian length + WatchEvent
 * whose object is an enveloped object) for `application/vnd.kubernetes.protobuf`; objects are
 * converted to one-row Tables (column definitions on the first event only) or
 * PartialObjectMetadata when the client asked for that. ERROR objects (Status) are never converted.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { badRequest, encodeWatchFrame, envelopeObject, encodeObjectRaw, fieldSelectorFromSet, notAcceptable, type FieldSelector, type KubeObject } from '@kapi/machinery';
import type { WatchEvent, WatchOptions, WatchStream } from '@kapi/registry';
import { listProtobuf, watchEventFrame, watchEventLine } from '../http/encode-once.js';
import { FlushScheduler } from '../http/flush-scheduler.js';
import { http2BodyStream, isHttp2Response } from '../http/http2.js';
import { canStream, MEDIA_TYPES, notAcceptableError, streamMediaTypes } from '../http/negotiation.js';
import { isStatus, resourceCapabilities } from '../http/resource-output.js';
import { warningHeader } from '../http/respond.js';
import { parseListOptions } from './options.js';
import type { RequestScope } from './scope.js';

const NAME_MISMATCH = "fieldSelector metadata.name doesn't match requested name";

/**
 * A watch addressed to a named item (the legacy `/watch/.../<name>` path) watches that
 * name: a field selector, if any, must require exactly that `metadata.name` (400 otherwise).
 */
function nameSelector(name: string, selector: FieldSelector | undefined): FieldSelector | undefined {
  if (name === '') return selector;
  if (selector === undefined || selector.empty) return fieldSelectorFromSet({ 'metadata.name': name });
  if (selector.exactMatch('metadata.name') !== name) throw badRequest(NAME_MISMATCH);
  return selector;
}

/**
 * The watch's lifetime in ms: `timeoutSeconds` when given and not 0 (negative ends the watch
 * at once, as an expired deadline does in kube), else random in [min, 2×min) of
 * --min-request-timeout (kube's default); no limit when that is 0.
 */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number, random: () => number = Math.random): number | undefined {
  if (timeoutSeconds !== undefined && timeoutSeconds !== 0) return Math.max(timeoutSeconds, 0) * 1000;
  if (minRequestTimeoutSeconds <= 0) return undefined;
  return Math.floor(minRequestTimeoutSeconds * (1 + random()) * 1000);
}

/** The longest delay Node's timers take (2^31-1 ms, ~24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fn` after `ms`, however long (re-armed in steps Node's timers accept); returns the cancel. */
function after(ms: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : fn()), Math.min(left, MAX_TIMER_MS));
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** How one watch stream puts events on the wire. */
interface WatchEncoder {
  readonly contentType: string;
  encode(event: WatchEvent): Buffer;
}

/**
 * The event encoder for the negotiated representation. Throws 406 (kube's stream media types)
 * when the negotiated encoding cannot stream (YAML) or the conversion has no per-object form.
 */
function watchEncoder(scope: RequestScope): WatchEncoder {
  const { encoding, transform } = scope.output;
  if (!canStream(encoding)) throw notAcceptableError(streamMediaTypes(resourceCapabilities(scope.resource.definition, scope.info.version)));
  if (transform?.target.kind === 'PartialObjectMetadataList') {
    throw notAcceptable('you requested PartialObjectMetadataList, but a watch sends single objects');
  }
  const convert = transform?.watch();
  if (encoding === 'json') {
    const contentType = MEDIA_TYPES.json;
    if (convert === undefined) return { contentType, encode: watchEventLine };
    return {
      contentType,
      encode: (event) =>
        isStatus(event.object) ? watchEventLine(event) : Buffer.from(`{"type":${JSON.stringify(event.type)},"object":${JSON.stringify(convert(event.object as KubeObject))}}\n`),
    };
  }
  const contentType = `${MEDIA_TYPES.protobuf};stream=watch`;
  if (convert === undefined) return { contentType, encode: watchEventFrame };
  return {
    contentType,
    encode: (event) => {
      if (isStatus(event.object)) return watchEventFrame(event);
      const converted = convert(event.object as KubeObject) as KubeObject;
      return encodeWatchFrame(event.type, envelopeObject(converted, encodeObjectRaw(converted)));
    },
  };
}

/** The annotation of the initial-events-end BOOKMARK that carries the watch-list's empty list (client-go needs it). */
const LIST_BLUEPRINT_ANNOTATION = 'kubernetes.io/initial-events-list-blueprint';
const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/**
 * The empty list a watch-list client rebuilds its LIST from, encoded as the watch's objects
 * are (JSON or enveloped protobuf) and base64'd: the resource's `<Kind>List` of the requested
 * version, or PartialObjectMetadataList when the client asked for metadata only.
 */
function listBlueprint(scope: RequestScope): string {
  const { encoding, transform } = scope.output;
  const { definition } = scope.resource;
  const list = transform?.target.kind === 'PartialObjectMetadata'
    ? { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${transform.target.version}`, metadata: {}, items: [] }
    : { kind: definition.listKind, apiVersion: definition.group === '' ? scope.info.version : `${definition.group}/${scope.info.version}`, metadata: {}, items: [] };
  // kube encodes a new, empty list: its items are nil (`null` in JSON).
  const bytes = encoding === 'json' ? Buffer.from(`${JSON.stringify({ ...list, items: null })}\n`) : listProtobuf(list);
  return bytes.toString('base64');
}

/**
 * kube's watch-list transformer: for a request with sendInitialEvents=true and
 * allowWatchBookmarks=true, the initial-events-end BOOKMARK gets the list blueprint
 * annotation (on a copy: the event is shared with other watchers). Other events pass as they are.
 */
function withListBlueprint(scope: RequestScope, encoder: WatchEncoder): WatchEncoder {
  let blueprint: string | undefined;
  return {
    contentType: encoder.contentType,
    encode: (event) => {
      const annotations = event.type === 'BOOKMARK' ? (event.object as KubeObject).metadata?.annotations : undefined;
      if (annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') return encoder.encode(event);
      blueprint ??= listBlueprint(scope);
      const object = event.object as KubeObject;
      const annotated = { ...object, metadata: { ...object.metadata, annotations: { ...annotations, [LIST_BLUEPRINT_ANNOTATION]: blueprint } } } as KubeObject;
      return encoder.encode({ ...event, object: annotated });
    },
  };
}

/** Resolves when `target` (the response or its socket) can take more data, or when it is closed or the watch ends. */
function writable(target: ServerResponse | Socket, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      target.off('drain', done);
      target.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    target.on('drain', done);
    target.on('close', done);
    signal.addEventListener('abort', done);
  });
}

const CRLF = Buffer.from('\r\n');
const framedChunks = new WeakMap<Buffer, Buffer>();

/**
 * `line` as one HTTP/1.1 chunk (hex size, CRLF, the bytes, CRLF) in one Buffer, framed once
 * per line: an event's line is shared by every watcher (encode-once), so is its chunk.
 */
function framedChunk(line: Buffer): Buffer {
  let chunk = framedChunks.get(line);
  if (chunk === undefined) {
    chunk = Buffer.concat([Buffer.from(`${line.length.toString(16)}\r\n`), line, CRLF]);
    framedChunks.set(line, chunk);
  }
  return chunk;
}

/**
 * The socket a chunked HTTP/1.1 response can write its framed chunks to directly (one
 * buffer, one write per event, as a bare fan-out does) instead of through the response's
 * chunked encoder: only once everything the response wrote (the headers) is on the socket.
 * Undefined for HTTP/2 and whenever that does not hold; the response's own writes are used then.
 */
function directSocket(res: ServerResponse): Socket | undefined {
  const socket = res.socket;
  if (socket === null || res.req.httpVersionMajor !== 1 || res.req.httpVersionMinor !== 1) return undefined;
  if (!res.headersSent || !res.chunkedEncoding || res.writableLength !== socket.writableLength) return undefined;
  return socket;
}

/**
 * Writes events as they are pulled, one at a time: the next event is pulled only after the
 * socket took the previous one (`write` returned true, or 'drain'), so a slow client slows
 * the pulls and the storage's bounded queue decides what happens to a watcher that cannot
 * keep up. Writes are corked until the next tick so that events already queued go out in
 * one batch. On HTTP/1.1 each event goes to the socket as one pre-framed chunk (see directSocket). Ends after an ERROR event.
 */
async function pump(res: ServerResponse, watch: WatchStream, encoder: WatchEncoder, signal: AbortSignal, sent?: (bytes: number) => void): Promise<void> {
  const socket = directSocket(res);
  const out: ServerResponse | Socket = socket ?? res;
  let corked = false;
  const uncork = () => {
    corked = false;
    out.uncork();
  };
  for await (const event of watch as AsyncIterable<WatchEvent>) {
    if (signal.aborted || res.destroyed) break;
    if (!corked) {
      corked = true;
      out.cork();
      process.nextTick(uncork);
    }
    const line = encoder.encode(event);
    const accepted = socket !== undefined ? socket.write(framedChunk(line)) : res.write(line);
    sent?.(line.length);
    if (event.type === 'ERROR') break;
    if (!accepted) await writable(out, signal);
  }
}

/** Most events one watch takes and writes in one go before it lets others run. */
const MAX_BATCH = 256;

/** HTTP/1.1 watch streams with events ready that are flushed at once; more wait for the loop's check phase (see FlushScheduler). */
const EAGER_FLUSH_MAX = 32;

/** Drops the joined batch once a run's writes have taken it. */
const dropJoined = () => {
  lastParts = [];
  lastJoined = undefined;
};

/** HTTP/1.1 watches: their writes go to the socket at once, so under load batching per loop turn bounds the writes. */
const socketFlushes = new FlushScheduler(EAGER_FLUSH_MAX, dropJoined);

/**
 * HTTP/2 watches are flushed as soon as the cache has dispatched, however many are ready. A
 * Node HTTP/2 session puts what its streams were given on the socket only in a native
 * immediate, and the check phase runs the native immediates before the JS ones: frames
 * written from a check-phase flush would wait a whole turn of the loop, behind the next poll
 * phase's I/O callbacks (the writers' own requests among them), before they leave. (200
 * client-go watches on one connection, 100 writes/s: cache dispatch → stream write p50 ~4 ms
 * in the check phase, ~1 ms at once.) Batching per turn saves little here: the session joins
 * every stream's frames into one socket write anyway.
 */
const streamFlushes = new FlushScheduler(Number.POSITIVE_INFINITY, dropJoined);

/** Batches up to this size are joined into one buffer; larger ones are written as they are (one gathered write). */
const JOIN_MAX_BYTES = 64 * 1024;

/** The last joined batch: watchers flushed one after another mostly have the same events ready, so they share one buffer. */
let lastParts: Buffer[] = [];
let lastJoined: Buffer | undefined;

/** `parts` (framed chunks, or the lines of an HTTP/2 body) as one buffer; the same buffer as the previous call when the parts are the same buffers. */
function joinChunks(parts: Buffer[], bytes: number): Buffer {
  if (lastJoined !== undefined && lastParts.length === parts.length) {
    let same = true;
    for (let i = 0; i < parts.length && same; i++) same = parts[i] === lastParts[i];
    if (same) return lastJoined;
  }
  lastParts = parts.slice();
  lastJoined = Buffer.concat(parts, bytes);
  return lastJoined;
}

/**
 * pump for a watch with the batch side (WatchPull): no promise or closure per event. When
 * events are ready the watch is queued for the next flush, which takes everything ready and
 * writes it at once — on HTTP/1.1 as one buffer of pre-framed chunks (one chunk's shared
 * bytes when only one event is ready), on HTTP/2 as one write of the lines joined to the
 * stream itself (one DATA frame for a small batch). Backpressure as in pump: after a write the socket did
 * not take (`write` returned false) nothing more is taken until 'drain', so the watch's
 * bounded queue decides about a slow client. Ends after an ERROR event or at the watch's end.
 */
function pumpBatches(res: ServerResponse, pull: NonNullable<WatchStream['pull']>, encoder: WatchEncoder, signal: AbortSignal, sent?: (bytes: number) => void): Promise<void> {
  const socket = directSocket(res);
  const stream = socket === undefined ? http2BodyStream(res) : undefined;
  const out: ServerResponse | Socket | Writable = socket ?? stream ?? res;
  const flushes = isHttp2Response(res) ? streamFlushes : socketFlushes;
  return new Promise((resolve) => {
    const batch: WatchEvent[] = [];
    const chunks: Buffer[] = [];
    let scheduled = false;
    let finished = false;
    // Kept here: the signal's `aborted` getter checks its receiver on every read.
    let aborted = signal.aborted;
    const schedule = () => {
      if (scheduled || finished) return;
      scheduled = true;
      flushes.schedule(flush);
    };
    const onAbort = () => {
      aborted = true;
      schedule();
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      out.off('drain', schedule);
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    /** Writes `batch`; whether the socket takes more now. */
    const write = (): boolean => {
      if (socket !== undefined) {
        let bytes = 0;
        for (let i = 0; i < batch.length; i++) {
          const line = encoder.encode(batch[i]!);
          sent?.(line.length);
          const chunk = framedChunk(line);
          chunks.push(chunk);
          bytes += chunk.length;
        }
        let accepted: boolean;
        if (chunks.length === 1 || bytes <= JOIN_MAX_BYTES) accepted = socket.write(chunks.length === 1 ? chunks[0]! : joinChunks(chunks, bytes));
        else {
          socket.cork();
          for (let i = 0; i < chunks.length; i++) socket.write(chunks[i]!);
          socket.uncork();
          accepted = !socket.writableNeedDrain;
        }
        chunks.length = 0;
        return accepted;
      }
      if (stream !== undefined) {
        let bytes = 0;
        for (let i = 0; i < batch.length; i++) {
          const line = encoder.encode(batch[i]!);
          sent?.(line.length);
          chunks.push(line);
          bytes += line.length;
        }
        let accepted: boolean;
        if (chunks.length === 1 || bytes <= JOIN_MAX_BYTES) accepted = stream.write(chunks.length === 1 ? chunks[0]! : joinChunks(chunks, bytes));
        else {
          stream.cork();
          for (let i = 0; i < chunks.length; i++) stream.write(chunks[i]!);
          stream.uncork();
          accepted = !stream.writableNeedDrain;
        }
        chunks.length = 0;
        return accepted;
      }
      res.cork();
      let accepted = true;
      for (let i = 0; i < batch.length; i++) {
        const line = encoder.encode(batch[i]!);
        sent?.(line.length);
        accepted = res.write(line);
      }
      res.uncork();
      return accepted && !res.writableNeedDrain;
    };
    function flush(): void {
      scheduled = false;
      if (finished) return;
      for (;;) {
        if (aborted || res.destroyed) return finish();
        batch.length = 0;
        const open = pull.take(batch, MAX_BATCH);
        const taken = batch.length;
        const accepted = taken === 0 || write();
        const last = taken > 0 && batch[taken - 1]!.type === 'ERROR';
        batch.length = 0;
        if (!open || last) return finish();
        if (!accepted) {
          out.once('drain', schedule);
          return;
        }
        if (taken < MAX_BATCH) break;
      }
      pull.notify(schedule);
    }
    signal.addEventListener('abort', onAbort);
    flush();
  });
}

/**
 * `watch=true` on a collection, and the legacy `/watch/` paths (collections and items). Option and
 * selector errors, a representation that cannot stream (406), and failures before the stream
 * starts (429 while a cache initializes), are ordinary Status responses; after that everything
 * is in-band. The response is `200 application/json` or
 * `application/vnd.kubernetes.protobuf;stream=watch`, chunked, headers flushed at once; the stream ends cleanly when the
 * timeout fires, and the watch is stopped when the client disconnects or the server shuts
 * down.
 */
export async function handleWatch(scope: RequestScope): Promise<void> {
  const { timeoutSeconds, watch: _watch, limit: _limit, ...parsed } = parseListOptions(scope.query);
  const fieldSelector = nameSelector(scope.info.name, parsed.fieldSelector);
  const timeoutMs = watchTimeoutMs(timeoutSeconds, scope.settings.minRequestTimeoutSeconds);
  const eventEncoder = watchEncoder(scope);
  const encoder = parsed.sendInitialEvents === true && parsed.allowWatchBookmarks === true ? withListBlueprint(scope, eventEncoder) : eventEncoder;
  const { res } = scope;

  const lifetime = new AbortController();
  const end = () => lifetime.abort();
  const cancelTimer = timeoutMs !== undefined ? after(timeoutMs, end) : undefined;
  res.once('close', end);
  scope.settings.shutdown.addEventListener('abort', end);
  const finishLongRunning = scope.startLongRunning();
  let watch: WatchStream | undefined;
  try {
    const options: WatchOptions = { ...parsed, signal: lifetime.signal };
    if (timeoutMs !== undefined) options.deadline = Date.now() + timeoutMs;
    if (fieldSelector !== undefined) options.fieldSelector = fieldSelector;
    else delete options.fieldSelector;
    watch = await scope.resource.watcher!.watch(scope.context, options);
    const stream = watch;
    lifetime.signal.addEventListener('abort', () => stream.stop());
    const headers: Record<string, string | string[]> = {
      'Content-Type': encoder.contentType,
      'Cache-Control': 'no-cache, private',
    };
    // HTTP/2 frames the body itself (and forbids the header).
    if (!isHttp2Response(res)) headers['Transfer-Encoding'] = 'chunked';
    if (scope.warnings.length > 0) headers['Warning'] = [...new Set(scope.warnings)].map(warningHeader);
    res.writeHead(200, headers);
    res.flushHeaders();
    if (!lifetime.signal.aborted) {
      if (stream.pull !== undefined) await pumpBatches(res, stream.pull, encoder, lifetime.signal, scope.watchEventSent);
      else await pump(res, stream, encoder, lifetime.signal, scope.watchEventSent);
    }
    if (!res.destroyed) res.end();
  } finally {
    cancelTimer?.();
    res.off('close', end);
    scope.settings.shutdown.removeEventListener('abort', end);
    watch?.stop();
    finishLongRunning();
  }
}
