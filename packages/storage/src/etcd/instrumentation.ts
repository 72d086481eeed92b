/**
 * Metrics and spans around every etcd KV call, with kube-apiserver's names (etcd3/metrics):
 * `etcd_request_duration_seconds`, `etcd_requests_total` and `etcd_request_errors_total`,
 * labelled `operation, group, resource`. The operation is read from the request's shape
 * (get, list, count, create, update, delete, txn); group and resource from the key, through
 * the resource prefixes the storage was given.
 *
 * Each call is also an OpenTelemetry span (named like the gRPC method otelgrpc reports for
 * kube: `etcdserverpb.KV/Range`, `etcdserverpb.KV/Txn`), a child of whatever span is active
 * (the request's). The API is a no-op until a process installs an SDK (only the entry point
 * does), so this costs little when tracing is off.
 */
import { SpanKind, SpanStatusCode, context, trace, type Tracer } from '@opentelemetry/api';
import type { IRangeRequest, ITxnRequest } from 'etcd3';
import { Counter, Histogram, type Metric, type Registry } from 'prom-client';
import { counterChild, histogramChild } from './metric-children.js';

/** A resource's key prefix and the labels its etcd calls carry. */
export interface ResourcePrefix {
  /** e.g. `/registry/configmaps` (no trailing "/"). */
  readonly prefix: string;
  readonly group: string;
  readonly resource: string;
}

/** kube's etcd_request_duration_seconds buckets (those of apiserver_request_duration_seconds). */
export const ETCD_REQUEST_DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

type Labels = 'operation' | 'group' | 'resource';

interface Families {
  duration: Histogram<Labels>;
  total: Counter<Labels>;
  errors: Counter<Labels>;
}

const families = new WeakMap<Registry, Families>();

function reuse<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

function familiesOf(registry: Registry): Families {
  let found = families.get(registry);
  if (found !== undefined) return found;
  const labelNames = ['operation', 'group', 'resource'] as const;
  const registers = [registry];
  found = {
    duration: reuse(registry, 'etcd_request_duration_seconds', () => new Histogram({
      name: 'etcd_request_duration_seconds',
      help: '[ALPHA] Etcd request latency in seconds for each operation and object type.',
      labelNames,
      buckets: ETCD_REQUEST_DURATION_BUCKETS,
      registers,
    })),
    total: reuse(registry, 'etcd_requests_total', () => new Counter({
      name: 'etcd_requests_total',
      help: '[ALPHA] Etcd request counts for each operation and object type.',
      labelNames,
      registers,
    })),
    errors: reuse(registry, 'etcd_request_errors_total', () => new Counter({
      name: 'etcd_request_errors_total',
      help: '[ALPHA] Etcd failed request counts for each operation and object type.',
      labelNames,
      registers,
    })),
  };
  families.set(registry, found);
  return found;
}

/** Resolves a key to the resource whose prefix holds it (longest prefix wins). */
export function resourceResolver(resources: readonly ResourcePrefix[]): (key: string) => { group: string; resource: string } {
  const sorted = [...resources]
    .map((r) => {
      const entry = { ...r, prefix: r.prefix.endsWith('/') ? r.prefix.slice(0, -1) : r.prefix };
      return { entry, withSlash: `${entry.prefix}/` };
    })
    .sort((a, b) => b.entry.prefix.length - a.entry.prefix.length);
  const none = { group: '', resource: '' };
  const exact = new Map(sorted.map((r) => [r.entry.prefix, r.entry]));
  // Calls go to the keys of a few collections: the answer is remembered per parent (the key
  // up to its last "/"). Every other key under that parent has the same longest prefix,
  // unless it is itself a prefix (looked up first).
  const byParent = new Map<string, ResourcePrefix>();
  return (key) => {
    const own = exact.get(key);
    if (own !== undefined) return own;
    const parent = key.slice(0, Math.max(0, key.lastIndexOf('/')));
    const known = byParent.get(parent);
    if (known !== undefined) return known;
    const found = sorted.find((r) => key.startsWith(r.withSlash))?.entry;
    if (found === undefined) return none;
    // Remembered only when the parent is at or below the prefix (a deeper prefix under the parent would be a key's own).
    if (parent.length >= found.prefix.length) {
      if (byParent.size >= 4096) byParent.clear();
      byParent.set(parent, found);
    }
    return found;
  };
}

/** kube-style operation names, read from the request. */
export function rangeOperation(req: IRangeRequest): string {
  if (req.count_only) return 'count';
  return req.range_end !== undefined && req.range_end.length > 0 ? 'list' : 'get';
}

export function txnOperation(req: ITxnRequest): string {
  const ops = req.success ?? [];
  if (ops.some((op) => op.request_delete_range !== undefined)) return 'delete';
  if (ops.some((op) => op.request_put !== undefined)) {
    const creating = (req.compare ?? []).some((c) => c.target === 'Mod' && Number(c.mod_revision ?? 0) === 0);
    return creating ? 'create' : 'update';
  }
  return 'txn';
}

export interface EtcdInstrumentation {
  /** Runs one etcd call, timing it, counting it and tracing it. */
  call<T>(method: 'Range' | 'Txn', operation: string, key: string, run: () => Promise<T>): Promise<T>;
}

export interface EtcdInstrumentationOptions {
  readonly registry?: Registry;
  readonly resources?: readonly ResourcePrefix[];
  /** Default: the global tracer provider's `kapi-storage` tracer (a no-op without an SDK). */
  readonly tracer?: Tracer;
}

export function createEtcdInstrumentation(options: EtcdInstrumentationOptions = {}): EtcdInstrumentation {
  const f = options.registry !== undefined ? familiesOf(options.registry) : undefined;
  const resolve = resourceResolver(options.resources ?? []);
  const tracer = () => options.tracer ?? trace.getTracer('kapi-storage');
  // Label-bound children, cached: prom-client hashes label objects on every call.
  // Keyed by the resolver's (stable) answer, then the operation: no label string per call.
  type Child = { duration: { observe(v: number): void }; total: { inc(): void }; errors: { inc(): void } };
  const children = new Map<{ group: string; resource: string }, Map<string, Child>>();
  const bound = (operation: string, key: string) => {
    const resolved = resolve(key);
    const { group, resource } = resolved;
    let byOperation = children.get(resolved);
    if (byOperation === undefined) children.set(resolved, (byOperation = new Map()));
    let child = byOperation.get(operation);
    if (child === undefined && f !== undefined) {
      const labels = { operation, group, resource };
      child = { duration: histogramChild(f.duration, labels), total: counterChild(f.total, labels), errors: f.errors.labels(labels) };
      byOperation.set(operation, child);
    }
    return { child, group, resource };
  };
  return {
    async call(method, operation, key, run) {
      const { child, group, resource } = bound(operation, key);
      const parent = context.active();
      const span = trace.getSpan(parent) !== undefined || options.tracer !== undefined
        ? tracer().startSpan(`etcdserverpb.KV/${method}`, {
            kind: SpanKind.CLIENT,
            attributes: { 'rpc.system': 'grpc', 'rpc.service': 'etcdserverpb.KV', 'rpc.method': method, 'etcd.operation': operation, 'etcd.key': key, ...(resource !== '' ? { 'k8s.group': group, 'k8s.resource': resource } : {}) },
          }, parent)
        : undefined;
      const start = process.hrtime.bigint();
      try {
        return await run();
      } catch (err) {
        child?.errors.inc();
        span?.recordException(err instanceof Error ? err : String(err));
        span?.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        throw err;
      } finally {
        child?.total.inc();
        child?.duration.observe(Number(process.hrtime.bigint() - start) / 1e9);
        span?.end();
      }
    },
  };
}
