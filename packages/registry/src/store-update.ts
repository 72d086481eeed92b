/** update (PUT) of the generic store, and the update step PATCH shares. */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { badRequest, deepCopy, invalid, notFound, optimisticLockConflict, parseResourceVersion, trackUpdateSliced, yieldIfBusy } from '@kapi/machinery';
import type { RequestContext } from './definition.js';
import { objectKey } from './keys.js';
import type { Reservation } from './reservation.js';
import { prepareObjectForUpdate, reconcileNamespace } from './object-meta-lifecycle.js';
import type { WriteOptions } from './rest.js';
import { semanticEqual } from './semantic-equal.js';
import { decodeRequest, expiry, fieldManagerScope, present, presentShared, readBack, toStorage, updateManager, updateStored, type StoreContext } from './store-context.js';
import { admitAndPrepareCreate } from './store-create.js';
import { admissionAttributes, admits, type AdmissionView } from './store-admission.js';
import { shouldDeleteDuringUpdate } from './store-delete.js';
import { translatingStorageErrors } from './storage-errors.js';
import { validateForUpdate } from './validate-object.js';

/** kube's checkName: the body must name the object the URL names. Throws 400. */
export function checkName(obj: KubeObject, name: string, namespace: string): void {
  const objName = typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
  if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  const objNamespace = typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
  if (namespace !== '' && objNamespace !== '' && objNamespace !== namespace) {
    throw badRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the URL (${namespace})`);
  }
}

/** The 422 kube answers for a PUT without resourceVersion on resources that require one (details.kind is the resource). */
function resourceVersionRequired(ctx: StoreContext, name: string) {
  const error: FieldError = {
    type: 'FieldValueInvalid',
    field: 'metadata.resourceVersion',
    message: 'Invalid value: 0x0: must be specified for an update',
  };
  return invalid({ group: ctx.resource.group, kind: ctx.resource.resource }, name, [error]);
}

/** What an update step needs besides the objects. */
export interface UpdateScope {
  readonly ctx: StoreContext;
  readonly req: RequestContext;
  readonly name: string;
  /** "" for the main resource. */
  readonly subresource: string;
  /** The Update manager to record, or undefined when managedFields are already final (apply). */
  readonly manager: string | undefined;
  /** A create through this write is allowed even when the resource does not allow PUT-create (apply). */
  readonly forceAllowCreate?: boolean;
  /** The write is a dry run: reservations check, but hold nothing. */
  readonly dryRun?: boolean;
  /** The request's options, as admission sees them (UpdateOptions; CreateOptions when the write creates). */
  readonly options: WriteOptions;
  /** Receives validation warnings (the step may run more than once: pass one that reports a text once). */
  readonly warn?: (message: string) => void;
  /** Admission sees the write as another kind (writes through `scale`). */
  readonly view?: AdmissionView;
}

/**
 * The update step run against the current object (possibly several times, once per
 * storage conflict), in kube's order: create when absent (if allowed), else the write
 * guard (403), the optimistic-concurrency check (409 on a stale resourceVersion; 422 when none is given and
 * unconditional updates are not allowed), managedFields, mutating admission (UPDATE, with the
 * current object as oldObject), update preparation (through a subresource: only what it may
 * change), validation and validating admission (see admission.ts). Returns the object to write,
 * `existing` for a no-op (nothing is written, the resourceVersion stays), or null to delete
 * an object whose deletion was pending and whose last finalizer is now gone. `decoded` (in
 * the request's version) is not mutated unless `ownsDecoded` (a patch decodes afresh for
 * every attempt, so its step may use `decoded` itself); `existing` and the result are in the storage form
 * (managedFields are tracked in the request's version, against `existing` converted to it).
 */
export async function updateStep(
  scope: UpdateScope,
  decoded: KubeObject,
  existing: KubeObject | undefined,
  created: UpdateOutcome,
  ownsDecoded = false,
): Promise<KubeObject | null> {
  const { ctx, req, name, subresource } = scope;
  const served = ownsDecoded ? decoded : deepCopy(decoded);
  await yieldIfBusy();
  created.value = existing === undefined;
  delete created.deletedAs;
  if (existing === undefined) {
    if (subresource !== '' || !(ctx.definition.allowCreateOnUpdate || scope.forceAllowCreate === true)) throw notFound(ctx.resource, name);
    delete served.metadata.resourceVersion;
    if (scope.manager !== undefined) await trackUpdateSliced(fieldManagerScope(ctx, subresource), undefined, served, scope.manager);
    await yieldIfBusy();
    let obj: KubeObject | undefined;
    await reserve(created, async () => {
      const prepared = await admitAndPrepareCreate(ctx, req, served, { urlName: subresource === '' ? name : '', options: scope.options, ...(scope.warn !== undefined ? { warn: scope.warn } : {}) });
      obj = prepared.obj;
      return prepared.reservation;
    });
    return obj!;
  }
  if (subresource === '') ctx.writeGuard?.(req, name, served, existing);
  const current = existing.metadata.resourceVersion ?? '';
  const sent = typeof served.metadata.resourceVersion === 'string' ? served.metadata.resourceVersion : '';
  if (sent === '') {
    if (!ctx.definition.allowUnconditionalUpdate) throw resourceVersionRequired(ctx, name);
    served.metadata.resourceVersion = current;
  } else if (parseResourceVersion(sent) !== parseResourceVersion(current)) {
    throw optimisticLockConflict(ctx.resource, name);
  }
  if (scope.manager !== undefined) {
    // Entries written through other versions name their fields; track in this version's names.
    const before = { ...present(ctx, existing) }; // `present` may return the (shared) stored object itself
    ctx.managedFieldsConversion?.toServed(before);
    ctx.managedFieldsConversion?.toServed(served);
    await yieldIfBusy();
    await trackUpdateSliced(fieldManagerScope(ctx, subresource), before, served, scope.manager);
    ctx.managedFieldsConversion?.fromServed(served);
    await yieldIfBusy();
  }
  const admitting = admits(ctx, 'UPDATE');
  const view = scope.view;
  const shown = (obj: KubeObject) => (view === undefined ? obj : view.toView(obj));
  const init = {
    operation: 'UPDATE', name, subresource: view?.subresource ?? subresource, ...(view !== undefined ? { kind: view.kind } : {}),
    oldObject: admitting ? shown(present(ctx, existing)) : undefined, options: scope.options, optionsKind: 'UpdateOptions',
  } as const;
  let admitted = served;
  if (admitting) {
    const attributes = admissionAttributes(ctx, req, { ...init, object: shown(served) });
    await ctx.admission!.admit(attributes);
    if (attributes.object !== undefined) admitted = view === undefined ? attributes.object : view.fromView(attributes.object, served);
  }
  const obj = toStorage(ctx, admitted);
  reconcileNamespace(obj, ctx.definition, req.namespace);
  prepareObjectForUpdate(obj, existing, ctx.definition, subresource);
  await yieldIfBusy();
  // kube's BeginUpdate runs before validation; a failed validation reverts it (runUpdate).
  if (ctx.reserver !== undefined && subresource === '') await reserve(created, () => ctx.reserver!.beginUpdate(obj, existing, scope.dryRun === true));
  await validateForUpdate(ctx.validation, obj, existing, subresource, scope.warn);
  if (admitting) await ctx.admission!.validate(admissionAttributes(ctx, req, { ...init, object: shown(present(ctx, obj)) }));
  await yieldIfBusy();
  if (shouldDeleteDuringUpdate(ctx, obj, existing)) {
    created.deletedAs = obj;
    return null;
  }
  return semanticEqual(obj, existing) ? existing : obj;
}

/** Reserves for this attempt, undoing the reservation of an earlier attempt (lost to a write conflict). */
async function reserve(outcome: UpdateOutcome, begin: () => Promise<Reservation>): Promise<void> {
  const earlier = outcome.reservation;
  delete outcome.reservation;
  await earlier?.revert();
  outcome.reservation = await begin();
}

/** What an update step reports besides the object to write. */
export interface UpdateOutcome {
  /** The object did not exist: this write creates it. */
  value: boolean;
  /** The write removed the last finalizer of a terminating object, which is deleted: the object as updated. */
  deletedAs?: KubeObject;
  /** What the last attempt reserved (see reservation.ts), settled by runUpdate. */
  reservation?: Reservation;
}

/**
 * The response to a PUT/PATCH: the stored object, except when the write removed the last
 * finalizer of a terminating object and so deleted it — then, as kube's Store.Update
 * answers (deleteWithoutFinalizers returns the object of the request), the object as the
 * update made it (finalizers removed, resourceVersion as read), with 200.
 */
export function updateResult(ctx: StoreContext, stored: KubeObject, outcome: UpdateOutcome): { object: KubeObject; created: boolean } {
  return { object: outcome.deletedAs !== undefined ? present(ctx, outcome.deletedAs) : stored, created: outcome.value };
}

/**
 * Runs `step` as a guaranteed update of `name` (dryRun: once against a quorum read, writing
 * nothing). Returns the resulting object as clients see it; with `readOnlyResult`, possibly the
 * object the watch cache shares (see WriteOptions.readOnlyResult).
 */
export async function runUpdate(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  options: Pick<WriteOptions, 'dryRun' | 'readOnlyResult'>,
  step: (existing: KubeObject | undefined) => Promise<KubeObject | null>,
  outcome?: UpdateOutcome,
): Promise<KubeObject> {
  const key = objectKey(ctx.space, req.namespace, name);
  if (options.dryRun === true) {
    const read = await ctx.storage.get(key, { ignoreNotFound: true });
    const existing = read === undefined ? undefined : ctx.conversion.normalize(read);
    const next = await step(existing);
    return present(ctx, next === null ? existing! : readBack(next));
  }
  let stored: KubeObject;
  try {
    stored = await updateStored(ctx, key, step, { ignoreNotFound: true, ...expiry(ctx), ...(options.readOnlyResult === true ? { readOnly: true } : {}) });
  } catch (err) {
    await outcome?.reservation?.revert();
    throw err;
  }
  await outcome?.reservation?.commit();
  if (outcome?.deletedAs !== undefined) await ctx.reserver?.released(outcome.deletedAs);
  return options.readOnlyResult === true ? presentShared(ctx, stored) : present(ctx, stored);
}

/**
 * PUT: decode → unknown fields → defaults → name/namespace checks against the URL (400) →
 * a guaranteed update whose step is `updateStep`. Returns the stored object and whether it
 * was created. dryRun computes the result from a quorum read and writes nothing.
 */
export async function updateObject(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  body: unknown,
  options: WriteOptions,
  subresource = '',
  view?: AdmissionView,
): Promise<{ object: KubeObject; created: boolean }> {
  return translatingStorageErrors(ctx.resource, name, async () => {
    const decoded = await decodeRequest(ctx, body, options);
    checkName(decoded, name, req.namespace);
    const created: UpdateOutcome = { value: false };
    const scope: UpdateScope = { ctx, req, name, subresource, manager: updateManager(req, options), dryRun: options.dryRun === true, options, ...(view !== undefined ? { view } : {}), ...warnOnceOption(options.warn) };
    // The first attempt takes the decoded object; a retry after a write conflict decodes the
    // body again (its warnings were given the first time), so no copy of a large body is made up front.
    let first: KubeObject | undefined = decoded;
    const { warn: _warned, ...quiet } = options;
    const object = await runUpdate(ctx, req, name, options, async (existing) => {
      const own = first ?? (await decodeRequest(ctx, body, quiet));
      first = undefined;
      return updateStep(scope, own, existing, created, true);
    }, created);
    return updateResult(ctx, object, created);
  });
}

/** A `warn` option that reports each text once however often an update step runs (kube's warning recorder keeps one of each). */
export function warnOnceOption(warn: ((message: string) => void) | undefined): { warn?: (message: string) => void } {
  if (warn === undefined) return {};
  const warned = new Set<string>();
  return {
    warn: (message) => {
      if (warned.has(message)) return;
      warned.add(message);
      warn(message);
    },
  };
}
