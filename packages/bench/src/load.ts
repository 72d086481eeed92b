import { SampleBuffer, summarize, type LatencySummary } from './stats.js';

/** One operation of a load run; `seq` is unique across all workers of the run. */
export type Operation = (seq: number) => Promise<void>;

export interface ClosedLoopOptions {
  /** Number of workers, each with one operation in flight at a time. */
  concurrency: number;
  /** How long to keep issuing operations. */
  durationMs: number;
  /** The first `seq` handed out (so successive runs can use fresh names); default 0. */
  firstSeq?: number;
  /** Stop early after this many operations (all workers together). */
  maxOps?: number;
}

export interface LoadResult {
  concurrency: number;
  /** Successful operations. */
  ops: number;
  /** Failed operations (never dropped from the report). */
  errors: number;
  /**
   * Operations the server refused with 429 (its max-inflight overload protection, as kube's
   * --max-(mutating-)requests-inflight): reported on their own, not counted as errors.
   */
  throttled?: number;
  /** Up to five distinct error messages, for the report. */
  errorSamples: string[];
  /** Wall time from the first start to the last completion, in seconds. */
  elapsedSeconds: number;
  /** Successful operations per second. */
  opsPerSecond: number;
  /** Latency of successful operations, in ms. */
  latency: LatencySummary;
  /** The next unused `seq`. */
  nextSeq: number;
}

/**
 * Runs `op` in a closed loop: `concurrency` workers, each issuing its next operation as soon
 * as the previous one settles, until `durationMs` has passed (operations in flight finish).
 * A rejected operation counts as an error and its latency is not sampled. Never throws for
 * operation failures.
 */
export async function runClosedLoop(op: Operation, options: ClosedLoopOptions): Promise<LoadResult> {
  const samples = new SampleBuffer();
  const errorSamples = new Set<string>();
  let errors = 0;
  let throttled = 0;
  let seq = options.firstSeq ?? 0;
  const lastSeq = options.maxOps !== undefined ? seq + options.maxOps : Number.POSITIVE_INFINITY;
  const start = performance.now();
  const deadline = start + options.durationMs;

  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && seq < lastSeq) {
      const mySeq = seq++;
      const t0 = performance.now();
      try {
        await op(mySeq);
        samples.add(performance.now() - t0);
      } catch (err) {
        if ((err as { status?: unknown } | null)?.status === 429) {
          throttled++;
          continue;
        }
        errors++;
        if (errorSamples.size < 5) errorSamples.add(err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsedSeconds = (performance.now() - start) / 1000;
  return {
    concurrency: options.concurrency,
    ops: samples.size,
    errors,
    throttled,
    errorSamples: [...errorSamples],
    elapsedSeconds,
    opsPerSecond: samples.size / elapsedSeconds,
    latency: summarize(samples.values()),
    nextSeq: seq,
  };
}
