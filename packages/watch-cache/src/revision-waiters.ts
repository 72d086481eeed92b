interface Waiter {
  target: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

/**
 * Reads waiting for a cache to reach a revision. While any wait and `requestProgress` is set
 * (the backend's progress replies are trusted), progress is requested every `intervalMs`, so
 * a quiet resource's revision still moves (kube's ConditionalProgressRequester).
 */
export class RevisionWaiters {
  private readonly waiters = new Set<Waiter>();
  private progressTimer: NodeJS.Timeout | undefined;
  private requestProgress: (() => void) | undefined;

  constructor(
    private readonly revision: () => number,
    private readonly intervalMs: number,
  ) {}

  /** Resolves true once the revision reaches `target`, false after `timeoutMs`. */
  wait(target: number, timeoutMs: number): Promise<boolean> {
    if (this.revision() >= target) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        target,
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          this.updateProgressRequests();
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
      this.updateProgressRequests();
    });
  }

  /** The revision moved: resolves the waits it satisfies. */
  wake(): void {
    const revision = this.revision();
    for (const waiter of this.waiters) {
      if (revision >= waiter.target) {
        this.waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      }
    }
    this.updateProgressRequests();
  }

  /** Sets (or, with undefined, clears) how to ask the backend for progress. */
  setProgressRequester(requestProgress: (() => void) | undefined): void {
    this.requestProgress = requestProgress;
    this.updateProgressRequests();
  }

  /** Ends every wait (unreached). */
  close(): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters.clear();
    this.setProgressRequester(undefined);
  }

  private updateProgressRequests(): void {
    const request = this.requestProgress;
    const wanted = request !== undefined && this.waiters.size > 0;
    if (wanted && this.progressTimer === undefined) {
      request();
      this.progressTimer = setInterval(() => this.requestProgress?.(), this.intervalMs);
      this.progressTimer.unref();
    } else if (!wanted && this.progressTimer !== undefined) {
      clearInterval(this.progressTimer);
      this.progressTimer = undefined;
    }
  }
}
