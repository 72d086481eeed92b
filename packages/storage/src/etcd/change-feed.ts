import type { IEvent } from 'etcd3';
import type { EtcdClient } from './etcd-calls.js';
import { yieldIfBusy } from '@kapi/machinery';
import type { Change, ChangeFeedHandlers, FeedHandle } from '../interface.js';
import { StorageError } from '../errors.js';
import { revisionOf, type EtcdKV } from './kv.js';
import { listPrefix, prefixEnd } from './keys.js';
import { openResumingWatch } from './resuming-watch.js';
import { memberCount } from './watch-stream.js';
import { toChange } from './watch-events.js';

export interface ChangeFeedSettings {
  client: EtcdClient;
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
 * - Each watch response becomes one `onChanges` call (see `toChange`), its values decoded one
 *   at a time with a `yieldIfBusy` checkpoint before each large one and every
 *   DECODE_CHECKPOINT_BYTES of small ones; every report (changes, progress,
 *   the terminal error) is delivered in the order etcd sent it, none after `close`.
 * - Periodic progress notifications (this watch's own id; etcd sends them only for a watcher
 *   that has caught up, through the same queue as its events, so they are ordered) go to
 *   `onProgress`. Replies to `requestProgress` (watch id -1) go there only when the etcd
 *   version orders them (`progressTrusted`); otherwise `requestProgress` sends nothing.
 * - With several members, a stream that breaks is re-opened from the revision after the last
 *   one delivered, for `resumeTimeoutMs` (`openResumingWatch`): the consumer sees neither a
 *   gap nor a repeat, and need not re-list. With one member the break is reported at once.
 * - `onError` once, and nothing after it: Expired when the start revision is compacted (the
 *   compacted revision is recorded), Unreachable when the stream breaks for good (a single
 *   member restarted or gone, or no member took the watch for `resumeTimeoutMs`; its consumer
 *   re-lists), Internal for a value that does not decode or a delete etcd sent without its
 *   previous state, or whatever a handler threw.
 */
/** Reports of a change feed waiting for delivery at which its etcd stream is paused. */
const MAX_QUEUED = 16;

/**
 * Value bytes decoded between two `yieldIfBusy` checkpoints. Small events — the usual ones —
 * are decoded at once, so a watch event is not held a turn of the loop behind other requests'
 * work (an etcd response of a few KiB decodes in microseconds); a large value, or many small
 * ones adding up, still get their checkpoints.
 */
const DECODE_CHECKPOINT_BYTES = 64 * 1024;

/** The bytes `toChange` decodes at once for `event` (a put's previous state is decoded only when read). */
function decodedBytes(event: IEvent): number {
  return event.type === 'Delete' ? (event.prev_kv?.value.length ?? 0) : event.kv.value.length;
}

export function openChangeFeed(settings: ChangeFeedSettings, keyPrefix: string, afterRevision: number, handlers: ChangeFeedHandlers): FeedHandle {
  const prefix = listPrefix(keyPrefix);
  const key = Buffer.from(prefix);
  // Reports reach the handlers in arrival order through one chain. The events of a response
  // are decoded one at a time with a checkpoint before each large one and every
  // DECODE_CHECKPOINT_BYTES (one response can carry many large values; decoding them in one
  // go held the loop for all of them), and the response's
  // changes are delivered together, as before. After close or the terminal report nothing
  // more is delivered. While MAX_QUEUED reports wait, the stream is paused (HTTP/2 flow
  // control holds etcd back), so undecoded values cannot pile up in memory.
  let stopped = false;
  let tail: Promise<void> = Promise.resolve();
  let queued = 0;
  const fail = (err: unknown): void => {
    if (stopped) return;
    stopped = true;
    watch.close();
    handlers.onError(err instanceof StorageError ? err : new StorageError('Internal', prefix, String((err as Error)?.message ?? err), { cause: err }));
  };
  const inOrder = (deliver: () => Promise<void> | void): void => {
    if (++queued === MAX_QUEUED) watch.pause();
    tail = tail
      .then(async () => {
        if (!stopped) await deliver();
      })
      .catch(fail)
      .finally(() => {
        if (queued-- === MAX_QUEUED && !stopped) watch.resume();
      });
  };
  const terminal = (report: () => void): void =>
    inOrder(() => {
      stopped = true;
      report();
    });
  const watch = openResumingWatch(
    settings.client,
    {
      key,
      rangeEnd: prefixEnd(key),
      startRevision: afterRevision + 1,
      prevKv: true,
      progressNotify: true,
      ...(settings.leaderCheckIntervalMs ? { leaderCheckIntervalMs: settings.leaderCheckIntervalMs } : {}),
      resumes: memberCount(settings.client) > 1,
      resumeTimeoutMs: settings.resumeTimeoutMs ?? 30_000,
      progressTrusted: () => settings.progressTrusted() === true,
    },
    {
      onEvents: (events) =>
        inOrder(async () => {
          const changes: Change[] = [];
          let unchecked = 0;
          for (const event of events) {
            const bytes = decodedBytes(event);
            if (unchecked + bytes >= DECODE_CHECKPOINT_BYTES) {
              await yieldIfBusy();
              if (stopped) return;
              unchecked = 0;
            }
            unchecked += bytes;
            changes.push(toChange(settings.kv.codec, event, settings.kv.written));
          }
          handlers.onChanges(changes);
        }),
      onProgress: (revision) => inOrder(() => handlers.onProgress(revision)),
      onCompacted: (compactRevision, startRevision) => {
        settings.observeCompacted(compactRevision);
        terminal(() => handlers.onError(new StorageError('Expired', prefix, `etcd compacted revision ${startRevision} of the feed (compacted revision ${compactRevision})`)));
      },
      onError: (err) => terminal(() => handlers.onError(err)),
    },
  );
  return {
    requestProgress: () => watch.requestProgress(),
    close() {
      stopped = true;
      watch.close();
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
