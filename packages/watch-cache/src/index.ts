export { createWatchCache, type WatchCacheOptions } from './watch-cache.js';
