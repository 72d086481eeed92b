import type { KubeObject } from '@kapi/machinery';
import type { Predicate, Watch, WatchEvent, WatchPull } from '@kapi/storage';
import type { CacheEvent } from './cache-event.js';

/** The time a watcher may keep its queue over-full: kube's budget, 50 ms per second up to 100 ms. */
export interface SlowWatcherBudget {
  perSecondMs: number;
  maxMs: number;
}

export interface CacheWatcherOptions {
  /** A recursive watch's prefix (ending in "/"), or the single key. */
  readonly scope: string;
  readonly recursive: boolean;
  readonly predicate: Predicate;
  readonly allowBookmarks: boolean;
  /** Events a watcher may queue before it counts as blocked. */
  readonly queueSize: number;
  readonly budget: SlowWatcherBudget;
  /** Revisions at or below this are not delivered (the running maximum starts here). */
  readonly startRevision: number;
  /** Events delivered before the queue: the initial ADDED events, a replay, the initial-events-end bookmark. */
  readonly initial?: Iterator<WatchEvent>;
  readonly now: () => number;
  /** The watcher used up its budget and is being closed (for the metric and the log). */
  readonly onSlow: (watcher: CacheWatcher) => void;
  /** The watcher stopped taking events (called once): the cache forgets it. */
  readonly onClose: (watcher: CacheWatcher) => void;
  readonly signal?: AbortSignal;
  /** When the watch ends, on the `now` clock; the last periodic bookmark goes out 2 s before. */
  readonly deadline?: number;
}

type Mode = 'open' | 'draining' | 'done';

/** A budget timer this late (ms) means the event loop was stalled, not the consumer. */
const STALL_TOLERANCE_MS = 15;
/** However stalled the process, a watcher is closed once its queue exceeds this many times its size. */
const MAX_OVERFLOW_FACTOR = 100;

/**
 * One client watch served by the cache. Events reach it in three ways, in this order: the
 * `initial` iterator (lazy, so a large initial state is produced as the consumer pulls), then
 * the queue the cache dispatches live events and bookmarks into. A running maximum revision
 * keeps anything from repeating or going backwards.
 *
 * Backpressure: the consumer pulls at its own pace. When the queue holds more than
 * `queueSize` events the watcher is blocked and spends its time budget; once the budget is
 * gone it is closed gracefully: nothing more is queued, the consumer drains what is queued,
 * then gets a final BOOKMARK at the last revision it was given (when bookmarks are allowed),
 * and the stream ends, so the client resumes from there. Unlike kube, a blocked watcher never
 * holds up the others: each has its own budget.
 */
export class CacheWatcher implements Watch {
  readonly scope: string;
  readonly recursive: boolean;
  readonly predicate: Predicate;
  readonly allowBookmarks: boolean;
  /** When the watch ends (ms, on the cache's clock), if known. */
  readonly deadline: number | undefined;
  /** When the next periodic bookmark is due (ms); maintained by the cache. */
  nextBookmarkAt = 0;

  private mode: Mode = 'open';
  private initial: Iterator<WatchEvent> | undefined;
  private queue: WatchEvent[] = [];
  private head = 0;
  private lastRevision: number;
  /** The key of the last event taken at `lastRevision`; undefined when that revision came from the start or a bookmark. */
  private lastKey: string | undefined;
  private finalBookmark = false;
  private waiting: ((result: IteratorResult<WatchEvent>) => void) | undefined;
  /** The batch consumer's listener (see `pull`), called once when events are ready or the watch ends. */
  private ready: (() => void) | undefined;
  /** The batch consumer was told events are ready and has not taken them yet: it waits for its turn in this process, not for its client. */
  private pickupPending = false;
  private budgetMs: number;
  private budgetAt: number;
  private blockedSince: number | undefined;
  private slowTimer: NodeJS.Timeout | undefined;
  private readonly abortListener = () => this.stop();

  constructor(private readonly options: CacheWatcherOptions) {
    this.scope = options.scope;
    this.recursive = options.recursive;
    this.predicate = options.predicate;
    this.allowBookmarks = options.allowBookmarks;
    this.deadline = options.deadline;
    this.initial = options.initial;
    this.lastRevision = options.startRevision;
    this.budgetMs = options.budget.maxMs;
    this.budgetAt = options.now();
    if (options.signal?.aborted) queueMicrotask(this.abortListener);
    else options.signal?.addEventListener('abort', this.abortListener, { once: true });
  }

  /** The highest revision this watcher has been given (events it got or was filtered out of). */
  get revision(): number {
    return this.lastRevision;
  }

  get isOpen(): boolean {
    return this.mode === 'open';
  }

  /** Events queued and not yet pulled (not counting the initial iterator). */
  get queued(): number {
    return this.queue.length - this.head;
  }

  /**
   * The batch consumer's side (storage WatchPull): takes what is ready without a promise per
   * event, and a listener instead of a pending pull. The same events and backpressure as the
   * iterator.
   */
  readonly pull: WatchPull = {
    take: (into, max) => {
      this.pickupPending = false;
      for (let n = 0; n < max; n++) {
        const event = this.take();
        if (event === undefined) break;
        into.push(event);
      }
      return this.mode !== 'done';
    },
    notify: (listener) => {
      if (this.mode === 'done' || this.hasReady()) {
        this.ready = undefined;
        listener();
      } else this.ready = listener;
    },
  };

  /** Offers a live event; the watcher filters it by scope, revision and predicate. */
  dispatch(event: CacheEvent): void {
    if (this.mode !== 'open' || event.revision < this.lastRevision) return;
    // The events of one etcd transaction share a revision: each passes once. A revision the
    // watcher started at or had a bookmark for (lastKey undefined) was fully delivered.
    if (event.revision === this.lastRevision && (this.lastKey === undefined || this.lastKey === event.key)) return;
    if (this.recursive ? !event.key.startsWith(this.scope) : event.key !== this.scope) return;
    this.lastRevision = event.revision;
    this.lastKey = event.key;
    const watchEvent = event.watchEventFor(this.options.predicate);
    if (watchEvent !== undefined) this.enqueue(watchEvent);
  }

  /**
   * Offers a bookmark at `bookmark.revision` (only to watchers that allow bookmarks, only
   * forward — or, for the last one before the deadline, `orSame`: at the revision the watcher
   * already has, which still tells the client where to resume).
   */
  bookmark(bookmark: WatchEvent, orSame = false): void {
    if (this.mode !== 'open' || !this.allowBookmarks) return;
    if (bookmark.revision < this.lastRevision || (bookmark.revision === this.lastRevision && !orSame)) return;
    this.lastRevision = bookmark.revision;
    this.lastKey = undefined;
    this.enqueue(bookmark);
  }

  /**
   * Stops taking events; the consumer still gets what is queued, then (if `withBookmark` and
   * bookmarks are allowed) a BOOKMARK at the last revision it was given, then the end.
   */
  close(withBookmark: boolean): void {
    if (this.mode !== 'open') return;
    this.mode = 'draining';
    this.finalBookmark = withBookmark && this.allowBookmarks;
    this.clearSlowTimer();
    this.options.onClose(this);
    this.wake();
  }

  /** Ends the watch now, dropping whatever is queued. Idempotent. */
  stop(): void {
    if (this.mode === 'done') return;
    const wasOpen = this.mode === 'open';
    this.mode = 'done';
    this.queue = [];
    this.head = 0;
    this.initial = undefined;
    this.clearSlowTimer();
    this.options.signal?.removeEventListener('abort', this.abortListener);
    if (wasOpen) this.options.onClose(this);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.callReady();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.take();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.mode === 'done') return Promise.resolve({ value: undefined, done: true });
    if (this.waiting) return Promise.reject(new Error('a watch has one consumer; next() called while another is pending'));
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** The next event to deliver, or undefined (and `done` set once everything was delivered). */
  private take(): WatchEvent | undefined {
    if (this.mode === 'done') return undefined;
    if (this.initial !== undefined) {
      const result = this.initial.next();
      if (!result.done) return result.value;
      this.initial = undefined;
    }
    if (this.head < this.queue.length) {
      const event = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as WatchEvent;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (this.blockedSince !== undefined && this.queued <= this.options.queueSize) this.unblock();
      return event;
    }
    if (this.mode === 'draining') {
      const bookmark = this.finalBookmark ? bookmarkEvent(this.lastRevision) : undefined;
      this.finalBookmark = false;
      if (bookmark !== undefined) return bookmark;
      this.stop();
    }
    return undefined;
  }

  private enqueue(event: WatchEvent): void {
    if (this.waiting !== undefined && this.initial === undefined && this.queued === 0) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
    if (this.queued > this.options.queueSize && this.blockedSince === undefined) this.block();
    this.callReady();
  }

  /** Whether a take would give an event or change the mode (initial events, queued events, or the drained end). */
  private hasReady(): boolean {
    return this.initial !== undefined || this.head < this.queue.length || this.mode !== 'open';
  }

  private callReady(): void {
    const ready = this.ready;
    if (ready === undefined) return;
    this.ready = undefined;
    this.pickupPending = true;
    ready();
  }

  /** After `close` or `stop`: hands a pending pull its next event or the end. */
  private wake(): void {
    this.callReady();
    const resolve = this.waiting;
    if (resolve === undefined) return;
    this.waiting = undefined;
    const event = this.take();
    if (event !== undefined) resolve({ value: event, done: false });
    else if (this.mode === 'done') resolve({ value: undefined, done: true });
    else this.waiting = resolve;
  }

  private refill(now: number): void {
    const { perSecondMs, maxMs } = this.options.budget;
    this.budgetMs = Math.min(maxMs, this.budgetMs + ((now - this.budgetAt) * perSecondMs) / 1000);
    this.budgetAt = now;
  }

  private block(): void {
    const now = this.options.now();
    this.refill(now);
    this.blockedSince = now;
    this.armSlowTimer(Math.max(0, this.budgetMs));
  }

  /**
   * Closes the watcher when the budget is spent. A timer that fires late means the whole
   * process was busy (Node runs one thread), not that this consumer was slow, so it waits
   * once more for the same time — unless the queue has grown far past its size. The same
   * when a batch consumer was told of ready events and has not had its turn to take them yet
   * (its writes wait behind other watchers' in this process, not for its client).
   */
  private armSlowTimer(delayMs: number): void {
    const due = this.options.now() + delayMs;
    this.slowTimer = setTimeout(() => {
      this.slowTimer = undefined;
      if (this.mode !== 'open') return;
      const late = this.options.now() - due > STALL_TOLERANCE_MS || this.pickupPending;
      if (late && this.queued < this.options.queueSize * MAX_OVERFLOW_FACTOR) {
        this.armSlowTimer(delayMs);
        return;
      }
      this.options.onSlow(this);
      this.close(true);
    }, delayMs);
    this.slowTimer.unref();
  }

  private unblock(): void {
    const now = this.options.now();
    this.budgetMs = Math.max(0, this.budgetMs - (now - (this.blockedSince ?? now)));
    this.budgetAt = now;
    this.blockedSince = undefined;
    this.clearSlowTimer();
  }

  private clearSlowTimer(): void {
    if (this.slowTimer !== undefined) clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
  }
}

/** A BOOKMARK event: an empty object carrying only the revision (the HTTP layer adds apiVersion/kind). */
export function bookmarkEvent(revision: number, initialEventsEnd = false): WatchEvent {
  const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { type: 'BOOKMARK', object: { metadata } as KubeObject, revision };
}
