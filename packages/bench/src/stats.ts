/** Latency summary of one measured run, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of `sorted` (ascending) by the nearest-rank method: the smallest
 * value such that at least q·n values are ≤ it. Returns NaN for an empty array. Throws a
 * RangeError when q is outside [0, 1]. Does not sort or mutate its input.
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be in [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(q * n));
  return sorted[rank - 1]!;
}

/** Summarises latencies (any order; the input is copied, not mutated). NaN fields when empty. */
export function summarize(latenciesMs: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(latenciesMs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const count = sorted.length;
  return {
    count,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: count === 0 ? Number.NaN : sorted[count - 1]!,
    mean: count === 0 ? Number.NaN : sum / count,
  };
}

/**
 * A growable list of float samples (latencies in ms) that avoids per-sample allocation.
 * `values()` returns a view of the recorded samples (valid until the next `add`).
 */
export class SampleBuffer {
  private data = new Float64Array(1024);
  private length = 0;

  add(value: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  get size(): number {
    return this.length;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** `a / b`, or NaN when b is 0 or either side is not finite. */
export function ratio(a: number, b: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return a / b;
}
