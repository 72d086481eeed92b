import { counterChild } from '@kapi/storage';
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

/** kube's apiserver_watch_cache_initialization_duration_seconds buckets. */
export const INITIALIZATION_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600];
/** kube's apiserver_watch_cache_read_wait_seconds buckets. */
export const READ_WAIT_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3];

/**
 * The watch cache's metrics, with kube-apiserver's names and labels (cacher/metrics), so
 * dashboards written for kube work. Registering twice on one registry reuses the metrics.
 */
export interface CacheMetrics {
  eventsReceived(): void;
  eventsDispatched(count: number): void;
  capacity(from: number, to: number): void;
  resourceVersion(revision: number): void;
  initialization(): void;
  initializationError(): void;
  /** A (re-)initialization took `seconds` (list and feed start). */
  initializationDuration(seconds: number): void;
  /** Objects loaded by an initialization (kube's apiserver_init_events_total). */
  initEvents(count: number): void;
  /** A read waited `seconds` for the cache to be fresh enough (consistent and NotOlderThan reads). */
  readWait(seconds: number): void;
  terminatedWatcher(): void;
  consistentRead(success: boolean, fallback: boolean): void;
}

interface Families {
  received: Counter<'group' | 'resource'>;
  dispatched: Counter<'group' | 'resource'>;
  capacity: Gauge<'group' | 'resource'>;
  capacityIncrease: Counter<'group' | 'resource'>;
  capacityDecrease: Counter<'group' | 'resource'>;
  resourceVersion: Gauge<'group' | 'resource'>;
  initializations: Counter<'group' | 'resource'>;
  initializationErrors: Counter<'group' | 'resource'>;
  initializationDuration: Histogram<'group' | 'resource'>;
  initEvents: Counter<'group' | 'resource'>;
  readWait: Histogram<'group' | 'resource'>;
  terminated: Counter<'group' | 'resource'>;
  consistentReads: Counter<'group' | 'resource' | 'success' | 'fallback'>;
}

function reuse<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

const families = new WeakMap<Registry, Families>();

function familiesOf(registry: Registry): Families {
  let found = families.get(registry);
  if (found !== undefined) return found;
  const registers = [registry];
  const labelNames = ['group', 'resource'] as const;
  const counter = (name: string, help: string) =>
    reuse(registry, name, () => new Counter({ name, help, labelNames, registers }));
  const gauge = (name: string, help: string) => reuse(registry, name, () => new Gauge({ name, help, labelNames, registers }));
  const histogram = (name: string, help: string, buckets: number[]) =>
    reuse(registry, name, () => new Histogram({ name, help, labelNames, buckets, registers }));
  found = {
    received: counter('apiserver_watch_cache_events_received_total', '[ALPHA] Counter of events received in watch cache broken by resource type.'),
    dispatched: counter('apiserver_watch_cache_events_dispatched_total', '[ALPHA] Counter of events dispatched in watch cache broken by resource type.'),
    capacity: gauge('watch_cache_capacity', '[ALPHA] Total capacity of watch cache broken by resource type.'),
    capacityIncrease: counter('watch_cache_capacity_increase_total', '[ALPHA] Total number of watch cache capacity increase events broken by resource type.'),
    capacityDecrease: counter('watch_cache_capacity_decrease_total', '[ALPHA] Total number of watch cache capacity decrease events broken by resource type.'),
    resourceVersion: gauge('apiserver_watch_cache_resource_version', '[ALPHA] Current resource version of watch cache broken by resource type.'),
    initializations: counter('apiserver_watch_cache_initializations_total', '[ALPHA] Counter of watch cache initializations broken by resource type.'),
    initializationErrors: counter('apiserver_watch_cache_initialization_errors_total', '[ALPHA] Counter of watch cache initialization errors broken by resource type.'),
    initializationDuration: histogram('apiserver_watch_cache_initialization_duration_seconds', '[ALPHA] Histogram of watch cache initialization duration in seconds, broken by resource type.', INITIALIZATION_DURATION_BUCKETS),
    initEvents: counter('apiserver_init_events_total', '[ALPHA] Counter of init events processed in watch cache broken by resource type.'),
    readWait: histogram('apiserver_watch_cache_read_wait_seconds', '[ALPHA] Histogram of time spent waiting for a watch cache to become fresh.', READ_WAIT_BUCKETS),
    terminated: counter('apiserver_terminated_watchers_total', '[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.'),
    consistentReads: reuse(
      registry,
      'apiserver_watch_cache_consistent_read_total',
      () =>
        new Counter({
          name: 'apiserver_watch_cache_consistent_read_total',
          help: '[ALPHA] Counter for consistent reads from cache.',
          labelNames: ['group', 'resource', 'success', 'fallback'] as const,
          registers,
        }),
    ),
  };
  families.set(registry, found);
  return found;
}

/** Metrics for one cached resource, label-bound once. */
export function createCacheMetrics(registry: Registry, group: string, resource: string): CacheMetrics {
  const f = familiesOf(registry);
  const labels = { group, resource };
  const received = counterChild(f.received, labels);
  const dispatched = f.dispatched.labels(labels);
  const capacity = f.capacity.labels(labels);
  const resourceVersion = f.resourceVersion.labels(labels);
  const readWait = f.readWait.labels(labels);
  return {
    eventsReceived: () => received.inc(),
    eventsDispatched: (count) => dispatched.inc(count),
    capacity(from, to) {
      capacity.set(to);
      if (from > 0 && to > from) f.capacityIncrease.labels(labels).inc();
      else if (from > 0 && to < from) f.capacityDecrease.labels(labels).inc();
    },
    resourceVersion: (revision) => resourceVersion.set(revision),
    initialization: () => f.initializations.labels(labels).inc(),
    initializationError: () => f.initializationErrors.labels(labels).inc(),
    initializationDuration: (seconds) => f.initializationDuration.labels(labels).observe(seconds),
    initEvents: (count) => f.initEvents.labels(labels).inc(count),
    readWait: (seconds) => readWait.observe(seconds),
    terminatedWatcher: () => f.terminated.labels(labels).inc(),
    consistentRead: (success, fallback) => f.consistentReads.labels({ ...labels, success: String(success), fallback: String(fallback) }).inc(),
  };
}
