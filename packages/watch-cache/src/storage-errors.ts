import { StorageError } from '@kapi/storage';

/**
 * The storage errors the cache raises itself, with the same codes and messages as the etcd
 * backend's (so a cached and an uncached read fail alike).
 */

/** "" and "0" → 0; a decimal revision → that number; anything else → InvalidError. */
export function parseResourceVersion(resourceVersion: string | undefined, key: string): number {
  if (resourceVersion === undefined || resourceVersion === '') return 0;
  if (!/^\d{1,16}$/.test(resourceVersion)) {
    throw new StorageError(
      'InvalidError',
      key,
      `metadata.resourceVersion: Invalid value: ${JSON.stringify(resourceVersion)}: must be a decimal revision`,
    );
  }
  return Number(resourceVersion);
}

/** The cache has not reached `requested` within the wait (kube answers 504 with Retry-After). */
export function tooLargeResourceVersion(key: string, requested: number, current: number): StorageError {
  return new StorageError('TooLargeResourceVersion', key, `Too large resource version: ${requested}, current: ${current}`, {
    requestedRevision: requested,
    currentRevision: current,
  });
}

/** kube's message while a cache (re)initializes; the registry answers 429 with Retry-After. */
export const reinitializingMessage = 'storage is (re)initializing';

export function tooManyRequests(key: string): StorageError {
  return new StorageError('TooManyRequests', key, reinitializingMessage);
}
