import type { EtcdClient } from './etcd-calls.js';
import type { KubeObject, Status } from '@kapi/machinery';
import { expired, internalError, tooLargeResourceVersion as tooLargeStatus } from '@kapi/machinery';
import type { Watch, WatchEvent, WatchOptions } from '../interface.js';
import { everything } from '../interface.js';
import { isStorageError, parseResourceVersion } from '../errors.js';
import { initialEventsEndAnnotation, watchTooOldMessage } from '../messages.js';
import { WatchQueue } from '../watch-queue.js';
import { revisionOf, type EtcdKV } from './kv.js';
import { listPrefix, prefixEnd } from './keys.js';
import { list } from './list.js';
import { openResumingWatch } from './resuming-watch.js';
import type { WatchStream } from './watch-stream.js';
import { toWatchEvent } from './watch-events.js';

export interface EtcdWatchSettings {
  client: EtcdClient;
  kv: EtcdKV;
  /** Undelivered events held per watch before its etcd stream is paused. */
  queueCapacity: number;
  /** How long a watch keeps trying to re-open a broken etcd stream before it ends with an ERROR event. */
  resumeTimeoutMs: number;
  /** Told the compacted revision whenever etcd reports one. */
  observeCompacted(revision: number): void;
  /** See `WatchStreamRequest.leaderCheckIntervalMs` (0/absent: no check). */
  leaderCheckIntervalMs?: number;
  /** Running watches (a watch adds itself and removes itself when it ends), so their owner can stop them. */
  open?: Set<{ stop(): void }>;
}

/** Page size for the initial-events list (kube's watch sync pages by 10000 too). */
const initialListPageSize = 10_000;

/**
 * The uncached watch on etcd (`Watcher.watch`, kube's etcd3 watcher). Per request:
 *
 * - resourceVersion N (sendInitialEvents not true): events with revision > N;
 * - "" or "0" (sendInitialEvents unset or true): ADDED for every matching object of a list at
 *   the latest revision R (ordered by key, each with its own resourceVersion), then changes
 *   after R; sendInitialEvents=true with allowBookmarks adds a BOOKMARK at R annotated
 *   `k8s.io/initial-events-end: "true"` between the two; with N > R that watch gets one ERROR
 *   (504 Too large resource version) instead;
 * - "" or "0" with sendInitialEvents=false: changes after the current revision.
 *
 * Selector transitions follow kube (see `toWatchEvent`). With allowBookmarks, etcd's periodic
 * progress notifications become BOOKMARKs (`{metadata:{resourceVersion}}`).
 *
 * Errors arrive in-band as one ERROR event that ends the stream: a compacted start revision →
 * 410 Expired "The resourceVersion for the provided watch is too old."; an undecodable value
 * or an etcd that stays unreachable for `resumeTimeoutMs` → 500. A broken stream (etcd
 * restarted, connection lost, its member lost its leader: see `leaderCheckIntervalMs`) is
 * re-opened transparently — with several members, on one that answers — from the revision
 * after the last one received, so clients see neither a gap nor a repeat.
 *
 * Backpressure: each watch uses its own gRPC stream. When the consumer stops pulling and
 * `queueCapacity` events wait, the stream is paused: HTTP/2 flow control holds etcd back, and
 * etcd parks the watcher and later catches it up from its history. Nothing is dropped; if
 * etcd compacts past a watcher that stays paused, it ends with the 410 ERROR. The initial
 * list is paged and waits for room in the queue the same way.
 *
 * Throws (before the stream starts) only InvalidError for a malformed resourceVersion.
 */
export async function startEtcdWatch(settings: EtcdWatchSettings, key: string, options: WatchOptions = {}): Promise<Watch> {
  const requested = parseResourceVersion(options.resourceVersion, key);
  const recursive = options.recursive !== false;
  const predicate = options.predicate ?? everything;
  const rangeKey = recursive ? listPrefix(key) : key;
  const rangeEnd = recursive ? prefixEnd(Buffer.from(rangeKey)) : undefined;
  const allowBookmarks = options.allowBookmarks === true;
  const sendInitialEvents = options.sendInitialEvents ?? requested === 0;

  let stream: WatchStream | undefined;
  let paused = false;
  let lastBookmark = 0;

  const queue = new WatchQueue({
    capacity: settings.queueCapacity,
    ...(options.signal ? { signal: options.signal } : {}),
    onFull: () => {
      paused = true;
      stream?.pause();
    },
    onDrain: () => {
      paused = false;
      stream?.resume();
    },
    onClose: () => {
      settings.open?.delete(queue);
      stream?.close();
    },
  });

  settings.open?.add(queue);

  const endWithError = (status: Status) => {
    queue.push({ type: 'ERROR', object: status, revision: 0 });
    queue.finish();
  };

  const endWithStorageError = (err: unknown) => {
    if (isStorageError(err, 'Expired')) endWithError(expired(watchTooOldMessage).status);
    else endWithError(internalError(err).status);
  };

  const openFrom = (startRevision: number) => {
    if (queue.isClosed) return;
    stream = openResumingWatch(
      settings.client,
      {
        key: Buffer.from(rangeKey),
        ...(rangeEnd ? { rangeEnd } : {}),
        startRevision,
        prevKv: true,
        progressNotify: allowBookmarks,
        ...(settings.leaderCheckIntervalMs ? { leaderCheckIntervalMs: settings.leaderCheckIntervalMs } : {}),
        resumes: true,
        resumeTimeoutMs: settings.resumeTimeoutMs,
      },
      {
        onEvents: (events) => {
          for (const event of events) {
            const out = toWatchEvent(settings.kv.codec, event, predicate);
            if (out) queue.push(out);
          }
        },
        onProgress: (revision) => {
          if (allowBookmarks && revision > lastBookmark) {
            lastBookmark = revision;
            queue.push(bookmark(revision));
          }
        },
        onCompacted: (compactRevision) => {
          settings.observeCompacted(compactRevision);
          endWithError(expired(watchTooOldMessage).status);
        },
        onError: (err) => {
          if (!queue.isClosed) endWithStorageError(err);
        },
      },
    );
    // The queue may have filled (initial events) before the stream existed.
    if (paused) stream.pause();
  };

  // "From now" is fixed before watch() returns, so a write made after it is never missed.
  let fromNow: number | undefined;
  if (!sendInitialEvents && requested === 0) {
    try {
      const res = await settings.kv.range(key, { key: Buffer.from(rangeKey), ...(rangeEnd ? { range_end: rangeEnd } : {}), limit: 1 });
      fromNow = revisionOf(res.header.revision) + 1;
    } catch (err) {
      endWithStorageError(err);
      return queue;
    }
  }

  const run = async () => {
    let startRevision: number;
    if (fromNow !== undefined) {
      startRevision = fromNow;
    } else if (sendInitialEvents) {
      const listRevision = await sendInitialState(settings.kv, key, recursive, predicate, queue, requested);
      if (listRevision === undefined) return;
      if (options.sendInitialEvents === true && allowBookmarks) {
        lastBookmark = listRevision;
        queue.push(bookmark(listRevision, true));
      }
      startRevision = listRevision + 1;
    } else {
      startRevision = requested + 1;
    }
    openFrom(startRevision);
  };

  run().catch((err: unknown) => {
    if (!queue.isClosed) endWithStorageError(err);
  });
  return queue;
}

/**
 * Pushes ADDED for every object under the key at the latest revision, page by page, waiting
 * for room in the queue. Returns the list revision, or undefined when the watch ended
 * meanwhile — stopped, or ended here with the 504 ERROR because the latest revision has not
 * reached `minimumRevision`.
 */
async function sendInitialState(
  kv: EtcdKV,
  key: string,
  recursive: boolean,
  predicate: WatchOptions['predicate'],
  queue: WatchQueue,
  minimumRevision: number,
): Promise<number | undefined> {
  let token: string | undefined;
  let revision = 0;
  do {
    const page = await list(kv, key, {
      recursive,
      ...(predicate ? { predicate } : {}),
      ...(recursive ? { limit: initialListPageSize } : {}),
      ...(token ? { continue: token } : {}),
    });
    if (queue.isClosed) return undefined;
    revision = Number(page.resourceVersion);
    if (minimumRevision > revision) {
      queue.push({ type: 'ERROR', object: tooLargeStatus(minimumRevision, revision).status, revision: 0 });
      queue.finish();
      return undefined;
    }
    for (const item of page.items) {
      queue.push({ type: 'ADDED', object: item, revision: Number(item.metadata.resourceVersion) });
      await queue.waitForRoom();
      if (queue.isClosed) return undefined;
    }
    token = page.continue;
  } while (token);
  return revision;
}

function bookmark(revision: number, initialEventsEnd = false): WatchEvent {
  const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { [initialEventsEndAnnotation]: 'true' };
  return { type: 'BOOKMARK', object: { metadata }, revision };
}
