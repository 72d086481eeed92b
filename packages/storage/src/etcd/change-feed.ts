import type { Etcd3 } from 'etcd3';
import type { ChangeFeedHandlers, FeedHandle } from '../interface.js';
import { StorageError, isStorageError } from '../errors.js';
import { revisionOf, type EtcdKV } from './kv.js';
import { listPrefix, prefixEnd } from './keys.js';
import { memberCount, openWatchStream, type WatchStream } from './watch-stream.js';
import { toChange } from './watch-events.js';

export interface ChangeFeedSettings {
  client: Etcd3;
  kv: EtcdKV;
  /** Whether on-demand progress replies may be trusted; undefined while not yet known (then they are not). */
  progressTrusted(): boolean | undefined;
  /** Told the compacted revision whenever etcd reports one. */
  observeCompacted(revision: number): void;
  /**
   * With several members: how long a broken feed keeps re-opening its etcd watch (on another
   * member) before it reports Unreachable. Default 30000 ms.
   */
  resumeTimeoutMs?: number;
  /** See `WatchStreamRequest.leaderCheckIntervalMs` (0/absent: no check). */
  leaderCheckIntervalMs?: number;
}

/**
 * `ChangeFeed.feed` on etcd: one watch, on its own gRPC stream, on `keyPrefix + "/"` from
 * `afterRevision + 1` with prev_kv and progress_notify.
 *
 * - Each watch response becomes one `onChanges` call (see `toChange`).
 * - Periodic progress notifications (this watch's own id; etcd sends them only for a watcher
 *   that has caught up, through the same queue as its events, so they are ordered) go to
 *   `onProgress`. Replies to `requestProgress` (watch id -1) go there only when the etcd
 *   version orders them (`progressTrusted`); otherwise `requestProgress` sends nothing.
 * - With several members, a stream that breaks (its member was killed, or lost its leader:
 *   see `leaderCheckIntervalMs`) is re-opened, on a member that answers, from the revision
 *   after the last one delivered (an event's, or a delivered progress report's), as the Go
 *   client resumes kube's watches: the consumer sees neither a gap nor a repeat, and need not
 *   re-list. etcd never splits one revision's events across responses, so resuming after a
 *   delivered revision is exact. Attempts back off from 100 ms to 500 ms (an attempt refused
 *   during an election costs etcd little, and the stream is back soon after a leader is), for
 *   `resumeTimeoutMs`.
 * - `onError` once, and nothing after it: Expired when the start revision is compacted (the
 *   compacted revision is recorded), Unreachable when the stream breaks for good (a single
 *   member restarted or gone, or no member took the watch for `resumeTimeoutMs`; its consumer
 *   re-lists), Internal for a value that does not decode or a delete etcd sent without its
 *   previous state, or whatever a handler threw.
 */
export function openChangeFeed(settings: ChangeFeedSettings, keyPrefix: string, afterRevision: number, handlers: ChangeFeedHandlers): FeedHandle {
  const prefix = listPrefix(keyPrefix);
  const key = Buffer.from(prefix);
  const rangeEnd = prefixEnd(key);
  const resumeTimeoutMs = settings.resumeTimeoutMs ?? 30_000;
  const canMove = memberCount(settings.client) > 1;
  /** Every change up to this revision has been delivered. */
  let delivered = afterRevision;
  let stream: WatchStream | undefined;
  let ended = false;
  let failingSince = 0;
  let retryDelayMs = 100;
  let retryTimer: NodeJS.Timeout | undefined;
  let progressWanted = false;

  const end = (err: Error) => {
    if (ended) return;
    ended = true;
    stream = undefined;
    handlers.onError(err);
  };

  const open = () => {
    retryTimer = undefined;
    if (ended) return;
    const startRevision = delivered + 1;
    stream = openWatchStream(
      settings.client,
      {
        key,
        rangeEnd,
        startRevision,
        prevKv: true,
        progressNotify: true,
        ...(settings.leaderCheckIntervalMs ? { leaderCheckIntervalMs: settings.leaderCheckIntervalMs } : {}),
      },
      {
        onCreated: () => {
          failingSince = 0;
          retryDelayMs = 100;
        },
        onEvents: (events) => {
          const changes = events.map((event) => toChange(settings.kv.codec, event));
          const last = revisionOf(events[events.length - 1]?.kv.mod_revision);
          if (last > delivered) delivered = last;
          handlers.onChanges(changes);
        },
        onProgress: (revision, onDemand) => {
          if (onDemand && settings.progressTrusted() !== true) return;
          if (revision > delivered) delivered = revision;
          handlers.onProgress(revision);
        },
        onCompacted: (compactRevision) => {
          settings.observeCompacted(compactRevision);
          end(new StorageError('Expired', prefix, `etcd compacted revision ${startRevision} of the feed (compacted revision ${compactRevision})`));
        },
        onError: (err) => {
          stream = undefined;
          if (ended) return;
          if (!canMove || !isStorageError(err, 'Unreachable')) {
            end(err);
            return;
          }
          const now = Date.now();
          if (failingSince === 0) failingSince = now;
          if (now - failingSince >= resumeTimeoutMs) {
            end(err);
            return;
          }
          retryTimer = setTimeout(open, retryDelayMs);
          retryDelayMs = Math.min(retryDelayMs * 2, 500);
        },
      },
    );
    if (progressWanted) {
      progressWanted = false;
      stream.requestProgress();
    }
  };

  open();
  return {
    requestProgress() {
      if (ended || settings.progressTrusted() !== true) return;
      if (stream) stream.requestProgress();
      else progressWanted = true;
    },
    close() {
      if (ended) return;
      ended = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      stream?.close();
      stream = undefined;
    },
  };
}

/**
 * `ChangeFeed.confirmUnchanged` on etcd: one transaction with no compares and two ranges on
 * the prefix — a count of every key, and the first key (keys only) with mod_revision >
 * `sinceRevision` — so both read the same revision, the transaction's header revision.
 */
export async function confirmUnchanged(
  kv: EtcdKV,
  keyPrefix: string,
  sinceRevision: number,
  count: number,
): Promise<{ unchanged: boolean; revision: number }> {
  const prefix = Buffer.from(listPrefix(keyPrefix));
  const rangeEnd = prefixEnd(prefix);
  const res = await kv.txn(keyPrefix, {
    compare: [],
    success: [
      { request_range: { key: prefix, range_end: rangeEnd, count_only: true } },
      { request_range: { key: prefix, range_end: rangeEnd, keys_only: true, limit: 1, min_mod_revision: sinceRevision + 1 } },
    ],
    failure: [],
  });
  const [counted, changed] = res.responses;
  const total = revisionOf(counted?.response_range?.count);
  const changedKeys = changed?.response_range?.kvs.length ?? 0;
  return { unchanged: total === count && changedKeys === 0, revision: revisionOf(res.header.revision) };
}
