/** get and list of the generic store. */
import type { KubeList, KubeObject } from '@kapi/machinery';
import { isValidPathSegmentName, parseResourceVersion, validateListOptions } from '@kapi/machinery';
import type { RequestContext } from './definition.js';
import { collectionKey, objectKey } from './keys.js';
import { checkFieldSelector, selectionPredicate } from './field-selection.js';
import type { GetOptions, ListOptions } from './rest.js';
import { present, type StoreContext } from './store-context.js';
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
    const obj = await ctx.storage.get(key, options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {});
    return present(ctx, obj!);
  });
}

function validSegment(value: string | undefined): value is string {
  return value !== undefined && value !== '' && isValidPathSegmentName(value).length === 0;
}

/** The narrowest key a list can read: one object, one namespace, or the whole resource. */
function listTarget(ctx: StoreContext, req: RequestContext, options: ListOptions): { key: string; recursive: boolean } {
  const selectedNamespace = options.fieldSelector?.exactMatch('metadata.namespace');
  let namespace = req.namespace;
  if (ctx.definition.namespaced && namespace === '' && validSegment(selectedNamespace)) namespace = selectedNamespace;
  const name = options.fieldSelector?.exactMatch('metadata.name');
  if (validSegment(name) && (!ctx.definition.namespaced || namespace !== '')) {
    return { key: objectKey(ctx.space, namespace, name), recursive: false };
  }
  return { key: collectionKey(ctx.space, namespace), recursive: true };
}

/**
 * Lists the collection (one namespace, or all when `req.namespace` is "" for namespaced
 * resources), filtered by the selectors while paging. Throws 400 for unsupported field
 * selectors, malformed resourceVersions and bad continue tokens, 422 for invalid option
 * combinations, 410 when a pinned revision was compacted, 504 for a future revision.
 * `items` is never null; kind is the list kind.
 */
export async function listObjects(ctx: StoreContext, req: RequestContext, options: ListOptions): Promise<KubeList> {
  return translatingStorageErrors(ctx.resource, '', async () => {
    validateListOptions({
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.resourceVersionMatch !== undefined ? { resourceVersionMatch: options.resourceVersionMatch } : {}),
      ...(options.continue !== undefined ? { continue: options.continue } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
    });
    if (options.continue === undefined || options.continue === '') parseResourceVersion(options.resourceVersion);
    checkFieldSelector(ctx.definition, options.fieldSelector);
    const target = listTarget(ctx, req, options);
    const result = await ctx.storage.list(target.key, {
      recursive: target.recursive,
      predicate: selectionPredicate(ctx.definition, options.labelSelector, options.fieldSelector),
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.resourceVersionMatch !== undefined ? { resourceVersionMatch: options.resourceVersionMatch } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.continue !== undefined ? { continue: options.continue } : {}),
    });
    return {
      apiVersion: ctx.apiVersion,
      kind: ctx.definition.listKind,
      metadata: {
        resourceVersion: result.resourceVersion,
        ...(result.continue ? { continue: result.continue } : {}),
        ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
      },
      items: result.items.map((item) => present(ctx, item)),
    };
  });
}
