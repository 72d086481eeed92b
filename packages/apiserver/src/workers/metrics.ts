/**
 * One /metrics for a server of several workers: a scrape reaches one worker, which asks the
 * primary; the primary collects every live worker's registry (as prom-client JSON) and its own
 * process metrics, and merges them under kube's names — counters and histograms summed (the
 * instance's totals, as kube's one process counts them), gauges summed unless the gauge is a
 * fact every worker holds alike (object counts, sizes, cache revisions: the largest is kept).
 * Counters and histograms of a worker that died stay in the sum (from its last collection), so
 * a restarted worker never makes a counter go down.
 */
import { AggregatorRegistry, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

type Aggregator = 'sum' | 'max' | 'min' | 'first' | 'average' | 'omit';

/**
 * How a metric that every worker reports is merged, where summing would be wrong. Counters,
 * histograms and per-request gauges (in-flight, long-running, memory, CPU) are summed.
 */
const MERGE: Readonly<Record<string, Aggregator>> = {
  // The same etcd read by every worker.
  apiserver_storage_objects: 'max',
  apiserver_resource_objects: 'max',
  apiserver_storage_size_bytes: 'max',
  // One cache per worker, each a replica of the same data.
  apiserver_watch_cache_resource_version: 'max',
  watch_cache_capacity: 'max',
  apiserver_requested_deprecated_apis: 'max',
  // Every worker checks every APIService: one verdict per APIService, not one per worker.
  aggregator_unavailable_apiservice: 'max',
  process_start_time_seconds: 'min',
  process_max_fds: 'max',
  nodejs_version_info: 'first',
};

/** Merges the workers' snapshots (and retired ones) into one registry printing kube's names. */
export function mergeSnapshots(snapshots: readonly MetricsSnapshot[]): Registry {
  const tagged = snapshots.map((snapshot) =>
    snapshot.map((metric) => ({ ...metric, aggregator: MERGE[metric.name] ?? (metric.aggregator === 'omit' ? 'omit' : metric.aggregator ?? 'sum') })),
  );
  return AggregatorRegistry.aggregate(tagged as never);
}

/**
 * What survives a worker's death: its counters and histograms (monotonic totals), merged into
 * the retired sum so that the instance's totals never go down.
 */
export class RetiredMetrics {
  private retired: MetricsSnapshot = [];

  /** Adds the last snapshot of a worker that is gone. */
  async retire(last: MetricsSnapshot): Promise<void> {
    // prom-client's JSON carries the type as a string ('counter', …) whatever its typings say.
    const totals = last.filter((m) => ['counter', 'histogram'].includes(String(m.type)));
    if (totals.length === 0) return;
    this.retired = await mergeSnapshots([this.retired, totals]).getMetricsAsJSON() as MetricsSnapshot;
  }

  get snapshot(): MetricsSnapshot {
    return this.retired;
  }
}
