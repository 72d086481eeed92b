/**
 * A server's own `apiserver_request_duration_seconds` (kube's histogram, the one
 * clusterloader2's API call latency SLO reads): parsed from the Prometheus text of /metrics,
 * subtracted between two scrapes, and read as a p99 per verb, resource and scope by
 * Prometheus's `histogram_quantile` (linear within the bucket).
 */

/** One histogram series: its labels and cumulative bucket counts by upper bound. */
export interface RequestHistogram {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: string;
  /** Cumulative counts, ascending `le` (the last is +Inf). */
  readonly buckets: readonly { le: number; count: number }[];
  readonly count: number;
  readonly sum: number;
}

const METRIC = 'apiserver_request_duration_seconds';

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return labels;
}

function seriesKey(labels: Record<string, string>): string {
  return [labels['verb'], labels['group'], labels['version'], labels['resource'], labels['subresource'], labels['scope'], labels['dry_run'], labels['component']].join('|');
}

/** Every `apiserver_request_duration_seconds` series of a /metrics body, keyed by its labels (without `le`). */
export function parseRequestHistograms(metricsText: string): Map<string, RequestHistogram> {
  const building = new Map<string, { labels: Record<string, string>; buckets: { le: number; count: number }[]; count: number; sum: number }>();
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(METRIC)) continue;
    const brace = line.indexOf('{');
    const close = line.lastIndexOf('}');
    if (brace < 0 || close < brace) continue;
    const name = line.slice(0, brace);
    const labels = parseLabels(line.slice(brace + 1, close));
    const value = Number(line.slice(close + 1).trim().split(' ')[0]);
    const le = labels['le'];
    delete labels['le'];
    const key = seriesKey(labels);
    let series = building.get(key);
    if (series === undefined) building.set(key, (series = { labels, buckets: [], count: 0, sum: 0 }));
    if (name === `${METRIC}_bucket` && le !== undefined) series.buckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: value });
    else if (name === `${METRIC}_count`) series.count = value;
    else if (name === `${METRIC}_sum`) series.sum = value;
  }
  const out = new Map<string, RequestHistogram>();
  for (const [key, s] of building) {
    out.set(key, {
      verb: s.labels['verb'] ?? '',
      group: s.labels['group'] ?? '',
      resource: s.labels['resource'] ?? '',
      subresource: s.labels['subresource'] ?? '',
      scope: s.labels['scope'] ?? '',
      buckets: s.buckets.sort((a, b) => a.le - b.le),
      count: s.count,
      sum: s.sum,
    });
  }
  return out;
}

/** `after` minus `before`, series by series (a series absent before counts from zero); series with no new requests are dropped. */
export function subtractHistograms(after: Map<string, RequestHistogram>, before: Map<string, RequestHistogram>): RequestHistogram[] {
  const out: RequestHistogram[] = [];
  for (const [key, a] of after) {
    const b = before.get(key);
    const count = a.count - (b?.count ?? 0);
    if (count <= 0) continue;
    const earlier = new Map((b?.buckets ?? []).map((x) => [x.le, x.count]));
    out.push({ ...a, count, sum: a.sum - (b?.sum ?? 0), buckets: a.buckets.map((x) => ({ le: x.le, count: x.count - (earlier.get(x.le) ?? 0) })) });
  }
  return out;
}

/** Adds series of the same buckets (e.g. one verb/resource over its subresources). */
export function mergeHistograms(series: readonly RequestHistogram[]): RequestHistogram {
  const first = series[0]!;
  const counts = new Map<number, number>();
  for (const s of series) for (const b of s.buckets) counts.set(b.le, (counts.get(b.le) ?? 0) + b.count);
  return {
    ...first,
    buckets: [...counts].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count })),
    count: series.reduce((n, s) => n + s.count, 0),
    sum: series.reduce((n, s) => n + s.sum, 0),
  };
}

/**
 * Prometheus's histogram_quantile: the bucket holding the q-th observation, interpolated
 * linearly between its bounds (from 0 for the first bucket); a quantile in the +Inf bucket
 * is the largest finite bound. Seconds; NaN without observations.
 */
export function histogramQuantile(q: number, histogram: RequestHistogram): number {
  const buckets = histogram.buckets;
  const total = buckets.at(-1)?.count ?? 0;
  if (total <= 0) return NaN;
  const rank = q * total;
  let previousLe = 0;
  let previousCount = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return previousLe;
      const inBucket = b.count - previousCount;
      return inBucket <= 0 ? b.le : previousLe + ((b.le - previousLe) * (rank - previousCount)) / inBucket;
    }
    previousLe = b.le;
    previousCount = b.count;
  }
  return previousLe;
}
