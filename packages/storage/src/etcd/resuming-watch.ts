import type { IEvent } from 'etcd3';
import type { EtcdClient } from './etcd-calls.js';
import { isStorageError, type StorageError } from '../errors.js';
import { revisionOf } from './kv.js';
import { openWatchStream, type WatchStream, type WatchStreamRequest } from './watch-stream.js';

/** What a resuming watch is opened with: the etcd watch itself, and when and how long it resumes. */
export interface ResumingWatchRequest extends WatchStreamRequest {
  /**
   * Whether a stream that breaks with Unreachable is re-opened. The uncached watch always
   * resumes; a change feed resumes only with several members, so that on a single etcd a
   * restart reaches its cache, which re-lists.
   */
  resumes: boolean;
  /** How long a broken stream keeps being re-opened before its Unreachable error is reported. */
  resumeTimeoutMs: number;
  /**
   * Whether replies to `requestProgress` may be delivered and counted (etcd orders them after
   * the events they cover only from 3.4.31 and 3.5.13 on). Absent: `requestProgress` sends
   * nothing. Periodic progress notifications are always ordered and always delivered.
   */
  progressTrusted?(): boolean;
}

export interface ResumingWatchHandlers {
  /** The events of one watch response, in revision order. */
  onEvents(events: readonly IEvent[]): void;
  /** Every change up to `revision` has been delivered. */
  onProgress(revision: number): void;
  /** `startRevision` (that of the stream's last opening) is compacted away. Terminal. */
  onCompacted(compactRevision: number, startRevision: number): void;
  /** Terminal: an error other than Unreachable, or Unreachable that outlasted `resumeTimeoutMs` (or came when it does not resume). */
  onError(err: StorageError): void;
}

/** Backoff between attempts: 100 ms doubling to 500 ms (an attempt refused during an election costs etcd little). */
const firstRetryDelayMs = 100;
const maxRetryDelayMs = 500;

/**
 * One etcd watch that survives broken streams: when its stream ends with Unreachable (its
 * member was killed or restarted, or lost its leader: see `leaderCheckIntervalMs`), it is
 * re-opened — with several members on one that answers — from the revision after the last one
 * delivered (an event's, or a delivered progress report's), as the Go client resumes kube's
 * watches, so the consumer sees neither a gap nor a repeat. etcd never splits one revision's
 * events across responses, so resuming after a delivered revision is exact. Attempts back off
 * from 100 ms to 500 ms; once the stream has failed for `resumeTimeoutMs` without etcd
 * confirming a new watch, the error is reported.
 *
 * Exactly one terminal handler is called unless `close` comes first; nothing after it.
 * `pause` and `requestProgress` carry over to a re-opened stream.
 */
export function openResumingWatch(client: EtcdClient, request: ResumingWatchRequest, handlers: ResumingWatchHandlers): WatchStream {
  const { resumes, resumeTimeoutMs, progressTrusted, ...watch } = request;
  let nextRevision = watch.startRevision;
  let stream: WatchStream | undefined;
  let ended = false;
  let paused = false;
  let progressWanted = false;
  let failingSince = 0;
  let retryDelayMs = firstRetryDelayMs;
  let retryTimer: NodeJS.Timeout | undefined;

  const end = (report: () => void) => {
    if (ended) return;
    ended = true;
    stream = undefined;
    report();
  };

  const open = () => {
    retryTimer = undefined;
    if (ended) return;
    const startRevision = nextRevision;
    stream = openWatchStream(
      client,
      { ...watch, startRevision },
      {
        onCreated: () => {
          failingSince = 0;
          retryDelayMs = firstRetryDelayMs;
        },
        onEvents: (events) => {
          const last = revisionOf(events[events.length - 1]?.kv.mod_revision);
          if (last >= nextRevision) nextRevision = last + 1;
          handlers.onEvents(events);
        },
        onProgress: (revision, onDemand) => {
          if (onDemand && progressTrusted?.() !== true) return;
          if (revision >= nextRevision) nextRevision = revision + 1;
          handlers.onProgress(revision);
        },
        onCompacted: (compactRevision) => end(() => handlers.onCompacted(compactRevision, startRevision)),
        onError: (err) => {
          stream = undefined;
          if (ended) return;
          const now = Date.now();
          if (failingSince === 0) failingSince = now;
          if (!resumes || !isStorageError(err, 'Unreachable') || now - failingSince >= resumeTimeoutMs) {
            end(() => handlers.onError(err));
            return;
          }
          retryTimer = setTimeout(open, retryDelayMs);
          retryDelayMs = Math.min(retryDelayMs * 2, maxRetryDelayMs);
        },
      },
    );
    if (paused) stream.pause();
    if (progressWanted) {
      progressWanted = false;
      stream.requestProgress();
    }
  };

  open();
  return {
    requestProgress() {
      if (ended || progressTrusted?.() !== true) return;
      if (stream) stream.requestProgress();
      else progressWanted = true;
    },
    pause() {
      paused = true;
      stream?.pause();
    },
    resume() {
      paused = false;
      stream?.resume();
    },
    close() {
      if (ended) return;
      ended = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      stream?.close();
      stream = undefined;
    },
    member: () => stream?.member(),
  };
}
