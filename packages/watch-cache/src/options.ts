import type { Registry } from 'prom-client';
import type { SlowWatcherBudget } from './cache-watcher.js';

/** A resource the cache keeps: its key prefix and the names its metrics carry. */
export interface CachedResource {
  /** The resource's key prefix, e.g. `/registry/configmaps` (no trailing "/"). */
  readonly prefix: string;
  /** API group ("" for core); a metric label. */
  readonly group?: string;
  /** Plural resource name; a metric label. Default: the prefix's last segment. */
  readonly resource?: string;
}

export interface WatchCacheLogger {
  warn(message: string): void;
  info?(message: string): void;
}

/** Options for `createWatchCache`; every field has kube's default unless noted. */
export interface WatchCacheOptions {
  /**
   * The resources to cache; one cacher each, started at once (list, then feed). Keys under
   * none of them pass straight through to the backend (uncached). More can be added later
   * with `addResource`.
   */
  readonly resources?: readonly CachedResource[];
  /** Where the cache's metrics are registered; default a registry of its own (`metricsRegistry`). */
  readonly metricsRegistry?: Registry;
  /** How long a read waits for the cache to reach a revision (NotOlderThan, consistent reads, sendInitialEvents). Default 3000 ms. */
  readonly waitTimeoutMs?: number;
  /** Serve Most Recent (resourceVersion "") lists from the cache after a freshness check. Default true. */
  readonly consistentReads?: boolean;
  /** How often progress is requested while a read waits (when progress requests are trusted). Default 100 ms. */
  readonly progressRequestIntervalMs?: number;
  /** Requests arriving before a cacher's first initialization wait this long for it. Default 3000 ms. */
  readonly initialReadyWaitMs?: number;
  /**
   * Page size of the initial list; 0 = one list, which the etcd backend reads in chunks of a
   * few MiB, fetching the next while it decodes the last (kube's reflector pages by 10000;
   * pages cost a round trip each that overlaps with nothing). Default 0.
   */
  readonly listPageSize?: number;
  /** Delay between re-list attempts after a failure. Default 1000 ms. */
  readonly relistIntervalMs?: number;
  /** Event buffer sizing (kube: 100 to 102400 events, 75 s window). */
  readonly history?: { minCapacity?: number; maxCapacity?: number; windowMs?: number };
  /** A fixed per-watcher queue size; default kube's rule ceil(capacity / 75) within [10, 100]. */
  readonly watcherQueueSize?: number;
  /** Time a blocked watcher may spend before it is closed. Default 50 ms per second, up to 100 ms. */
  readonly slowWatcherBudget?: SlowWatcherBudget;
  /** Period of bookmarks to each watcher that allows them. Default 60000 ms (±10% jitter). */
  readonly bookmarkIntervalMs?: number;
  /** How often the cache checks for due bookmarks and the compacted revision. Default 1000 ms. */
  readonly tickMs?: number;
  /** Read-your-writes: an RV="0" read waits (briefly) for writes made through this cache. Default true. */
  readonly readYourWrites?: boolean;
  readonly logger?: WatchCacheLogger;
  /** The clock (ms); tests may replace it. */
  readonly now?: () => number;
}

export interface ResolvedOptions {
  readonly waitTimeoutMs: number;
  readonly consistentReads: boolean;
  readonly progressRequestIntervalMs: number;
  readonly initialReadyWaitMs: number;
  readonly listPageSize: number;
  readonly relistIntervalMs: number;
  readonly history: { minCapacity: number; maxCapacity: number; windowMs: number };
  readonly watcherQueueSize: number | undefined;
  readonly slowWatcherBudget: SlowWatcherBudget;
  readonly bookmarkIntervalMs: number;
  readonly tickMs: number;
  readonly readYourWrites: boolean;
  readonly logger: WatchCacheLogger;
  readonly now: () => number;
}

const consoleLogger: WatchCacheLogger = { warn: (message) => console.warn(message) };

export function resolveOptions(options: WatchCacheOptions): ResolvedOptions {
  return {
    waitTimeoutMs: options.waitTimeoutMs ?? 3000,
    consistentReads: options.consistentReads ?? true,
    progressRequestIntervalMs: options.progressRequestIntervalMs ?? 100,
    initialReadyWaitMs: options.initialReadyWaitMs ?? 3000,
    listPageSize: options.listPageSize ?? 0,
    relistIntervalMs: options.relistIntervalMs ?? 1000,
    history: {
      minCapacity: options.history?.minCapacity ?? 100,
      maxCapacity: options.history?.maxCapacity ?? 100 * 1024,
      windowMs: options.history?.windowMs ?? 75_000,
    },
    watcherQueueSize: options.watcherQueueSize,
    slowWatcherBudget: options.slowWatcherBudget ?? { perSecondMs: 50, maxMs: 100 },
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    tickMs: options.tickMs ?? 1000,
    readYourWrites: options.readYourWrites ?? true,
    logger: options.logger ?? consoleLogger,
    now: options.now ?? Date.now,
  };
}

/** kube's per-watcher channel size for a resource without trigger indexes. */
export function defaultWatcherQueueSize(bufferCapacity: number): number {
  return Math.min(100, Math.max(10, Math.ceil(bufferCapacity / 75)));
}
