/**
 * Polled storage gauges with kube-apiserver's names (etcd3/metrics):
 *
 * - `apiserver_storage_objects{resource}` (resource = `<plural>[.<group>]`) and
 *   `apiserver_resource_objects{group,resource}`: the number of keys under each resource's
 *   prefix, counted every `--etcd-count-metric-poll-period` (default 1m; 0 disables); -1 when
 *   a count fails, as kube reports it.
 * - `apiserver_storage_size_bytes{storage_cluster_id}`: etcd's database size from the
 *   maintenance Status call, every `--etcd-db-metric-poll-interval` (default 30s; 0 disables).
 */
import { etcdCalls, type EtcdClient } from './etcd-calls.js';
import { Gauge, type Metric, type Registry } from 'prom-client';
import type { Counter } from '../interface.js';
import type { ResourcePrefix } from './instrumentation.js';

export interface StorageMetricsPollerOptions {
  readonly registry: Registry;
  /** Counts keys under a prefix (the etcd storage's `count`). */
  readonly counter: Counter;
  readonly resources: readonly ResourcePrefix[];
  /** --etcd-count-metric-poll-period in ms; default 60000; 0 disables the object counts. */
  readonly countPollPeriodMs?: number;
  /** For the database size (maintenance Status); omitted = no size metric. */
  readonly client?: EtcdClient;
  /** --etcd-db-metric-poll-interval in ms; default 30000; 0 disables the size metric. */
  readonly dbPollIntervalMs?: number;
  readonly requestTimeoutMs?: number;
}

export interface StorageMetricsPoller {
  /** Runs one round of every enabled poll now (tests; the first round also runs at start). */
  pollNow(): Promise<void>;
  stop(): void;
}

function reuse<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** Starts polling at once, then every period. Failures never throw; they set -1 (counts) or skip (size). */
export function startStorageMetricsPoller(options: StorageMetricsPollerOptions): StorageMetricsPoller {
  const { registry } = options;
  const registers = [registry];
  const storageObjects = reuse(registry, 'apiserver_storage_objects', () => new Gauge({
    name: 'apiserver_storage_objects',
    help: '[STABLE] [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    labelNames: ['resource'] as const,
    registers,
  }));
  const resourceObjects = reuse(registry, 'apiserver_resource_objects', () => new Gauge({
    name: 'apiserver_resource_objects',
    help: '[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    labelNames: ['group', 'resource'] as const,
    registers,
  }));
  const sizeBytes = reuse(registry, 'apiserver_storage_size_bytes', () => new Gauge({
    name: 'apiserver_storage_size_bytes',
    help: '[STABLE] Size of the storage database file physically allocated in bytes.',
    labelNames: ['storage_cluster_id'] as const,
    registers,
  }));

  const countPeriod = options.countPollPeriodMs ?? 60_000;
  const dbPeriod = options.client !== undefined ? (options.dbPollIntervalMs ?? 30_000) : 0;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const calls = options.client !== undefined ? etcdCalls(options.client) : undefined;

  const pollCounts = async (): Promise<void> => {
    await Promise.all(options.resources.map(async (r) => {
      let value: number;
      try {
        value = await options.counter.count(r.prefix);
      } catch {
        value = -1;
      }
      storageObjects.set({ resource: r.group === '' ? r.resource : `${r.resource}.${r.group}` }, value);
      resourceObjects.set({ group: r.group, resource: r.resource }, value);
    }));
  };
  const pollSize = async (): Promise<void> => {
    try {
      const status = await calls!.status(timeoutMs);
      sizeBytes.set({ storage_cluster_id: String(status.header.cluster_id) }, Number(status.dbSize));
    } catch {
      // Keep the last value; a failing etcd shows in the etcd health checks and error counts.
    }
  };

  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const every = (periodMs: number, poll: () => Promise<void>) => {
    if (periodMs <= 0) return;
    let running = false;
    const tick = () => {
      if (running || stopped) return;
      running = true;
      void poll().finally(() => (running = false));
    };
    tick();
    const timer = setInterval(tick, periodMs);
    timer.unref();
    timers.push(timer);
  };
  every(countPeriod, pollCounts);
  every(dbPeriod, pollSize);

  return {
    async pollNow() {
      await Promise.all([countPeriod > 0 ? pollCounts() : undefined, dbPeriod > 0 ? pollSize() : undefined]);
    },
    stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
    },
  };
}
