/**
 * kapi_event_loop_delay_seconds: how late the event loop runs a timer due every 10 ms
 * (perf_hooks.monitorEventLoopDelay), as a Prometheus histogram. Any request that holds the
 * loop shows here as one long sample; kube has no equivalent (Go has no single loop).
 *
 * The monitor keeps its own high-resolution histogram of every tick since it started; at each
 * scrape the samples it gained are moved into the Prometheus buckets (each at its bucket's
 * upper bound, so the counts are exact to the monitor's percentiles and the sum is an upper
 * estimate), and counts only grow.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

/** kapi's buckets, in seconds: from 1 ms up to a 10 s stall. */
export const EVENT_LOOP_DELAY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How often the monitor samples, in ms; a tick's delay is what its interval exceeds this by. */
const RESOLUTION_MS = 10;

const delaySeconds = (intervalNs: number) => Math.max(0, intervalNs / 1e6 - RESOLUTION_MS) / 1000;

/** Moves what the monitor gained since the last call into `histogram`. */
function drainer(monitor: IntervalHistogram, histogram: Histogram): () => void {
  // Samples already moved, at or below each bucket (cumulative), and in all.
  const moved = EVENT_LOOP_DELAY_BUCKETS.map(() => 0);
  let movedTotal = 0;
  return () => {
    const total = monitor.count;
    if (total <= movedTotal) return;
    const percentiles = [...monitor.percentiles];
    let below = 0;
    let newBelow = 0;
    const maxDelay = delaySeconds(monitor.max);
    EVENT_LOOP_DELAY_BUCKETS.forEach((le, i) => {
      let share = 0;
      for (const [percentile, intervalNs] of percentiles) if (delaySeconds(intervalNs) <= le) share = percentile;
      // Rounded down, and never all of them when the longest is above `le`: a single stall
      // among thousands of ticks sits in the top fraction of a percent.
      const estimate = Math.min(Math.floor((total * share) / 100), maxDelay > le ? total - 1 : total);
      const now = Math.min(total, Math.max(moved[i]!, below, estimate));
      const gained = now - moved[i]!;
      for (let n = newBelow; n < gained; n++) histogram.observe(le);
      newBelow = Math.max(newBelow, gained);
      moved[i] = below = now;
    });
    const rest = total - movedTotal - newBelow;
    for (let n = 0; n < rest; n++) histogram.observe(delaySeconds(monitor.max));
    movedTotal = total;
  };
}

/**
 * Starts sampling the event-loop delay and registers the histogram in `registry`. Returns the
 * function that stops the monitor.
 */
export function monitorEventLoop(registry: Registry): () => void {
  const monitor = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  monitor.enable();
  const histogram: Histogram = new Histogram({
    name: 'kapi_event_loop_delay_seconds',
    help: `[kapi] Delay of the Node.js event loop in seconds: how late a timer due every ${RESOLUTION_MS} ms ran (perf_hooks.monitorEventLoopDelay).`,
    buckets: EVENT_LOOP_DELAY_BUCKETS,
    registers: [registry],
    collect() {
      drain();
    },
  });
  const drain = drainer(monitor, histogram);
  return () => monitor.disable();
}
