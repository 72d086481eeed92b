import type { Storage } from '@kapi/storage';

/** Options for `createWatchCache`. None are used yet; the next issue adds sizing and timeouts. */
export interface WatchCacheOptions {
  /** A name for logs and metrics, normally the resource (e.g. "configmaps"). */
  resource?: string;
}

/**
 * The watch cache: a decorator that keeps the `Storage` contract.
 *
 * For now it is a thin pass-through: every call goes to `storage` unchanged, so it behaves
 * exactly like the backend (the shared conformance suite runs against it to prove that).
 * The next issue fills it in: one cacher per resource fed by an etcd watch after an initial
 * list, serving RV="0" and NotOlderThan reads, Exact/continue reads from snapshots, consistent
 * reads from the cache, and watches from a ring buffer (see DESIGN.md §4).
 *
 * `close()` closes the underlying storage too.
 */
export function createWatchCache(storage: Storage, _options: WatchCacheOptions = {}): Storage {
  return {
    create: (key, obj) => storage.create(key, obj),
    get: (key, options) => storage.get(key, options),
    list: (key, options) => storage.list(key, options),
    guaranteedUpdate: (key, tryUpdate, options) => storage.guaranteedUpdate(key, tryUpdate, options),
    delete: (key, options) => storage.delete(key, options),
    currentRevision: () => storage.currentRevision(),
    close: () => storage.close(),
  };
}
