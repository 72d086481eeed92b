/** get, list and the watch seam. */
import { badRequest, methodNotAllowed, validateListOptions } from '@kapi/machinery';
import { writeObject } from '../http/respond.js';
import { parseListOptions } from './options.js';
import type { RequestScope } from './scope.js';

/** GET on an item: 200 with the object; 404 when absent (from the Getter). */
export async function handleGet(scope: RequestScope): Promise<void> {
  const rv = scope.query.get('resourceVersion');
  const object = await scope.resource.getter!.get(scope.context, scope.info.name, rv !== null ? { resourceVersion: rv } : {});
  writeObject(scope.res, 200, object, scope.output, { warnings: scope.warnings });
}

/** GET on a collection: 200 with the list. Selector and option errors are 400/422. */
export async function handleList(scope: RequestScope): Promise<void> {
  const { watch: _watch, timeoutSeconds: _timeout, allowWatchBookmarks: _bookmarks, sendInitialEvents, ...options } = parseListOptions(scope.query);
  if (sendInitialEvents !== undefined) validateListOptions({ ...options, sendInitialEvents });
  const list = await scope.resource.lister!.list(scope.context, options);
  writeObject(scope.res, 200, list, scope.output, { warnings: scope.warnings });
}

/**
 * `watch=true`. Validates the options as kube does (a named watch whose metadata.name field
 * selector names another object is 400), then hands over to the resource's Watcher role.
 * No resource has one yet (the next issue builds watch), so this ends in 405
 * `watch is not supported on resources of kind "<resource>"`.
 */
export async function handleWatch(scope: RequestScope): Promise<void> {
  const options = parseListOptions(scope.query);
  const name = scope.info.name;
  if (name !== '' && options.fieldSelector !== undefined) {
    const selected = options.fieldSelector.exactMatch('metadata.name');
    if (selected !== undefined && selected !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  throw methodNotAllowed('watch', scope.groupResource);
}
