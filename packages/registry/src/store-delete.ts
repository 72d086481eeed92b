/** delete and deletecollection of the generic store. */
import type { KubeList, KubeObject, Status } from '@kapi/machinery';
import { conflict, isNotFound, nowRFC3339, successStatus } from '@kapi/machinery';
import { isKeyNotFound, preconditionFailed } from '@kapi/storage';
import type { RequestContext } from './definition.js';
import { objectKey } from './keys.js';
import type { DeleteOptions, ListOptions } from './rest.js';
import { present, updateStored, type StoreContext } from './store-context.js';
import { listObjects } from './store-read.js';
import { admissionAttributes, admits } from './store-admission.js';
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
 * kube's rest.BeforeDelete precondition check: 409 Conflict on `<Kind>[.<group>]` (the kind,
 * not the resource, also in details.kind) with its own wording.
 */
function checkDeletePreconditions(ctx: StoreContext, name: string, obj: KubeObject, preconditions: DeleteOptions['preconditions']): void {
  const gk = { group: ctx.definition.group, resource: ctx.definition.kind };
  const uid = obj.metadata.uid ?? '';
  const rv = obj.metadata.resourceVersion ?? '';
  if (preconditions?.uid !== undefined && preconditions.uid !== uid) {
    throw conflict(gk, name, `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`);
  }
  if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== rv) {
    throw conflict(gk, name, `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${rv}). The object might have been modified`);
  }
}

/** The garbage collector's finalizers (kube's metav1.FinalizerOrphanDependents / FinalizerDeleteDependents). */
export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

function finalizersOf(obj: KubeObject): string[] {
  return Array.isArray(obj.metadata.finalizers) ? obj.metadata.finalizers.filter((f): f is string => typeof f === 'string') : [];
}

/**
 * kube's DefaultGarbageCollectionPolicy of the kinds that orphan their dependents unless told
 * otherwise (core/v1 ReplicationControllers and batch/v1 Jobs); every other kind deletes them
 * in the background.
 */
const ORPHANING_BY_DEFAULT = new Set(['/replicationcontrollers', 'batch/jobs']);
/** What kube's Job storage warns when a delete names no propagation policy. */
const JOB_DELETE_WARNING = 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

function orphansByDefault(ctx: StoreContext): boolean {
  return ORPHANING_BY_DEFAULT.has(`${ctx.resource.group}/${ctx.resource.resource}`);
}

/** kube's shouldOrphanDependents: orphanDependents, else the policy, else the object's finalizers, else the kind's default. */
function shouldOrphan(finalizers: readonly string[], options: DeleteOptions, defaultOrphan = false): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return defaultOrphan;
}

/** kube's shouldDeleteDependents: false when orphanDependents is set, else the policy, else the object's finalizers. */
function shouldDeleteInForeground(finalizers: readonly string[], options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/**
 * kube's deletionFinalizersForGarbageCollection: the object's finalizers with `orphan` and
 * `foregroundDeletion` set as the options ask; undefined when the set does not change.
 */
export function garbageCollectionFinalizers(obj: KubeObject, options: DeleteOptions, defaultOrphan = false): string[] | undefined {
  const current = finalizersOf(obj);
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(current, options, defaultOrphan)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteInForeground(current, options)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(current);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}

/**
 * The delete step against the stored object: the garbage collector's finalizers per the
 * options, then either the object marked for deletion (it has finalizers) or null (remove it).
 */
function deleteStep(existing: KubeObject, options: DeleteOptions, garbageCollection: boolean, defaultOrphan = false): KubeObject | null {
  const finalizers = garbageCollection ? garbageCollectionFinalizers(existing, options, defaultOrphan) : undefined;
  if (finalizers !== undefined) {
    if (finalizers.length > 0) existing.metadata.finalizers = finalizers;
    else delete existing.metadata.finalizers;
  }
  return hasFinalizers(existing) ? markDeleting(existing) : null;
}

/**
 * kube's ShouldDeleteDuringUpdate: an update whose result has no finalizers removes an
 * object whose deletion is pending (deletionTimestamp set, grace period absent or 0), in the
 * same write; a namespace also needs an empty `spec.finalizers`.
 */
export function shouldDeleteDuringUpdate(ctx: StoreContext, obj: KubeObject, old: KubeObject): boolean {
  if (hasFinalizers(obj) || old.metadata.deletionTimestamp === undefined) return false;
  const grace = old.metadata.deletionGracePeriodSeconds;
  if (grace !== undefined && grace !== 0) return false;
  return !isNamespaces(ctx) || specFinalizers(obj).length === 0;
}

function isNamespaces(ctx: StoreContext): boolean {
  return ctx.resource.group === '' && ctx.resource.resource === 'namespaces';
}

function specFinalizers(obj: KubeObject): unknown[] {
  const spec = obj['spec'];
  if (spec === null || typeof spec !== 'object') return [];
  const finalizers = (spec as Record<string, unknown>)['finalizers'];
  return Array.isArray(finalizers) ? finalizers : [];
}

/** kube's namespace rules for metadata.finalizers on the first DELETE (shouldHaveOrphanFinalizer and friends). */
function namespaceGCFinalizers(obj: KubeObject, options: DeleteOptions): void {
  const current = finalizersOf(obj);
  let orphan = current.includes(FINALIZER_ORPHAN);
  let foreground = current.includes(FINALIZER_FOREGROUND);
  if (options.orphanDependents !== undefined) {
    orphan = options.orphanDependents;
    foreground = !options.orphanDependents;
  } else if (options.propagationPolicy !== undefined) {
    orphan = options.propagationPolicy === 'Orphan';
    foreground = options.propagationPolicy === 'Foreground';
  }
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (orphan) next.push(FINALIZER_ORPHAN);
  if (foreground) next.push(FINALIZER_FOREGROUND);
  if (next.length > 0) obj.metadata.finalizers = next;
  else delete obj.metadata.finalizers;
}

/** Marks a namespace Terminating (deletionTimestamp, status.phase) on its first DELETE. */
function markNamespaceTerminating(obj: KubeObject, options: DeleteOptions): KubeObject {
  obj.metadata.deletionTimestamp ??= nowRFC3339();
  const status = obj['status'] !== null && typeof obj['status'] === 'object' ? (obj['status'] as Record<string, unknown>) : {};
  status['phase'] = 'Terminating';
  obj['status'] = status;
  namespaceGCFinalizers(obj, options);
  return obj;
}

/**
 * DELETE of a namespace (kube's namespace REST Delete): the first DELETE only marks it
 * Terminating and answers 200 with it; while `spec.finalizers` is not empty (the namespace
 * controller removes `kubernetes` through /finalize once the contents are gone) a DELETE
 * answers the namespace as it is; after that the generic delete removes it.
 */
async function deleteNamespace(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  options: DeleteOptions,
): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }> {
  const key = objectKey(ctx.space, req.namespace, name);
  const existing = (await ctx.storage.get(key))!;
  checkPreconditions(key, existing, options.preconditions);
  const preconditions = { uid: options.preconditions?.uid ?? existing.metadata.uid ?? '', ...(options.preconditions?.resourceVersion !== undefined ? { resourceVersion: options.preconditions.resourceVersion } : {}) };
  if (existing.metadata.deletionTimestamp === undefined) {
    if (options.dryRun) return { object: present(ctx, markNamespaceTerminating(structuredClone(existing), options)), deletedImmediately: false };
    const marked = await updateStored(ctx, key, (current) => markNamespaceTerminating(current!, options), { preconditions });
    return { object: present(ctx, marked), deletedImmediately: false };
  }
  if (specFinalizers(existing).length > 0) return { object: present(ctx, existing), deletedImmediately: false };
  return deleteGeneric(ctx, req, name, { ...options, preconditions });
}

/** What a graceful strategy's rules (kube's rest.BeforeDelete) make of a DELETE on the stored object. */
type GracefulOutcome =
  /** Delete without a grace period (or only finalizers hold the object). */
  | { kind: 'now' }
  /** A deletion with a grace period is under way and this request does not shorten it: answer the object as it is. */
  | { kind: 'pending' }
  /** The object was marked (first DELETE) or its grace period shortened: write it. */
  | { kind: 'marked'; period: number };

/**
 * kube's BeforeDelete for a strategy with graceful deletion, applied to `obj` in place: a
 * negative requested period counts as 1; an object already being deleted with a grace
 * period only accepts a shorter one (its deletionTimestamp moves back by the difference);
 * otherwise the strategy picks the period and the object is marked deletionTimestamp =
 * now + period, deletionGracePeriodSeconds = period, generation + 1 when positive.
 */
function gracefulStep(ctx: StoreContext, obj: KubeObject, options: DeleteOptions): GracefulOutcome {
  const pick = ctx.definition.strategy?.gracefulDeletePeriod;
  if (pick === undefined) return { kind: 'now' };
  const requested = options.gracePeriodSeconds === undefined ? undefined : Math.max(options.gracePeriodSeconds, options.gracePeriodSeconds < 0 ? 1 : 0);
  const meta = obj.metadata;
  if (typeof meta.deletionGracePeriodSeconds === 'number' && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1;
  if (meta.deletionTimestamp !== undefined) {
    const current = meta.deletionGracePeriodSeconds;
    if (current === undefined || current === 0) return { kind: 'now' };
    if (requested === undefined || requested >= current) return { kind: 'pending' };
    const at = Date.parse(meta.deletionTimestamp) - current * 1000 + requested * 1000;
    meta.deletionTimestamp = formatRFC3339(at);
    meta.deletionGracePeriodSeconds = requested;
    return { kind: 'marked', period: requested };
  }
  let period = pick(obj, requested);
  if (period < 0) period = 1;
  meta.deletionTimestamp = formatRFC3339(Date.now() + period * 1000);
  meta.deletionGracePeriodSeconds = period;
  if (typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
  return { kind: 'marked', period };
}

function isStorageNotFound(err: unknown): boolean {
  return isKeyNotFound(err) || isNotFound(err);
}

/** An RFC 3339 time in whole seconds, as kube writes metav1.Time. */
function formatRFC3339(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * The delete of a resource whose strategy deletes gracefully (pods), as kube's Store.Delete
 * does it: a pending graceful deletion answers the object unchanged; otherwise the object is
 * marked (and the garbage collector's finalizers set) in one write, and removed in a second
 * one when its grace period is 0 and no finalizer holds it.
 */
async function deleteGraceful(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  options: DeleteOptions,
): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }> {
  const key = objectKey(ctx.space, req.namespace, name);
  const state: { outcome: GracefulOutcome; removed: boolean } = { outcome: { kind: 'now' }, removed: false };
  const step = (existing: KubeObject): KubeObject | null => {
    checkDeletePreconditions(ctx, name, existing, options.preconditions);
    state.outcome = gracefulStep(ctx, existing, options);
    state.removed = false;
    if (state.outcome.kind === 'pending') return existing;
    if (state.outcome.kind === 'now') {
      const next = deleteStep(existing, options, ctx.garbageCollection);
      state.removed = next === null;
      return next;
    }
    const finalizers = ctx.garbageCollection ? garbageCollectionFinalizers(existing, options) : undefined;
    if (finalizers !== undefined) {
      if (finalizers.length > 0) existing.metadata.finalizers = finalizers;
      else delete existing.metadata.finalizers;
    }
    return existing;
  };
  /** Marked with grace period 0 and held by no finalizer: removed in a second write. */
  const removeNext = (obj: KubeObject): boolean => state.outcome.kind === 'marked' && state.outcome.period === 0 && !hasFinalizers(obj);
  if (options.dryRun) {
    const existing = (await ctx.storage.get(key))!;
    const next = step(structuredClone(existing));
    if (next === null || removeNext(next)) return { object: deletedResponse(ctx, next ?? existing), deletedImmediately: true };
    return { object: present(ctx, next), deletedImmediately: false };
  }
  const written = await updateStored(ctx, key, (existing) => step(existing!), { deleting: true });
  if (state.removed) return { object: deletedResponse(ctx, written), deletedImmediately: true };
  if (!removeNext(written)) return { object: present(ctx, written), deletedImmediately: false };
  // A finalizer added meanwhile holds the object; otherwise it goes now.
  let held = false;
  let removed: KubeObject;
  try {
    removed = await updateStored(ctx, key, (existing) => {
      held = hasFinalizers(existing!);
      return held ? existing! : null;
    });
  } catch (err) {
    // Another delete (the kubelet's) removed it between the two writes: it is gone, as asked.
    if (isStorageNotFound(err)) return { object: deletedResponse(ctx, written), deletedImmediately: true };
    throw err;
  }
  return held ? { object: present(ctx, removed), deletedImmediately: false } : { object: deletedResponse(ctx, removed), deletedImmediately: true };
}

/** The first DELETE of a kind whose strategy marks objects for deletion itself (see ResourceStrategy.markForDeletion). */
async function markForDeletion(ctx: StoreContext, key: string, name: string, options: DeleteOptions, mark: (obj: KubeObject) => void): Promise<KubeObject> {
  const step = (existing: KubeObject): KubeObject => {
    checkDeletePreconditions(ctx, name, existing, options.preconditions);
    existing.metadata.deletionTimestamp ??= nowRFC3339();
    mark(existing);
    return existing;
  };
  if (options.dryRun) return present(ctx, step(structuredClone((await ctx.storage.get(key))!)));
  return present(ctx, await updateStored(ctx, key, (existing) => step(existing!)));
}

async function deleteGeneric(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  options: DeleteOptions,
): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }> {
  const key = objectKey(ctx.space, req.namespace, name);
  const mark = ctx.definition.strategy?.markForDeletion;
  const current = mark === undefined ? undefined : await ctx.storage.get(key);
  if (mark !== undefined && current !== undefined && current.metadata.deletionTimestamp === undefined) {
    return { object: await markForDeletion(ctx, key, name, options, mark), deletedImmediately: false };
  }
  let pending = false;
  const defaultOrphan = orphansByDefault(ctx);
  if (ctx.resource.group === 'batch' && ctx.resource.resource === 'jobs' && options.propagationPolicy === undefined && options.orphanDependents === undefined) options.warn?.(JOB_DELETE_WARNING);
  if (options.dryRun) {
    const existing = (await ctx.storage.get(key))!;
    checkDeletePreconditions(ctx, name, existing, options.preconditions);
    const next = deleteStep(structuredClone(existing), options, ctx.garbageCollection, defaultOrphan);
    if (next !== null) return { object: present(ctx, next), deletedImmediately: false };
    return { object: deletedResponse(ctx, existing), deletedImmediately: true };
  }
  // The preconditions are checked on the object each attempt reads (so still atomically with
  // the write), with the texts of kube's rest.BeforeDelete, which runs before its storage does.
  const result = await updateStored(ctx, key, (existing) => {
    checkDeletePreconditions(ctx, name, existing!, options.preconditions);
    const next = deleteStep(existing!, options, ctx.garbageCollection, defaultOrphan);
    pending = next !== null;
    return next;
  }, { deleting: true });
  if (!pending) await ctx.reserver?.released(result);
  return { object: pending ? present(ctx, result) : deletedResponse(ctx, result), deletedImmediately: !pending };
}

/**
 * DELETE: checks the deletion guard (403 for immortal namespaces) and the preconditions (409
 * Conflict `the UID in the precondition (...) does not match ...`, see checkDeletePreconditions), then applies the propagation
 * policy as the garbage collector's finalizers (`orphan` for Orphan or orphanDependents=true,
 * `foregroundDeletion` for Foreground; Background, the default, adds none) and either
 * removes the object, answering with it (resourceVersion = the deleting revision) when the
 * resource returns deleted objects, else with a success Status (see deletedResponse), or,
 * when it has finalizers, only marks it (deletionTimestamp, deletionGracePeriodSeconds 0)
 * and returns it with `deletedImmediately: false`; the update that removes its last
 * finalizer deletes it. Namespaces: see deleteNamespace. dryRun reads and checks, writes
 * nothing. 404 when absent. `admission` false skips admission (a delete a subresource's own
 * storage makes, such as an eviction's, which kube does not admit again).
 */
export async function deleteObject(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  options: DeleteOptions,
  admission = true,
): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }> {
  return translatingStorageErrors(ctx.resource, name, async () => {
    ctx.deletionGuard?.(name);
    if (admission && admits(ctx, 'DELETE')) await admitDelete(ctx, req, name, options);
    if (isNamespaces(ctx)) return deleteNamespace(ctx, req, name, options);
    if (ctx.definition.strategy?.gracefulDeletePeriod !== undefined) return deleteGraceful(ctx, req, name, options);
    return deleteGeneric(ctx, req, name, options);
  });
}

/**
 * Both admission phases of a DELETE, against the object as read now (a quorum read: 404 when
 * it is absent), as kube's deleteValidation runs them with the object it deletes.
 */
async function admitDelete(ctx: StoreContext, req: RequestContext, name: string, options: DeleteOptions): Promise<void> {
  const existing = (await ctx.storage.get(objectKey(ctx.space, req.namespace, name)))!;
  const attributes = admissionAttributes(ctx, req, {
    operation: 'DELETE', name, subresource: '', object: undefined, oldObject: present(ctx, existing), options, optionsKind: 'DeleteOptions',
  });
  await ctx.admission!.admit(attributes);
  await ctx.admission!.validate(attributes);
}

/** How many deletes of a collection run at once (kube's --delete-collection-workers is the same idea). */
const DELETE_COLLECTION_WORKERS = 16;

/**
 * DELETE on a collection: lists with the selectors (all pages; `limit`/`continue` are
 * ignored) and deletes each item with `options`, up to DELETE_COLLECTION_WORKERS at a time
 * (each its own etcd transaction, so neither the event loop nor etcd sees one giant
 * request), skipping items that vanish meanwhile and items the deletion guard protects. Not
 * atomic. Returns the listed items that were deleted (or marked for deletion), in list
 * order, as they were listed (kube returns the list it deleted from).
 */
export async function deleteCollection(
  ctx: StoreContext,
  req: RequestContext,
  options: DeleteOptions,
  listOptions: ListOptions,
): Promise<KubeList> {
  const { limit: _limit, continue: _continue, ...rest } = listOptions;
  const listed = await listObjects(ctx, req, rest);
  const done: boolean[] = new Array<boolean>(listed.items.length).fill(false);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < listed.items.length && !failed) {
      const index = next++;
      const item = listed.items[index]!;
      const name = item.metadata.name ?? '';
      try {
        ctx.deletionGuard?.(name);
      } catch {
        continue;
      }
      try {
        await deleteObject(ctx, { ...req, namespace: item.metadata.namespace ?? '' }, name, options);
        done[index] = true;
      } catch (err) {
        if (isNotFound(err)) continue;
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_COLLECTION_WORKERS, listed.items.length) }, worker));
  const deleted = listed.items.filter((_, i) => done[i]);
  return { apiVersion: listed.apiVersion, kind: listed.kind, metadata: { resourceVersion: listed.metadata.resourceVersion ?? '' }, items: deleted };
}
