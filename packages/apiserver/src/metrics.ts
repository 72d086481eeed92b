/**
 * Request metrics with kube-apiserver's names, labels and buckets (endpoints/metrics), so
 * dashboards and SLO rules written for kube work unchanged. One registry per server; it
 * also carries prom-client's process metrics.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { monitorEventLoop } from './event-loop-delay.js';
import { counterChild, histogramChild } from '@kapi/storage';

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

/** kube's apiserver_request_sli_duration_seconds buckets (no 0.005 and 0.025). */
export const REQUEST_SLI_DURATION_BUCKETS = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** kube's apiserver_response_sizes buckets: ExponentialBuckets(1000, 10, 7), 1 kB to 1 GB. */
export const RESPONSE_SIZE_BUCKETS = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/** kube's apiserver_watch_events_sizes buckets: ExponentialBuckets(1024, 2, 8), 1 KiB to 128 KiB. */
export const WATCH_EVENT_SIZE_BUCKETS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

export type RequestKind = 'readOnly' | 'mutating';

/** What finishing a request reports besides its labels and code. */
export interface RequestOutcome {
  /** Bytes of the response body (observed in apiserver_response_sizes for GET and LIST). */
  readonly responseSize?: number;
  /** The version requested is deprecated: sets apiserver_requested_deprecated_apis. */
  readonly deprecated?: { readonly removedRelease: string };
}

export interface ApiMetrics {
  readonly registry: Registry;
  /** Counts one finished request and observes its latency (and size, for GET/LIST). */
  recordRequest(labels: RequestLabels, code: number, startNs: bigint, outcome?: RequestOutcome): void;
  /** A request refused with 429 before any handler ran: apiserver_request_total only (kube's RecordDroppedRequest). */
  recordDropped(labels: RequestLabels): void;
  /**
   * A request the server refused or cut short in self-defense (429 from the inflight limits,
   * 504 after --request-timeout): apiserver_request_terminations_total.
   */
  recordTermination(labels: RequestLabels, code: number): void;
  /**
   * Counts a long-running request (a watch) in apiserver_longrunning_requests while it runs;
   * returns the function that ends it (idempotent).
   */
  startLongRunning(labels: RequestLabels): () => void;
  /** A request of `kind` started executing (apiserver_current_inflight_requests); returns its end (idempotent). */
  startInflight(kind: RequestKind): () => void;
  /** Counter and size histogram of watch events sent, for one watch's group/version/resource. */
  watchEvents(group: string, version: string, resource: string): (bytes: number) => void;
  /** Marks a group/version/resource/subresource as requested although deprecated (kube's MonitorRequest). */
  deprecatedRequested(labels: RequestLabels, removedRelease: string): void;
  /** Stops the once-a-second inflight watermark reset. */
  close(): void;
}

const LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const NO_DRY_RUN = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** Creates a registry with the request metrics and the default process metrics. */
export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const stopEventLoopMonitor = monitorEventLoop(registry);
  const registers = [registry];
  const requests = new Counter({
    name: 'apiserver_request_total',
    help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...LABELS, 'code'],
    registers,
  });
  const latencies = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: [...LABELS],
    buckets: REQUEST_DURATION_BUCKETS,
    registers,
  });
  const sliLatencies = new Histogram({
    name: 'apiserver_request_sli_duration_seconds',
    help: '[ALPHA] Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
    labelNames: [...NO_DRY_RUN],
    buckets: REQUEST_SLI_DURATION_BUCKETS,
    registers,
  });
  const responseSizes = new Histogram({
    name: 'apiserver_response_sizes',
    help: '[STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
    labelNames: [...NO_DRY_RUN],
    buckets: RESPONSE_SIZE_BUCKETS,
    registers,
  });
  const longRunning = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    labelNames: [...NO_DRY_RUN],
    registers,
  });
  const terminations = new Counter({
    name: 'apiserver_request_terminations_total',
    help: '[ALPHA] Number of requests which apiserver terminated in self-defense.',
    labelNames: [...NO_DRY_RUN, 'code'],
    registers,
  });
  const deprecated = new Gauge({
    name: 'apiserver_requested_deprecated_apis',
    help: '[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    registers,
  });
  // One observation per event per watcher (100,000 a second at 1,000 watchers × 100 writes/s):
  // the children below update their series without prom-client's per-call label hashing.
  const watchEventsTotal = new Counter({
    name: 'apiserver_watch_events_total',
    help: '[BETA] Number of events sent in watch clients',
    labelNames: ['group', 'version', 'resource'],
    registers,
  });
  const watchEventsSizes = new Histogram({
    name: 'apiserver_watch_events_sizes',
    help: '[BETA] Watch event size distribution in bytes',
    labelNames: ['group', 'version', 'resource'],
    buckets: WATCH_EVENT_SIZE_BUCKETS,
    registers,
  });
  const watchChildren = new Map<string, { total: { inc(): void }; size: { observe(value: number): void } }>();
  // Maximal use in the last second per kind, as kube reports it: the watermark since the last
  // reset, and never less than what runs now.
  const current: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  const watermark: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  new Gauge({
    name: 'apiserver_current_inflight_requests',
    help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
    labelNames: ['request_kind'],
    registers,
    collect() {
      for (const kind of ['readOnly', 'mutating'] as const) this.set({ request_kind: kind }, Math.max(watermark[kind], current[kind]));
    },
  });
  const resetTimer = setInterval(() => {
    watermark.readOnly = current.readOnly;
    watermark.mutating = current.mutating;
  }, 1000);
  resetTimer.unref();

  const noDryRun = (labels: RequestLabels) => ({
    verb: labels.verb,
    group: labels.group,
    version: labels.version,
    resource: labels.resource,
    subresource: labels.subresource,
    scope: labels.scope,
    component: 'apiserver',
  });
  // In kube's label order (prom-client writes labels in the object's key order).
  const withDryRun = (labels: RequestLabels) => ({
    verb: labels.verb,
    dry_run: labels.dryRun,
    group: labels.group,
    version: labels.version,
    resource: labels.resource,
    subresource: labels.subresource,
    scope: labels.scope,
    component: 'apiserver',
  });
  // Label-bound children cached by a cheap string key: prom-client hashes label objects on
  // every call, which costs more than the rest of a cached GET.
  interface Children {
    latency: { observe(value: number): void };
    sli: { observe(value: number): void };
    size: { observe(value: number): void } | undefined;
  }
  const counterChildren = new Map<string, { inc(): void }>();
  const histogramChildren = new Map<string, Children>();
  return {
    registry,
    recordRequest(labels, code, startNs, outcome) {
      const key = `${labels.verb}|${labels.dryRun}|${labels.group}|${labels.version}|${labels.resource}|${labels.subresource}|${labels.scope}`;
      const values = () => withDryRun(labels);
      let children = histogramChildren.get(key);
      if (children === undefined) {
        const plain = noDryRun(labels);
        children = {
          latency: histogramChild(latencies, values()),
          sli: histogramChild(sliLatencies, plain),
          size: labels.verb === 'GET' || labels.verb === 'LIST' ? histogramChild(responseSizes, plain) : undefined,
        };
        histogramChildren.set(key, children);
      }
      const counterKey = `${key}|${code}`;
      let counter = counterChildren.get(counterKey);
      if (counter === undefined) counterChildren.set(counterKey, (counter = counterChild(requests, { ...values(), code: String(code) })));
      counter.inc();
      const elapsed = Number(process.hrtime.bigint() - startNs) / 1e9;
      children.latency.observe(elapsed);
      children.sli.observe(elapsed);
      if (children.size !== undefined && outcome?.responseSize !== undefined) children.size.observe(outcome.responseSize);
      if (outcome?.deprecated !== undefined) this.deprecatedRequested(labels, outcome.deprecated.removedRelease);
    },
    recordDropped(labels) {
      requests.labels({ ...withDryRun(labels), code: '429' }).inc();
    },
    recordTermination(labels, code) {
      terminations.labels({ ...noDryRun(labels), code: String(code) }).inc();
    },
    startLongRunning(labels) {
      const child = longRunning.labels(noDryRun(labels));
      child.inc();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        child.dec();
      };
    },
    startInflight(kind) {
      current[kind]++;
      if (current[kind] > watermark[kind]) watermark[kind] = current[kind];
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        current[kind]--;
      };
    },
    watchEvents(group, version, resource) {
      const key = `${group}|${version}|${resource}`;
      let child = watchChildren.get(key);
      if (child === undefined) {
        const labels = { group, version, resource };
        child = { total: counterChild(watchEventsTotal, labels), size: histogramChild(watchEventsSizes, labels) };
        watchChildren.set(key, child);
      }
      const bound = child;
      return (bytes) => {
        bound.total.inc();
        bound.size.observe(bytes);
      };
    },
    deprecatedRequested(labels, removedRelease) {
      deprecated.set({ group: labels.group, version: labels.version, resource: labels.resource, subresource: labels.subresource, removed_release: removedRelease }, 1);
    },
    close() {
      clearInterval(resetTimer);
      stopEventLoopMonitor();
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
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE' && method !== 'GET') return 'other';
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

/**
 * The exposition text with bucket bounds in exponent form written as Go writes them (`5e-07`,
 * where JavaScript writes `5e-7`): kube's `le` label values, byte for byte.
 */
export function goBucketBounds(text: string): string {
  return text.replace(/le="(\d+(?:\.\d+)?)e([+-])(\d)"/g, 'le="$1e$20$3"');
}
