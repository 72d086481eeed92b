import type { Etcd3 } from 'etcd3';
import type { ChangeFeedHandlers, FeedHandle } from '../interface.js';
import { StorageError } from '../errors.js';
import { revisionOf, type EtcdKV } from './kv.js';
import { listPrefix, prefixEnd } from './keys.js';
import { openWatchStream } from './watch-stream.js';
import { toChange } from './watch-events.js';

export interface ChangeFeedSettings {
  client: Etcd3;
  kv: EtcdKV;
  /** Whether on-demand progress replies may be trusted; undefined while not yet known (then they are not). */
  progressTrusted(): boolean | undefined;
  /** Told the compacted revision whenever etcd reports one. */
  observeCompacted(revision: number): void;
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
 * - `onError` once, and nothing after it: Expired when the start revision is compacted (the
 *   compacted revision is recorded), Unreachable when the stream breaks (etcd restarted or
 *   gone; the feed does not reconnect — its consumer re-lists), Internal for a value that does
 *   not decode or a delete etcd sent without its previous state, or whatever a handler threw.
 */
export function openChangeFeed(settings: ChangeFeedSettings, keyPrefix: string, afterRevision: number, handlers: ChangeFeedHandlers): FeedHandle {
  const prefix = listPrefix(keyPrefix);
  const stream = openWatchStream(
    settings.client,
    { key: Buffer.from(prefix), rangeEnd: prefixEnd(Buffer.from(prefix)), startRevision: afterRevision + 1, prevKv: true, progressNotify: true },
    {
      onEvents: (events) => handlers.onChanges(events.map((event) => toChange(settings.kv.codec, event))),
      onProgress: (revision, onDemand) => {
        if (!onDemand || settings.progressTrusted() === true) handlers.onProgress(revision);
      },
      onCompacted: (compactRevision) => {
        settings.observeCompacted(compactRevision);
        handlers.onError(
          new StorageError('Expired', prefix, `etcd compacted revision ${afterRevision + 1} of the feed (compacted revision ${compactRevision})`),
        );
      },
      onError: (err) => handlers.onError(err),
    },
  );
  return {
    requestProgress() {
      if (settings.progressTrusted() === true) stream.requestProgress();
    },
    close() {
      stream.close();
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
