/**
 * A work queue in the style of client-go's rate-limiting workqueue: a key is queued at most
 * once; a key added while it is being processed is queued again when its processing is
 * done (never processed twice at the same time); `addRateLimited` re-adds after a
 * per-key exponential backoff (`baseDelayMs` · 2^failures, capped at `maxDelayMs`) that
 * `forget` resets; `addAfter` re-adds after a fixed delay.
 */

export interface WorkQueueOptions {
  /** First retry delay; default 5 ms (client-go's). */
  readonly baseDelayMs?: number;
  /** Longest retry delay; default 60 s (client-go caps at 1000 s). */
  readonly maxDelayMs?: number;
}

export interface WorkQueue<K> {
  add(key: K): void;
  addRateLimited(key: K): void;
  addAfter(key: K, delayMs: number): void;
  forget(key: K): void;
  /** The next key, or undefined once `signal` aborts or the queue shuts down. Call `done(key)` after processing it. */
  get(signal: AbortSignal): Promise<K | undefined>;
  done(key: K): void;
  /** Keys waiting (not counting those being processed or delayed). */
  readonly length: number;
  /** True when nothing is queued, processing or delayed. */
  idle(): boolean;
  shutDown(): void;
}

export function createWorkQueue<K>(options: WorkQueueOptions = {}): WorkQueue<K> {
  const baseDelayMs = options.baseDelayMs ?? 5;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const queue: K[] = [];
  let head = 0;
  const dirty = new Set<K>();
  const processing = new Set<K>();
  const failures = new Map<K, number>();
  const timers = new Map<K, NodeJS.Timeout>();
  let waiters: Array<(key: K | undefined) => void> = [];
  let shuttingDown = false;

  const take = (): K | undefined => {
    if (head >= queue.length) return undefined;
    const key = queue[head++]!;
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    dirty.delete(key);
    processing.add(key);
    return key;
  };

  const add = (key: K): void => {
    if (shuttingDown || dirty.has(key)) return;
    dirty.add(key);
    if (processing.has(key)) return;
    queue.push(key);
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter(take());
  };

  const addAfter = (key: K, delayMs: number): void => {
    if (shuttingDown) return;
    if (delayMs <= 0) return add(key);
    if (timers.has(key)) return;
    const timer = setTimeout(() => {
      timers.delete(key);
      add(key);
    }, delayMs);
    timers.set(key, timer);
  };

  return {
    add,
    addAfter,
    addRateLimited(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      addAfter(key, Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(n, 30)));
    },
    forget(key) {
      failures.delete(key);
    },
    get(signal) {
      if (shuttingDown || signal.aborted) return Promise.resolve(undefined);
      const key = take();
      if (key !== undefined) return Promise.resolve(key);
      return new Promise((resolve) => {
        const waiter = (k: K | undefined): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(k);
        };
        const onAbort = (): void => {
          waiters = waiters.filter((w) => w !== waiter);
          resolve(undefined);
        };
        signal.addEventListener('abort', onAbort);
        waiters.push(waiter);
      });
    },
    done(key) {
      processing.delete(key);
      if (!dirty.has(key)) return;
      queue.push(key);
      const waiter = waiters.shift();
      if (waiter !== undefined) waiter(take());
    },
    get length() {
      return queue.length - head;
    },
    idle: () => queue.length - head === 0 && processing.size === 0 && timers.size === 0,
    shutDown() {
      shuttingDown = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const w of waiters) w(undefined);
      waiters = [];
    },
  };
}

/**
 * A controller's worker: takes keys from `queue` until `signal` aborts or the queue shuts
 * down, one at a time. `sync` returning true (or nothing) clears the key's failures; false
 * retries it after the rate limiter's backoff; a throw is reported to `onError` (unless
 * `signal` has aborted) and retried the same way.
 */
export async function processQueue<K>(
  queue: WorkQueue<K>,
  signal: AbortSignal,
  sync: (key: K) => Promise<boolean | void>,
  onError: (err: unknown) => void,
): Promise<void> {
  for (;;) {
    const key = await queue.get(signal);
    if (key === undefined) return;
    try {
      if ((await sync(key)) === false) queue.addRateLimited(key);
      else queue.forget(key);
    } catch (err) {
      if (!signal.aborted) onError(err);
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
  }
}
