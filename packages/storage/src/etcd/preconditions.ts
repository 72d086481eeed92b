import type { KubeObject } from '@kapi/machinery';
import type { Preconditions } from '../interface.js';
import { preconditionFailed } from '../errors.js';

/**
 * Throws `preconditionFailed` (StorageError InvalidObj) when `obj` does not carry the uid or
 * resourceVersion the preconditions name. An absent object has neither.
 */
export function checkPreconditions(key: string, preconditions: Preconditions | undefined, obj: KubeObject | undefined): void {
  if (!preconditions) return;
  const uid = obj?.metadata.uid ?? '';
  if (preconditions.uid !== undefined && preconditions.uid !== uid) {
    throw preconditionFailed(key, 'UID', preconditions.uid, uid);
  }
  const resourceVersion = obj?.metadata.resourceVersion ?? '';
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== resourceVersion) {
    throw preconditionFailed(key, 'ResourceVersion', preconditions.resourceVersion, resourceVersion);
  }
}
