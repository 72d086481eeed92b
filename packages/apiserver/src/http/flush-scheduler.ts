/**
 * When the watch streams with events ready write them (see handlers/watch.ts pumpBatches).
 * While few streams are ready — a selective watch (a field selector, one namespace, one
 * node's pods) gets only its own events — they are flushed as soon as the code that made
 * them ready has finished (a microtask: right after the cache dispatched one etcd watch
 * response), ahead of the rest of the turn's I/O, as kube's per-watcher goroutines deliver at
 * once. When many are (a broad fan-out), they are flushed once the current I/O callbacks have
 * run (setImmediate): everything dispatched in the meantime — one etcd watch response or
 * several that arrived together — goes to each socket in one write, and under load those
 * batches grow by themselves, so socket writes per second stay bounded by the number of
 * watchers, not watchers × events. A stream that becomes ready again while the flushes run
 * waits for the check phase (no microtask loop can hold the event loop). HTTP/2 watches use a
 * scheduler that flushes at once however many are ready (see handlers/watch.ts streamFlushes).
 */
export class FlushScheduler {
  private queue: (() => void)[] = [];
  /** A run of the queue is scheduled (microtask or check phase). */
  private pending = false;
  private running = false;

  /**
   * @param eagerMax streams with events ready that are flushed at once; more wait for the check phase
   * @param afterRun called after every run (e.g. to drop buffers shared by the run's writes)
   */
  constructor(
    private readonly eagerMax: number,
    private readonly afterRun: () => void = () => {},
  ) {}

  schedule(flush: () => void): void {
    this.queue.push(flush);
    if (this.pending) return;
    this.pending = true;
    if (this.running) setImmediate(this.run);
    else queueMicrotask(this.start);
  }

  private readonly start = (): void => {
    if (this.queue.length > this.eagerMax) setImmediate(this.run);
    else this.run();
  };

  private readonly run = (): void => {
    const queue = this.queue;
    this.queue = [];
    this.pending = false;
    this.running = true;
    try {
      for (let i = 0; i < queue.length; i++) queue[i]!();
    } finally {
      this.running = false;
      this.afterRun();
    }
  };
}
