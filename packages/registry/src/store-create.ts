/** create (POST) of the generic store, and the create half shared with PUT. */
import type { KubeObject } from '@kapi/machinery';
import { alreadyExists, generateNameConflict, trackUpdateSliced, yieldIfBusy } from '@kapi/machinery';
import { isKeyExists } from '@kapi/storage';
import type { RequestContext } from './definition.js';
import { objectKey } from './keys.js';
import { NOTHING_RESERVED, withReservation, type Reservation } from './reservation.js';
import { assignGeneratedName, prepareObjectForCreate, reconcileNamespace } from './object-meta-lifecycle.js';
import type { WriteOptions } from './rest.js';
import { decodeRequest, fieldManagerScope, present, toStorage, updateManager, type StoreContext } from './store-context.js';
import { translatingStorageErrors } from './storage-errors.js';
import { validateForCreate } from './validate-object.js';

/** How many names a generateName create tries before giving up (kube's limit). */
const GENERATE_NAME_ATTEMPTS = 8;

/** How `admitAndPrepareCreate` runs. */
export interface CreateStepOptions {
  /** The name in the URL of a create through PUT ('' for POST). */
  readonly urlName?: string;
  /** The write is a dry run: reservations check, but hold nothing. */
  readonly dryRun?: boolean;
  /** Receives validation warnings for the response. */
  readonly warn?: (message: string) => void;
}

/**
 * The steps between decoding and storage on create, in kube's order: admission (the
 * request's namespace must exist: 404 otherwise; then the resource's create admission), the write guard (403), namespace reconciliation (400 on
 * mismatch), server-set metadata and `prepareForCreate`, the reservation of what the object
 * holds outside itself (kube's BeginCreate: it runs before validation, so its 422s come
 * first), validation (422; the reservation is reverted). Mutates `obj`. Returns the
 * reservation, which the caller settles by the write's outcome.
 */
export async function admitAndPrepareCreate(ctx: StoreContext, req: RequestContext, obj: KubeObject, options: CreateStepOptions = {}): Promise<Reservation> {
  const { urlName = '', dryRun = false } = options;
  if (ctx.definition.namespaced && ctx.namespaces !== undefined && req.namespace !== '') {
    await ctx.namespaces.ensureNamespaceExists(req.namespace, { resource: ctx.resource, name: nameOf(obj) });
  }
  await ctx.admitCreate?.(req, obj);
  ctx.writeGuard?.(req, urlName, obj, undefined);
  reconcileNamespace(obj, ctx.definition, req.namespace);
  prepareObjectForCreate(obj, ctx.definition, req);
  await yieldIfBusy();
  const reservation = ctx.reserver === undefined ? NOTHING_RESERVED : await ctx.reserver.beginCreate(obj, dryRun);
  try {
    await validateForCreate(ctx.validation, obj, options.warn);
  } catch (err) {
    await reservation.revert();
    throw err;
  }
  await yieldIfBusy();
  return reservation;
}

function nameOf(obj: KubeObject): string {
  return typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
}

/**
 * POST: decode → unknown fields → defaults → managedFields (an Update entry for the
 * fieldManager or the User-Agent), all in the request's version → conversion to the storage
 * form → admission → prepare → validate → storage.
 * With generateName, a name collision is retried with new names (up to 8 attempts), then
 * 409 AlreadyExists with kube's generateName text and retryAfterSeconds. dryRun runs every
 * step and reports 409 for an existing name, but writes nothing (the result then has no
 * resourceVersion). Throws StatusErrors only.
 */
export async function createObject(ctx: StoreContext, req: RequestContext, body: unknown, options: WriteOptions): Promise<KubeObject> {
  let name = '';
  return translatingStorageErrors(ctx.resource, () => name, async () => {
    const decoded = await decodeRequest(ctx, body, options);
    await yieldIfBusy();
    await trackUpdateSliced(fieldManagerScope(ctx, ''), undefined, decoded, updateManager(req, options));
    await yieldIfBusy();
    const obj = toStorage(ctx, decoded);
    const generated = nameOf(obj) === '' && typeof obj.metadata.generateName === 'string' && obj.metadata.generateName !== '';
    const reservation = await admitAndPrepareCreate(ctx, req, obj, { dryRun: options.dryRun === true, ...(options.warn !== undefined ? { warn: options.warn } : {}) });
    name = nameOf(obj);
    if (options.dryRun) {
      const key = objectKey(ctx.space, obj.metadata.namespace ?? '', name);
      const existing = await ctx.storage.get(key, { ignoreNotFound: true });
      if (existing !== undefined) throw generated ? generateNameConflict(ctx.resource, name) : alreadyExists(ctx.resource, name);
      return present(ctx, obj);
    }
    return withReservation(reservation, async () => {
      for (let attempt = 1; ; attempt++) {
        const key = objectKey(ctx.space, obj.metadata.namespace ?? '', name);
        try {
          return present(ctx, await ctx.storage.create(key, obj));
        } catch (err) {
          if (!generated || !isKeyExists(err)) throw err;
          if (attempt >= GENERATE_NAME_ATTEMPTS) throw generateNameConflict(ctx.resource, name);
          obj.metadata.name = '';
          assignGeneratedName(obj);
          name = nameOf(obj);
        }
      }
    });
  });
}
