import type { KubeObject } from '@kapi/machinery';
import { createEtcdStorage, type EtcdStorage, type Watch, type WatchEvent } from '@kapi/storage';
import { uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { Registry } from 'prom-client';
import { createWatchCache, type WatchCache } from '../watch-cache.js';
import type { WatchCacheOptions } from '../options.js';

/** A watch cache over a real etcd, caching one resource prefix, with short test timings. */
export interface CacheFixture {
  backend: EtcdStorage;
  cache: WatchCache;
  /** The cached resource's prefix, e.g. `/kapi-test-ab12/configmaps`. */
  resource: string;
  /** A prefix outside the cached resource (writes there move etcd's revision only). */
  elsewhere: string;
  /** The root both prefixes are under (for another fixture on the same keys). */
  root: string;
  metrics: Registry;
  /** Records a compaction as the compactor would tell the backend. */
  compacted(revision: number): void;
  key(name: string, namespace?: string): string;
  close(): Promise<void>;
}

/**
 * Starts a cache (and its own etcd backend) over `etcd`. `at.root` puts it on the key prefix
 * of an earlier fixture (another replica of the same resource); default: a fresh prefix.
 */
export async function startCacheFixture(etcd: TestEtcd, options: WatchCacheOptions = {}, at: { root?: string } = {}): Promise<CacheFixture> {
  let compacted = 0;
  const backend = createEtcdStorage({ endpoints: etcd.endpoints, compaction: { compactedRevision: () => compacted }, requestTimeoutMs: 3000 });
  const root = at.root ?? uniquePrefix();
  const resource = `${root}/configmaps`;
  const metrics = new Registry();
  const cache = createWatchCache(backend, {
    resources: [{ prefix: resource, resource: 'configmaps' }],
    metricsRegistry: metrics,
    waitTimeoutMs: 1000,
    bookmarkIntervalMs: 200,
    tickMs: 50,
    relistIntervalMs: 200,
    logger: { warn: () => undefined },
    ...options,
  });
  // The cache's own timers and the etcd client's reconnect backoff do not hold the process
  // (a server's listening socket does); a test awaiting the cache while etcd is down would
  // otherwise see its event loop run dry and be cancelled.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    await cache.ready();
  } catch (err) {
    clearInterval(keepAlive);
    throw err;
  }
  return {
    backend,
    cache,
    resource,
    elsewhere: `${root}/secrets`,
    root,
    metrics,
    compacted: (revision) => (compacted = Math.max(compacted, revision)),
    key: (name, namespace = 'default') => `${resource}/${namespace}/${name}`,
    close: async () => {
      clearInterval(keepAlive);
      await cache.close();
    },
  };
}

export function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

export const names = (items: readonly KubeObject[]): string[] => items.map((i) => i.metadata.name ?? '');

/** Reads a watch with a deadline per event; a timed-out read stays pending for the next call. */
export class Reader {
  private readonly iterator: AsyncIterator<WatchEvent>;
  private pending: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(readonly watch: Watch) {
    this.iterator = watch[Symbol.asyncIterator]();
  }

  async next(timeoutMs = 3000): Promise<WatchEvent | 'timeout' | 'done'> {
    this.pending ??= this.iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.pending,
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (result === 'timeout') return result;
    this.pending = undefined;
    return result.done ? 'done' : result.value;
  }

  async event(timeoutMs = 3000): Promise<WatchEvent> {
    const event = await this.next(timeoutMs);
    if (typeof event === 'string') throw new Error(`expected a watch event, got ${event}`);
    return event;
  }

  /** The next `n` events that are not bookmarks. */
  async changes(n: number, timeoutMs = 3000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    while (out.length < n) {
      const event = await this.event(timeoutMs);
      if (event.type !== 'BOOKMARK') out.push(event);
    }
    return out;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
