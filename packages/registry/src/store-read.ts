/** get and list of the generic store. */
import type { FieldSelector, KubeList, KubeObject } from '@kapi/machinery';
import { decodeContinue, isBadRequest, isValidPathSegmentName, parseResourceVersion, validateListOptions } from '@kapi/machinery';
import type { RequestContext } from './definition.js';
import { collectionKey, objectKey } from './keys.js';
import { checkFieldSelector, selectionPredicate } from './field-selection.js';
import type { GetOptions, ListOptions } from './rest.js';
import { present, presentShared, type StoreContext } from './store-context.js';
import { translatingStorageErrors } from './storage-errors.js';

/**
 * Reads one object. `resourceVersion` "" = most recent (quorum), "0" = any, N = not older
 * than N. Throws 400 for a malformed resourceVersion or name, 404 when absent, 504 when N is
 * ahead of the store.
 */
export async function getObject(ctx: StoreContext, req: RequestContext, name: string, options: GetOptions): Promise<KubeObject> {
  return translatingStorageErrors(ctx.resource, name, async () => {
    parseResourceVersion(options.resourceVersion);
    const key = objectKey(ctx.space, req.namespace, name);
    const readOnly = options.readOnly === true;
    // Stored bytes answer only for the object as stored: not through a conversion to another version.
    const protobufAnswer = readOnly && options.protobufAnswer === true && ctx.conversion.identity;
    const obj = await ctx.storage.get(key, {
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(readOnly ? { readOnly } : {}),
      ...(protobufAnswer ? { protobufAnswer } : {}),
    });
    return readOnly ? presentShared(ctx, obj!) : present(ctx, obj!);
  });
}

function validSegment(value: string | undefined): value is string {
  return value !== undefined && value !== '' && isValidPathSegmentName(value).length === 0;
}

/** Where a list or watch reads: one key (`recursive: false`) or a prefix. */
export interface ReadTarget {
  readonly key: string;
  readonly recursive: boolean;
}

/**
 * The narrowest key a list or watch can read (kube's key functions plus MatchesSingle): one
 * object when the field selector requires `metadata.name` (and the namespace is known, from
 * the URL or a `metadata.namespace` field selector), one namespace, or the whole resource.
 */
export function readTarget(ctx: StoreContext, req: RequestContext, fieldSelector: FieldSelector | undefined): ReadTarget {
  const selectedNamespace = fieldSelector?.exactMatch('metadata.namespace');
  let namespace = req.namespace;
  if (ctx.definition.namespaced && namespace === '' && validSegment(selectedNamespace)) namespace = selectedNamespace;
  const name = fieldSelector?.exactMatch('metadata.name');
  if (validSegment(name) && (!ctx.definition.namespaced || namespace !== '')) {
    return { key: objectKey(ctx.space, namespace, name), recursive: false };
  }
  return { key: collectionKey(ctx.space, namespace), recursive: true };
}

/**
 * List option checks in kube's order: the handler's option validation (422), the field
 * selector (400), then what the storage checks for a collection read with a continue token:
 * the token itself (400 `invalid continue token: ...`) before a resourceVersion sent with it
 * (400 `specifying resource version is not allowed when using continue`). A single-object
 * read ignores continue, as kube's storage does. Finally the resourceVersion (400).
 */
function checkListOptions(ctx: StoreContext, options: ListOptions, target: ReadTarget): void {
  const cont = options.continue ?? '';
  try {
    validateListOptions({
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.resourceVersionMatch !== undefined ? { resourceVersionMatch: options.resourceVersionMatch } : {}),
      ...(cont !== '' ? { continue: cont } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
    });
  } catch (err) {
    // Only the resourceVersion-with-continue check is a 400 here; the rest are 422s.
    if (!isBadRequest(err)) throw err;
    checkFieldSelector(ctx.definition, options.fieldSelector);
    if (target.recursive) {
      decodeContinue(cont, `${target.key}/`);
      throw err;
    }
    parseResourceVersion(options.resourceVersion);
    return;
  }
  checkFieldSelector(ctx.definition, options.fieldSelector);
  if (cont === '' || !target.recursive) parseResourceVersion(options.resourceVersion);
}

/**
 * kube 1.32 serves a list at resourceVersion "0" (any, not older than) from its watch cache,
 * which does not paginate: the limit is ignored and the whole list comes back without a
 * continue token.
 */
function servedWhole(options: ListOptions): boolean {
  return options.resourceVersion === '0' && (options.continue === undefined || options.continue === '') && (options.resourceVersionMatch === undefined || options.resourceVersionMatch === 'NotOlderThan');
}

/**
 * Lists the collection (one namespace, or all when `req.namespace` is "" for namespaced
 * resources), filtered by the selectors while paging; a `metadata.name` field selector reads
 * the single key (limit and continue then do not apply). resourceVersion, resourceVersionMatch,
 * limit and continue go to the storage as given (the API concepts table: "" = most recent,
 * "0" = any, N = not older than N, or exactly N with Exact or with a limit; continue = exactly
 * the token's revision). Throws 400 for unsupported field selectors, malformed
 * resourceVersions and bad continue tokens, 422 for invalid option combinations, 410 when a
 * pinned revision was compacted (for a continue token with a fresh rv -1 token in
 * `metadata.continue`), 504 with Retry-After for a revision the store has not reached, 429
 * while a cache initializes. `items` is never null; kind is the list kind.
 */
export async function listObjects(ctx: StoreContext, req: RequestContext, options: ListOptions): Promise<KubeList> {
  return translatingStorageErrors(ctx.resource, '', async () => {
    const target = readTarget(ctx, req, options.fieldSelector);
    checkListOptions(ctx, options, target);
    const result = await ctx.storage.list(target.key, {
      recursive: target.recursive,
      predicate: selectionPredicate(ctx.definition, options.labelSelector, options.fieldSelector),
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.resourceVersionMatch !== undefined ? { resourceVersionMatch: options.resourceVersionMatch } : {}),
      ...(target.recursive && options.limit !== undefined && !servedWhole(options) ? { limit: options.limit } : {}),
      ...(target.recursive && options.continue !== undefined && options.continue !== '' ? { continue: options.continue } : {}),
    });
    return {
      apiVersion: ctx.apiVersion,
      kind: ctx.definition.listKind,
      metadata: {
        resourceVersion: result.resourceVersion,
        ...(result.continue ? { continue: result.continue } : {}),
        ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
      },
      items: result.items.map((item) => presentShared(ctx, item)),
    };
  });
}
