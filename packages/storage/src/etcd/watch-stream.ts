import type { Etcd3, IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { StorageError } from '../errors.js';
import { toStorageError } from './errors.js';
import { revisionOf } from './kv.js';

/** What one etcd watch is created with. */
export interface WatchStreamRequest {
  /** The key, or the first key of the range. */
  key: Buffer;
  /** The end of the range (exclusive); absent = the single key. */
  rangeEnd?: Buffer;
  /** The first revision to deliver (etcd's start_revision, inclusive); 0 = from now. */
  startRevision: number;
  /** Ask for the previous key-value with every event. */
  prevKv: boolean;
  /** Ask etcd for periodic progress notifications (`--experimental-watch-progress-notify-interval`). */
  progressNotify: boolean;
}

export interface WatchStreamHandlers {
  /** The stream is live: etcd created the watch (header revision of the created reply). */
  onCreated?(revision: number): void;
  /** Events of one watch response, in revision order. */
  onEvents(events: readonly IEvent[], headerRevision: number): void;
  /**
   * A response without events: every change up to `revision` was sent before it. `onDemand`
   * is true for a reply to `requestProgress` (watch_id -1), false for a periodic notification
   * carrying this watch's own id.
   */
  onProgress(revision: number, onDemand: boolean): void;
  /** The start revision is compacted (etcd cancelled the watch; `compactRevision` is etcd's compacted revision). Terminal. */
  onCompacted(compactRevision: number): void;
  /** The stream broke (etcd gone, stream ended, watch cancelled for another reason). Terminal; a StorageError (usually Unreachable). */
  onError(err: StorageError): void;
}

/** One running etcd watch on its own gRPC stream. */
export interface WatchStream {
  /** Sends a progress request on this stream (answered through `onProgress(…, true)`). Before the watch is created it is sent once it is. */
  requestProgress(): void;
  /** Stops reading responses (HTTP/2 flow control then holds etcd back); `resume` reads again. */
  pause(): void;
  resume(): void;
  /** Cancels the watch. No handler is called afterwards. Idempotent. */
  close(): void;
}

/** The parts of grpc-js's duplex stream the etcd3 typings leave out. */
interface GrpcDuplex extends IDuplexStream<IWatchRequest, IWatchResponse> {
  pause?(): void;
  resume?(): void;
}

/**
 * Opens one etcd watch on a gRPC Watch stream of its own. The npm etcd3 client's watcher
 * cannot send progress requests, so this drives the raw stream: a create_request with
 * start_revision, prev_kv and progress_notify; progress_request on the same stream.
 *
 * Exactly one terminal handler (`onCompacted` or `onError`) is called unless `close` comes
 * first. The stream does not reconnect; callers decide (a watch resumes from its last
 * revision, a change feed reports the error so its consumer re-lists).
 *
 * Closing half-closes the stream before cancelling it, so that the etcd3 client does not
 * treat our own cancellation as a connection failure (which would reset its channels).
 */
export function openWatchStream(client: Etcd3, request: WatchStreamRequest, handlers: WatchStreamHandlers): WatchStream {
  const keyText = request.key.toString();
  let stream: GrpcDuplex | undefined;
  let watchId: string | undefined;
  let done = false;
  let paused = false;
  let progressWanted = false;

  const teardown = () => {
    const s = stream;
    stream = undefined;
    if (!s) return;
    try {
      s.end();
      s.cancel();
    } catch {
      // already gone
    }
  };

  const fail = (err: StorageError) => {
    if (done) return;
    done = true;
    teardown();
    handlers.onError(err);
  };

  const compacted = (compactRevision: number) => {
    if (done) return;
    done = true;
    teardown();
    handlers.onCompacted(compactRevision);
  };

  const sendProgressRequest = () => {
    progressWanted = false;
    try {
      stream?.write({ progress_request: {} });
    } catch (err) {
      fail(toStorageError(err, keyText));
    }
  };

  const onResponse = (res: IWatchResponse) => {
    if (done) return;
    const headerRevision = revisionOf(res.header?.revision);
    const compactRevision = revisionOf(res.compact_revision);
    if (res.created && !res.canceled) {
      watchId = res.watch_id;
      handlers.onCreated?.(headerRevision);
      if (progressWanted) sendProgressRequest();
      return;
    }
    if (compactRevision > 0) {
      compacted(compactRevision);
      return;
    }
    if (res.canceled) {
      const reason = res.cancel_reason || 'no reason given';
      fail(toStorageError(new Error(`etcd cancelled the watch: ${reason}`), keyText));
      return;
    }
    if (res.events.length > 0) {
      handlers.onEvents(res.events, headerRevision);
      return;
    }
    if (res.watch_id === watchId) handlers.onProgress(headerRevision, false);
    else if (res.watch_id === '-1') handlers.onProgress(headerRevision, true);
  };

  const guard = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      // A handler threw: the consumer cannot go on with this stream.
      fail(err instanceof StorageError ? err : new StorageError('Internal', keyText, String((err as Error)?.message ?? err), { cause: err }));
    }
  };

  client.watchClient.watch().then(
    (opened) => {
      if (done) {
        try {
          opened.end();
          opened.cancel();
        } catch {
          // already gone
        }
        return;
      }
      stream = opened as GrpcDuplex;
      opened.on('data', (res) => guard(() => onResponse(res)));
      opened.on('error', (err) => fail(toStorageError(err, keyText)));
      opened.on('end', () => fail(new StorageError('Unreachable', keyText, 'etcd is unreachable: the watch stream ended')));
      if (paused) stream.pause?.();
      const create: IWatchRequest['create_request'] = {
        key: request.key,
        start_revision: request.startRevision,
        prev_kv: request.prevKv,
        progress_notify: request.progressNotify,
      };
      if (request.rangeEnd) create.range_end = request.rangeEnd;
      try {
        opened.write({ create_request: create });
      } catch (err) {
        fail(toStorageError(err, keyText));
      }
    },
    (err: unknown) => fail(toStorageError(err, keyText)),
  );

  return {
    requestProgress() {
      if (done) return;
      if (stream && watchId !== undefined) sendProgressRequest();
      else progressWanted = true;
    },
    pause() {
      paused = true;
      stream?.pause?.();
    },
    resume() {
      paused = false;
      stream?.resume?.();
    },
    close() {
      if (done) return;
      done = true;
      teardown();
    },
  };
}
