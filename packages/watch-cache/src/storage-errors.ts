import { StorageError } from '@kapi/storage';

/**
 * The storage errors the cache raises itself, with the same codes and messages as the etcd
 * backend's (so a cached and an uncached read fail alike).
 */

export { parseResourceVersion, tooLargeResourceVersion } from '@kapi/storage';

/** kube's message while a cache (re)initializes; the registry answers 429 with Retry-After. */
export const reinitializingMessage = 'storage is (re)initializing';

export function tooManyRequests(key: string): StorageError {
  return new StorageError('TooManyRequests', key, reinitializingMessage);
}
