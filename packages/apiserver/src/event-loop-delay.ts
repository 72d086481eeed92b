/**
 * kapi_event_loop_delay_seconds: how late the event loop runs a timer due every 10 ms
 * (perf_hooks.monitorEventLoopDelay), as a Prometheus histogram. Any request that holds the
 * loop shows here as one long sample; kube has no equivalent (Go has no single loop).
 *
 * The monitor keeps its own high-resolution histogram; at each scrape its samples since the
 * last one are moved into the Prometheus buckets (at the value of their percentile band), so
 * counts only grow.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

/** kapi's buckets, in seconds: the 10 ms sampling tick up to a 10 s stall. */
export const EVENT_LOOP_DELAY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How often the monitor samples, in ms. */
const RESOLUTION_MS = 10;

/** Moves the monitor's samples into `histogram` and resets the monitor. */
function drain(monitor: IntervalHistogram, histogram: Histogram): void {
  const total = monitor.count;
  if (total === 0) return;
  let observed = 0;
  // percentiles: ascending percentile → the delay (ns) at or below which that share of samples lies.
  for (const [percentile, delayNs] of monitor.percentiles) {
    const upTo = Math.round((total * percentile) / 100);
    for (; observed < upTo; observed++) histogram.observe(delayNs / 1e9);
  }
  monitor.reset();
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
      drain(monitor, histogram);
    },
  });
  return () => monitor.disable();
}
