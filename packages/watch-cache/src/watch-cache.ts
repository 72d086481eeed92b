import type { KubeObject } from '@kapi/machinery';
import { Registry } from 'prom-client';
import { StorageError, type ChangeFeed, type Storage, type UnreadableDeleter, type Watch, type Watcher } from '@kapi/storage';
import { Cacher, type FeedBackend } from './cacher.js';
import { cachedGet, cachedList } from './cacher-reads.js';
import { cachedWatch } from './cacher-watch.js';
import { createCacheMetrics } from './metrics.js';
import { resolveOptions, type CachedResource, type ResolvedOptions, type WatchCacheOptions } from './options.js';

/** The watch cache as the registry sees it: the storage contract plus watch, and its own controls. */
export interface WatchCache extends Storage, Watcher, Partial<UnreadableDeleter> {
  /** Resolves once every cached resource has finished its (re-)initialization. */
  ready(): Promise<void>;
  /**
   * Whether the cacher for `prefix` is ready now (initialized and not re-listing); undefined
   * when no cacher has that prefix. For per-cache readiness checks.
   */
  isReady(prefix: string): boolean | undefined;
  /**
   * Why the cacher for `prefix` could not (re-)list, while it is not ready (for example the
   * key of a stored value that does not decode); undefined when it is ready or has no error.
   */
  initializationError(prefix: string): string | undefined;
  /** Starts caching another resource (for example a new custom resource). Idempotent per prefix. */
  addResource(resource: CachedResource): void;
  /** Where the cache's metrics are registered. */
  readonly metricsRegistry: Registry;
}

function hasFeed(storage: Storage & Partial<ChangeFeed>): storage is FeedBackend {
  return (
    typeof storage.feed === 'function' &&
    typeof storage.confirmUnchanged === 'function' &&
    typeof storage.progressRequestsTrusted === 'function' &&
    typeof storage.compactedRevision === 'function'
  );
}

function hasUnreadableDeleter(storage: Storage): storage is Storage & UnreadableDeleter {
  return typeof (storage as Partial<UnreadableDeleter>).deleteWithoutDecoding === 'function';
}

function hasWatch(storage: Storage): storage is Storage & Watcher {
  return typeof (storage as Partial<Watcher>).watch === 'function';
}

/**
 * The watch cache: a decorator with the same storage contract, one cacher per resource in
 * `options.resources` (kube keeps one Cacher per resource; here one storage serves every
 * resource, so the cache routes each key to the cacher whose prefix holds it). Keys outside
 * every cached prefix, and everything when the backend offers no ChangeFeed, pass through to
 * the backend unchanged.
 *
 * Reads follow the routing in cacher-reads.ts, watches cacher-watch.ts. Writes go to the
 * backend, starting from the cached object (`cachedExisting`) when there is one; the
 * backend re-reads it if it proves stale. Objects returned are shared with the cache and
 * with watchers: treat them as read-only. `close()` stops every cacher and closes the backend.
 */
export function createWatchCache(storage: Storage & Partial<ChangeFeed>, options: WatchCacheOptions = {}): WatchCache {
  const resolved: ResolvedOptions = resolveOptions(options);
  const metricsRegistry = options.metricsRegistry ?? new Registry();
  const cachers: Cacher[] = [];
  const byPrefix = new Map<string, Cacher>();
  const feedBackend = hasFeed(storage) ? storage : undefined;

  const addResource = (resource: CachedResource): void => {
    if (feedBackend === undefined) return;
    const prefix = resource.prefix.endsWith('/') ? resource.prefix.slice(0, -1) : resource.prefix;
    if (cachers.some((c) => c.prefix === prefix)) return;
    const name = resource.resource ?? prefix.slice(prefix.lastIndexOf('/') + 1);
    const group = resource.group ?? '';
    const metrics = createCacheMetrics(metricsRegistry, group, name);
    const cacher = new Cacher(prefix, group === '' ? name : `${name}.${group}`, feedBackend, resolved, metrics);
    cachers.push(cacher);
    byPrefix.set(prefix, cacher);
    // Longest prefix first, so a nested prefix wins over its parent.
    cachers.sort((a, b) => b.prefix.length - a.prefix.length);
  };
  for (const resource of options.resources ?? []) addResource(resource);

  // Each write and read looks up its cacher: by the key's own text and each of its "/"-bounded
  // prefixes, longest first (a nested prefix wins over its parent), instead of asking every cacher.
  const cacherFor = (key: string): Cacher | undefined => {
    if (byPrefix.size === 0) return undefined;
    const exact = byPrefix.get(key);
    if (exact !== undefined) return exact;
    for (let i = key.lastIndexOf('/'); i > 0; i = key.lastIndexOf('/', i - 1)) {
      const found = byPrefix.get(key.slice(0, i));
      if (found !== undefined) return found;
    }
    return key.startsWith('/') ? byPrefix.get('') : undefined;
  };

  const afterWrite = <T extends KubeObject>(cacher: Cacher | undefined, obj: T): T => {
    cacher?.noteWrite(Number(obj.metadata.resourceVersion ?? 0));
    return obj;
  };

  return {
    metricsRegistry,
    addResource,

    async ready() {
      await Promise.all(cachers.map((c) => c.whenReady()));
    },

    isReady(prefix) {
      const normalized = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
      return cachers.find((c) => c.prefix === normalized)?.isReady;
    },

    initializationError(prefix) {
      const normalized = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
      return cachers.find((c) => c.prefix === normalized)?.initializationError;
    },

    async create(key, obj, createOptions) {
      return afterWrite(cacherFor(key), await storage.create(key, obj, createOptions));
    },

    get(key, getOptions) {
      const cacher = cacherFor(key);
      return cacher === undefined ? storage.get(key, getOptions) : cachedGet(cacher, key, getOptions);
    },

    peekCached(key) {
      return cacherFor(key)?.settledObject(key);
    },

    list(key, listOptions) {
      const cacher = cacherFor(key);
      return cacher === undefined ? storage.list(key, listOptions) : cachedList(cacher, key, listOptions);
    },

    async guaranteedUpdate(key, tryUpdate, updateOptions = {}) {
      const cacher = cacherFor(key);
      const cachedExisting = updateOptions.cachedExisting ?? cacher?.cachedObject(key);
      const result = await storage.guaranteedUpdate(key, tryUpdate, { ...updateOptions, ...(cachedExisting ? { cachedExisting } : {}) });
      return afterWrite(cacher, result);
    },

    async delete(key, deleteOptions = {}) {
      const cacher = cacherFor(key);
      const cachedExisting = deleteOptions.cachedExisting ?? cacher?.cachedObject(key);
      const result = await storage.delete(key, { ...deleteOptions, ...(cachedExisting ? { cachedExisting } : {}) });
      return afterWrite(cacher, result);
    },

    // The backend's unsafe delete, when it has one; the cache learns of it from its feed.
    ...(hasUnreadableDeleter(storage)
      ? {
          async deleteWithoutDecoding(key: string) {
            const revision = await storage.deleteWithoutDecoding(key);
            cacherFor(key)?.noteWrite(revision);
            return revision;
          },
        }
      : {}),

    watch(key, watchOptions): Promise<Watch> {
      const cacher = cacherFor(key);
      if (cacher !== undefined) return cachedWatch(cacher, key, watchOptions);
      if (hasWatch(storage)) return storage.watch(key, watchOptions);
      return Promise.reject(new StorageError('Internal', key, `watch is not supported for ${key}: it is not cached and the backend cannot watch`));
    },

    currentRevision: () => storage.currentRevision(),

    async close() {
      for (const cacher of cachers) cacher.close();
      await storage.close();
    },
  };
}
