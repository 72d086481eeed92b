import { StorageError } from '../errors.js';

/**
 * Parses a request's resourceVersion: "" and "0" → 0, a decimal revision → that number.
 * Anything else is an InvalidError StorageError naming `metadata.resourceVersion`.
 */
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

/** The store has not reached `requested` yet (kube answers 504 with Retry-After). */
export function tooLargeResourceVersion(key: string, requested: number, current: number): StorageError {
  return new StorageError('TooLargeResourceVersion', key, `Too large resource version: ${requested}, current: ${current}`, {
    requestedRevision: requested,
    currentRevision: current,
  });
}
