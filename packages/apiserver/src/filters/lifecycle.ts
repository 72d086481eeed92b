/**
 * The server's shutdown lifecycle (kube's lifecycle signals): which phase the server is in,
 * the requests in flight (a wait group the shutdown drains), and the open watches (ended at
 * once, or spread over `--shutdown-watch-termination-grace-period`).
 *
 * Phases: serving → ShutdownInitiated (readyz fails; everything still served) →
 * NotAcceptingNewRequests (after --shutdown-delay-duration: the listeners close, or with
 * --shutdown-send-retry-after new requests get 429 + Retry-After + Connection: close) →
 * drained.
 */

/** kube's message for requests refused with --shutdown-send-retry-after. */
export const SHUTTING_DOWN_MESSAGE = 'The apiserver is shutting down, please try again later.';

export class ServerLifecycle {
  /** SIGTERM (or close()) seen: readyz's `shutdown` check fails from now on. */
  shutdownInitiated = false;
  /** The shutdown delay is over: no new requests are taken (listeners closed, or 429 when sending Retry-After). */
  notAcceptingNewRequests = false;
  /** --shutdown-send-retry-after: answer new requests with 429 instead of closing the listeners first. */
  rejectWithRetryAfter = false;

  private inflight = 0;
  private drainWaiters: (() => void)[] = [];
  private readonly watches = new Set<AbortController>();
  private watchWaiters: (() => void)[] = [];

  /** Counts a non-long-running request until the returned function is called (idempotent). */
  trackRequest(): () => void {
    this.inflight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inflight--;
      if (this.inflight === 0) for (const wake of this.drainWaiters.splice(0)) wake();
    };
  }

  get requestsInFlight(): number {
    return this.inflight;
  }

  get watchesOpen(): number {
    return this.watches.size;
  }

  /**
   * Registers a long-running request: its signal is aborted when the shutdown ends watches.
   * Call `done` when it ends. A watch registered after termination started ends at once.
   */
  registerWatch(): { signal: AbortSignal; done(): void } {
    const controller = new AbortController();
    if (this.terminating) controller.abort();
    this.watches.add(controller);
    return {
      signal: controller.signal,
      done: () => {
        if (!this.watches.delete(controller)) return;
        if (this.watches.size === 0) for (const wake of this.watchWaiters.splice(0)) wake();
      },
    };
  }

  private terminating = false;

  /** Resolves when no non-long-running request is in flight, or after `timeoutMs`; true when drained. */
  async drainRequests(timeoutMs: number): Promise<boolean> {
    if (this.inflight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => this.drainWaiters.push(() => resolve(true))),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return drained;
  }

  /**
   * Ends every open watch. With a grace period, watches are ended one after another, evenly
   * spread over it (so that their clients do not all re-connect to the other replicas at
   * once); without, all at once. Resolves when every watch has ended, or shortly after the
   * grace period.
   */
  async terminateWatches(gracePeriodMs: number): Promise<void> {
    this.terminating = true;
    const open = [...this.watches];
    if (open.length === 0) return;
    const allEnded = new Promise<void>((resolve) => {
      if (this.watches.size === 0) resolve();
      else this.watchWaiters.push(resolve);
    });
    if (gracePeriodMs <= 0) {
      for (const controller of open) controller.abort();
    } else {
      const spacing = gracePeriodMs / open.length;
      const started = Date.now();
      for (let i = 0; i < open.length; i++) {
        const due = started + i * spacing;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        open[i]!.abort();
      }
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allEnded, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
  }
}
