/**
 * kube's corrupt-object deleter (the `ignoreStoreReadErrorWithClusterBreakingPotential` delete
 * option, behind the AllowUnsafeMalformedObjectDeletion gate, which the HTTP layer checks and
 * authorizes): the one way to remove an object whose stored value can no longer be read.
 */
import { fieldInvalid, invalid } from '@kapi/machinery';
import { isKeyNotFound, isStorageError, type Storage, type UnreadableDeleter } from '@kapi/storage';
import type { RequestContext } from './definition.js';
import { objectKey } from './keys.js';
import type { StoreContext } from './store-context.js';
import { toStatusError } from './storage-errors.js';

/**
 * Reads the object from etcd (a quorum read, not the cache): a value that reads fine, an
 * absent one, or any error but an unreadable value is kube's 422 on the option. Otherwise the
 * key is deleted without reading it — no preconditions, finalizers, graceful deletion,
 * admission or garbage collection (which is why kube calls it cluster-breaking). A key gone
 * meanwhile counts as deleted.
 */
export async function deleteCorruptObject(ctx: StoreContext, storage: Storage & UnreadableDeleter, req: RequestContext, name: string): Promise<void> {
  const key = objectKey(ctx.space, req.namespace, name);
  let unreadable = false;
  try {
    await storage.get(key);
  } catch (err) {
    unreadable = isStorageError(err, 'CorruptObject');
  }
  if (!unreadable) {
    throw invalid({ group: ctx.resource.group, kind: ctx.resource.resource }, name, [
      fieldInvalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is exclusively used to delete corrupt object(s), try again by removing this option'),
    ]);
  }
  try {
    await storage.deleteWithoutDecoding(key);
  } catch (err) {
    if (isKeyNotFound(err)) return;
    throw toStatusError(err, ctx.resource, name);
  }
}
