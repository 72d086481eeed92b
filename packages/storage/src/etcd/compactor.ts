import { etcdCalls, type EtcdClient } from './etcd-calls.js';
import { revisionOf } from './kv.js';
import { openWatchStream, type WatchStream } from './watch-stream.js';

/** The etcd key kube-apiservers coordinate compaction through (outside `/registry`). */
export const compactRevKey = 'compact_rev_key';

export interface CompactorOptions {
  /** kapi's own client (the default) or an etcd3 client. */
  client: EtcdClient;
  /**
   * Time between compaction rounds (`--etcd-compaction-interval`, kube's default 5 min). 0
   * disables compacting; the compacted revision is still learned from `compact_rev_key`.
   */
  intervalMs: number;
  /** Deadline for each etcd call. Default 10000 ms. */
  requestTimeoutMs?: number;
  /** Watch `compact_rev_key` so that compactions by other replicas are learned at once. Default true. */
  learnFromOthers?: boolean;
  /** Told about failed rounds (they are retried next interval). Default: a line on stderr. */
  onError?: (err: unknown) => void;
  /** Told what every round did (for metrics and tests). */
  onRound?: (round: CompactionRound) => void;
}

/** What one round did. */
export type CompactionRound =
  /** Won the CAS and compacted etcd at `revision`. */
  | { outcome: 'compacted'; revision: number }
  /** Won the CAS on the first round, when there is nothing to compact yet. */
  | { outcome: 'claimed' }
  /** Another replica moved the key on: adopted its version; `revision` is what it compacted (0 if none). */
  | { outcome: 'lost'; revision: number }
  | { outcome: 'failed'; error: unknown };

export interface Compactor {
  /** The newest compacted revision this process knows of (its own, or another replica's via `compact_rev_key`); 0 if none. */
  compactedRevision(): number;
  /** Runs one round now, outside the timer (tests, or an operator's "compact now"). */
  runOnce(): Promise<CompactionRound>;
  /** Stops the timer and the watch; waits for a round in flight. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts kube-apiserver's compactor, compatible with Go apiservers sharing the same etcd.
 * `compact_rev_key`'s etcd Version is the logical clock and its value the revision to
 * compact, as a decimal string. Each round:
 *
 * 1. txn: if version(compact_rev_key) == local version then put(compact_rev_key, the revision
 *    remembered last round) else get(compact_rev_key);
 * 2. lost → adopt the remote version (and learn the remote value as the compacted revision);
 * 3. won → local version + 1, then etcd Compact(remembered revision) unless it is 0 (the first
 *    round compacts nothing);
 * 4. either way, remember the txn's header revision for the next round.
 *
 * So one replica compacts per interval, history is kept for one to two intervals, and if the
 * winner dies another takes over within an interval. Failures are reported to `onError` and
 * retried next round. Unlike kube, several compactors may run in one process (kube keeps one
 * per endpoint set); the protocol keeps that safe.
 */
export function startCompactor(options: CompactorOptions): Compactor {
  const { client, intervalMs } = options;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const onError = options.onError ?? ((err: unknown) => process.stderr.write(`etcd compaction failed: ${String((err as Error)?.message ?? err)}\n`));
  const calls = etcdCalls(client);

  let localVersion = 0;
  let rememberedRevision = 0;
  let compacted = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<CompactionRound> | undefined;
  const learn = (revision: number) => {
    if (revision > compacted) compacted = revision;
  };

  const round = async (): Promise<CompactionRound> => {
    try {
      const key = Buffer.from(compactRevKey);
      const res = await calls.txn(
        {
          compare: [{ key, target: 'Version', result: 'Equal', version: localVersion }],
          success: [{ request_put: { key, value: Buffer.from(String(rememberedRevision)) } }],
          failure: [{ request_range: { key } }],
        },
        timeoutMs,
      );
      const headerRevision = revisionOf(res.header.revision);
      if (!res.succeeded) {
        const kv = res.responses[0]?.response_range?.kvs[0];
        localVersion = revisionOf(kv?.version);
        rememberedRevision = headerRevision;
        const remote = kv ? Number(kv.value.toString()) : 0;
        const revision = Number.isSafeInteger(remote) && remote > 0 ? remote : 0;
        learn(revision);
        return { outcome: 'lost', revision };
      }
      localVersion += 1;
      const toCompact = rememberedRevision;
      rememberedRevision = headerRevision;
      if (toCompact === 0) return { outcome: 'claimed' };
      await calls.compact({ revision: toCompact }, timeoutMs);
      learn(toCompact);
      return { outcome: 'compacted', revision: toCompact };
    } catch (error) {
      onError(error);
      return { outcome: 'failed', error };
    }
  };

  const runOnce = (): Promise<CompactionRound> => {
    const previous = inFlight ?? Promise.resolve(undefined);
    const next = previous.then(async () => {
      const result = await round();
      try {
        options.onRound?.(result);
      } catch (err) {
        onError(err);
      }
      return result;
    });
    inFlight = next;
    return next;
  };

  const schedule = () => {
    if (stopped || intervalMs <= 0) return;
    timer = setTimeout(() => {
      void runOnce().then(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();

  const learner = options.learnFromOthers === false ? undefined : watchCompactRevKey(client, timeoutMs, learn, () => stopped);

  return {
    compactedRevision: () => compacted,
    runOnce,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      learner?.stop();
      await inFlight;
    },
  };
}

/**
 * Follows `compact_rev_key`: reads its value, then watches it from the read's revision; every
 * put's value is a revision some replica compacted (or is compacting). A broken watch is
 * re-established (read, then watch) after a short delay.
 */
function watchCompactRevKey(client: EtcdClient, timeoutMs: number, learn: (revision: number) => void, isStopped: () => boolean): { stop(): void } {
  const key = Buffer.from(compactRevKey);
  let stream: WatchStream | undefined;
  let retry: NodeJS.Timeout | undefined;
  const learnValue = (value: Buffer) => {
    const revision = Number(value.toString());
    if (Number.isSafeInteger(revision) && revision > 0) learn(revision);
  };
  const again = () => {
    stream = undefined;
    if (isStopped()) return;
    retry = setTimeout(start, 500);
    retry.unref();
  };
  const start = () => {
    if (isStopped()) return;
    etcdCalls(client).range({ key }, timeoutMs).then(
      (res) => {
        if (isStopped()) return;
        const kv = res.kvs[0];
        if (kv) learnValue(kv.value);
        stream = openWatchStream(
          client,
          { key, startRevision: revisionOf(res.header.revision) + 1, prevKv: false, progressNotify: false },
          {
            onEvents: (events) => {
              for (const event of events) if (event.type === 'Put') learnValue(event.kv.value);
            },
            onProgress: () => {},
            onCompacted: again,
            onError: again,
          },
        );
      },
      again,
    );
  };
  start();
  return {
    stop() {
      if (retry) clearTimeout(retry);
      stream?.close();
      stream = undefined;
    },
  };
}
