/** delete and deletecollection of the generic store. */
import type { KubeList, KubeObject, Status } from '@kapi/machinery';
import { isNotFound, nowRFC3339, successStatus } from '@kapi/machinery';
import { preconditionFailed } from '@kapi/storage';
import type { RequestContext } from './definition.js';
import { objectKey } from './keys.js';
import type { DeleteOptions, ListOptions } from './rest.js';
import { present, type StoreContext } from './store-context.js';
import { listObjects } from './store-read.js';
import { translatingStorageErrors } from './storage-errors.js';

function hasFinalizers(obj: KubeObject): boolean {
  return Array.isArray(obj.metadata.finalizers) && obj.metadata.finalizers.length > 0;
}

/** Marks `obj` as being deleted (deletionTimestamp, grace period 0, a positive generation + 1) unless it already is. */
function markDeleting(obj: KubeObject): KubeObject {
  if (obj.metadata.deletionTimestamp !== undefined) return obj;
  obj.metadata.deletionTimestamp = nowRFC3339();
  obj.metadata.deletionGracePeriodSeconds = 0;
  if (typeof obj.metadata.generation === 'number' && obj.metadata.generation > 0) obj.metadata.generation += 1;
  return obj;
}

/**
 * What a DELETE that removed `obj` answers: the object itself for resources that return
 * deleted objects, else kube's success Status. Its `details.kind` is the plural resource,
 * `group` is omitted when empty, and there is no `code` (kube leaves it 0, omitted on the wire).
 */
function deletedResponse(ctx: StoreContext, obj: KubeObject): KubeObject | Status {
  if (ctx.definition.returnDeletedObject) return present(ctx, obj);
  const details = {
    name: obj.metadata.name ?? '',
    ...(ctx.resource.group !== '' ? { group: ctx.resource.group } : {}),
    kind: ctx.resource.resource,
    uid: obj.metadata.uid ?? '',
  };
  return successStatus(details);
}

function checkPreconditions(key: string, obj: KubeObject, preconditions: DeleteOptions['preconditions']): void {
  const uid = obj.metadata.uid ?? '';
  const rv = obj.metadata.resourceVersion ?? '';
  if (preconditions?.uid !== undefined && preconditions.uid !== uid) throw preconditionFailed(key, 'UID', preconditions.uid, uid);
  if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== rv) {
    throw preconditionFailed(key, 'ResourceVersion', preconditions.resourceVersion, rv);
  }
}

/**
 * DELETE: checks the deletion guard (403 for immortal namespaces) and the preconditions (409
 * Conflict `Precondition failed: UID in precondition: ...`), then removes the object and
 * answers with it (resourceVersion = the deleting revision) when the resource returns deleted
 * objects, else with a success Status (see deletedResponse). An object with finalizers is
 * only marked (deletionTimestamp) and returned with `deletedImmediately: false`; the update
 * that removes its last finalizer deletes it. Propagation policies are accepted but dependents
 * are not collected yet. dryRun reads and checks, writes nothing. 404 when absent.
 */
export async function deleteObject(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  options: DeleteOptions,
): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }> {
  return translatingStorageErrors(ctx.resource, name, async () => {
    ctx.deletionGuard?.(name);
    const key = objectKey(ctx.space, req.namespace, name);
    let pending = false;
    if (options.dryRun) {
      const existing = (await ctx.storage.get(key))!;
      checkPreconditions(key, existing, options.preconditions);
      pending = hasFinalizers(existing);
      if (pending) return { object: present(ctx, markDeleting(structuredClone(existing))), deletedImmediately: false };
      return { object: deletedResponse(ctx, existing), deletedImmediately: true };
    }
    const result = await ctx.storage.guaranteedUpdate(
      key,
      (existing) => {
        pending = existing !== undefined && hasFinalizers(existing);
        return pending ? markDeleting(existing!) : null;
      },
      options.preconditions !== undefined ? { preconditions: options.preconditions } : {},
    );
    return { object: pending ? present(ctx, result) : deletedResponse(ctx, result), deletedImmediately: !pending };
  });
}

/**
 * DELETE on a collection: lists with the selectors (all pages; `limit`/`continue` are
 * ignored) and deletes each item with `options`, skipping items that vanish meanwhile and
 * items the deletion guard protects. Not atomic. Returns the listed items that were deleted
 * (or marked for deletion), as they were listed (kube returns the list it deleted from).
 */
export async function deleteCollection(
  ctx: StoreContext,
  req: RequestContext,
  options: DeleteOptions,
  listOptions: ListOptions,
): Promise<KubeList> {
  const { limit: _limit, continue: _continue, ...rest } = listOptions;
  const listed = await listObjects(ctx, req, rest);
  const deleted: KubeObject[] = [];
  for (const item of listed.items) {
    const name = item.metadata.name ?? '';
    try {
      ctx.deletionGuard?.(name);
    } catch {
      continue;
    }
    try {
      await deleteObject(ctx, { ...req, namespace: item.metadata.namespace ?? '' }, name, options);
      deleted.push(item);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return { apiVersion: listed.apiVersion, kind: listed.kind, metadata: { resourceVersion: listed.metadata.resourceVersion ?? '' }, items: deleted };
}
