/**
 * Request metrics with kube-apiserver's names, labels and buckets (endpoints/metrics), so
 * dashboards and SLO rules written for kube work unchanged. One registry per server; it
 * also carries prom-client's process metrics.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** kube's apiserver_request_duration_seconds buckets. */
export const REQUEST_DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** The labels of one request as kube reports them. */
export interface RequestLabels {
  /** GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE (see metricVerb). */
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** resource, namespace, cluster or "" (see metricScope). */
  scope: string;
}

export interface ApiMetrics {
  readonly registry: Registry;
  /** Counts one finished request and observes its latency. */
  recordRequest(labels: RequestLabels, code: number, startNs: bigint): void;
  /**
   * Counts a long-running request (a watch) in apiserver_longrunning_requests while it runs;
   * returns the function that ends it (idempotent).
   */
  startLongRunning(labels: RequestLabels): () => void;
}

const LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** Creates a registry with the request metrics and the default process metrics. */
export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'apiserver_request_total',
    help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...LABELS, 'code'],
    registers: [registry],
  });
  const latencies = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: [...LABELS],
    buckets: REQUEST_DURATION_BUCKETS,
    registers: [registry],
  });
  const longRunning = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    registers: [registry],
  });
  // Label-bound children cached by a cheap string key: prom-client hashes label objects on
  // every call, which costs more than the rest of a cached GET.
  const counterChildren = new Map<string, { inc(): void }>();
  const histogramChildren = new Map<string, { observe(value: number): void }>();
  return {
    registry,
    recordRequest(labels, code, startNs) {
      const key = `${labels.verb}|${labels.dryRun}|${labels.group}|${labels.version}|${labels.resource}|${labels.subresource}|${labels.scope}`;
      const values = () => ({
        verb: labels.verb,
        dry_run: labels.dryRun,
        group: labels.group,
        version: labels.version,
        resource: labels.resource,
        subresource: labels.subresource,
        scope: labels.scope,
        component: 'apiserver',
      });
      let histogram = histogramChildren.get(key);
      if (histogram === undefined) histogramChildren.set(key, (histogram = latencies.labels(values())));
      const counterKey = `${key}|${code}`;
      let counter = counterChildren.get(counterKey);
      if (counter === undefined) counterChildren.set(counterKey, (counter = requests.labels({ ...values(), code: String(code) })));
      counter.inc();
      histogram.observe(Number(process.hrtime.bigint() - startNs) / 1e9);
    },
    startLongRunning(labels) {
      const child = longRunning.labels({
        verb: labels.verb,
        group: labels.group,
        version: labels.version,
        resource: labels.resource,
        subresource: labels.subresource,
        scope: labels.scope,
        component: 'apiserver',
      });
      child.inc();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        child.dec();
      };
    },
  };
}

/**
 * kube's CleanVerb(CanonicalVerb(method)): GET/HEAD on a collection is LIST, watches are
 * WATCH, an apply patch is APPLY; other methods are their upper-case name.
 */
export function metricVerb(method: string, scope: string, watch: boolean, contentType: string | undefined): string {
  if (watch) return 'WATCH';
  if ((method === 'GET' || method === 'HEAD') && scope !== 'resource' && scope !== '') return 'LIST';
  if (method === 'HEAD') return 'GET';
  if (method === 'PATCH' && contentType !== undefined && contentType.startsWith('application/apply-patch')) return 'APPLY';
  return method;
}

/** kube's CleanScope: a named object or a create is `resource`, else `namespace` or `cluster`; "" off the resource API. */
export function metricScope(info: { isResourceRequest: boolean; name?: string; verb?: string; namespace?: string }): string {
  if (!info.isResourceRequest) return '';
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return 'cluster';
}

/** kube's cleanDryRun: the valid dryRun values, sorted and comma-joined ("" when none). */
export function metricDryRun(values: readonly string[]): string {
  return [...new Set(values.filter((v) => v === 'All'))].sort().join(',');
}
