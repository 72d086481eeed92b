export { createWatchCache, type WatchCache } from './watch-cache.js';
export type { WatchCacheOptions, CachedResource, WatchCacheLogger } from './options.js';
export type { SlowWatcherBudget } from './cache-watcher.js';
export { SortedMap } from './sorted-map.js';
