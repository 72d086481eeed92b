/** create (POST) of the generic store, and the create half shared with PUT. */
import type { KubeObject } from '@kapi/machinery';
import { alreadyExists, generateNameConflict, nextSlice, shouldYield, trackUpdateSliced } from '@kapi/machinery';
import { isKeyExists } from '@kapi/storage';
import type { RequestContext } from './definition.js';
import { objectKey } from './keys.js';
import { NOTHING_RESERVED, withReservation, type Reservation } from './reservation.js';
import { assignGeneratedName, prepareObjectForCreate, reconcileNamespace } from './object-meta-lifecycle.js';
import type { WriteOptions } from './rest.js';
import { decodeRequest, expiry, fieldManagerScope, present, presentShared, readBack, toStorage, updateManager, type StoreContext } from './store-context.js';
import { admissionAttributes, admits, type AdmissionInit } from './store-admission.js';
import { translatingStorageErrors } from './storage-errors.js';
import { validateForCreate } from './validate-object.js';

/** How many names a generateName create tries before giving up (kube's limit). */
const GENERATE_NAME_ATTEMPTS = 8;

/** What a create's admission needs besides the object. */
export interface CreateScope {
  /** The name in the URL ("" for a POST). */
  readonly urlName: string;
  /** The request's options (dryRun, fieldManager, warnings). */
  readonly options: WriteOptions;
  /** Receives validation warnings for the response; default `options.warn` (an update that creates passes one that reports a text once). */
  readonly warn?: (message: string) => void;
}

/**
 * The steps between decoding and storage on create, in kube's order: the request's namespace
 * must exist (404), mutating admission (on `served`, the object in the request's version),
 * conversion to the storage form, the write guard (403), namespace reconciliation (400 on
 * mismatch), server-set metadata and `prepareForCreate`, the reservation of what the object
 * holds outside itself (kube's BeginCreate: it runs before validation, so its 422s come
 * first), validation (422), validating admission (the reservation is reverted when either
 * refuses). `served` may be mutated. Returns the object to store and the reservation, which
 * the caller settles by the write's outcome.
 */
export async function admitAndPrepareCreate(
  ctx: StoreContext,
  req: RequestContext,
  served: KubeObject,
  scope: CreateScope,
): Promise<{ obj: KubeObject; reservation: Reservation }> {
  if (ctx.definition.namespaced && ctx.namespaces !== undefined && req.namespace !== '') {
    await ctx.namespaces.ensureNamespaceExists(req.namespace, { resource: ctx.resource, name: nameOf(served) });
  }
  const admitting = admits(ctx, 'CREATE');
  const name = nameOf(served);
  // One literal per phase (no spread of a shared init): the same shape every time.
  const init = (object: KubeObject): AdmissionInit => ({ operation: 'CREATE', name, subresource: '', object, oldObject: undefined, options: scope.options, optionsKind: 'CreateOptions' });
  if (admitting) {
    const attributes = admissionAttributes(ctx, req, init(served));
    await ctx.admission!.admit(attributes);
    served = attributes.object ?? served;
  }
  const obj = toStorage(ctx, served);
  ctx.writeGuard?.(req, scope.urlName, obj, undefined);
  reconcileNamespace(obj, ctx.definition, req.namespace);
  prepareObjectForCreate(obj, ctx.definition, req);
  if (shouldYield()) await nextSlice();
  const dryRun = scope.options.dryRun === true;
  const reservation = ctx.reserver === undefined ? NOTHING_RESERVED : await ctx.reserver.beginCreate(obj, dryRun);
  try {
    await validateForCreate(ctx.validation, obj, scope.warn ?? scope.options.warn);
    if (admitting) await ctx.admission!.validate(admissionAttributes(ctx, req, init(present(ctx, obj))));
  } catch (err) {
    await reservation.revert();
    throw err;
  }
  if (shouldYield()) await nextSlice();
  return { obj, reservation };
}

function nameOf(obj: KubeObject): string {
  return typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
}

/**
 * POST: decode → unknown fields → defaults → managedFields (an Update entry for the
 * fieldManager or the User-Agent), all in the request's version → mutating admission →
 * conversion to the storage form → prepare → validate → validating admission → storage.
 * With generateName, a name collision is retried with new names (up to 8 attempts), then
 * 409 AlreadyExists with kube's generateName text and retryAfterSeconds. dryRun runs every
 * step and reports 409 for an existing name, but writes nothing (the result then has no
 * resourceVersion). Throws StatusErrors only.
 */
export async function createObject(ctx: StoreContext, req: RequestContext, body: unknown, options: WriteOptions): Promise<KubeObject> {
  let name = '';
  return translatingStorageErrors(ctx.resource, () => name, async () => {
    const decoded = await decodeRequest(ctx, body, options);
    if (shouldYield()) await nextSlice();
    await trackUpdateSliced(fieldManagerScope(ctx, ''), undefined, decoded, updateManager(req, options));
    if (shouldYield()) await nextSlice();
    const generated = nameOf(decoded) === '' && typeof decoded.metadata.generateName === 'string' && decoded.metadata.generateName !== '';
    const { obj, reservation } = await admitAndPrepareCreate(ctx, req, decoded, { urlName: '', options });
    name = nameOf(obj);
    if (options.dryRun) {
      const key = objectKey(ctx.space, obj.metadata.namespace ?? '', name);
      const existing = await ctx.storage.get(key, { ignoreNotFound: true });
      if (existing !== undefined) throw generated ? generateNameConflict(ctx.resource, name) : alreadyExists(ctx.resource, name);
      return present(ctx, readBack(obj));
    }
    return withReservation(reservation, async () => {
      for (let attempt = 1; ; attempt++) {
        const key = objectKey(ctx.space, obj.metadata.namespace ?? '', name);
        try {
          const ttl = expiry(ctx);
          if (options.readOnlyResult === true) return presentShared(ctx, await ctx.storage.create(key, obj, { readOnly: true, ...ttl }));
          return present(ctx, await ctx.storage.create(key, obj, ttl));
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
