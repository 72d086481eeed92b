/** delete and deletecollection. */
import { writeObject } from '../http/respond.js';
import { parseDeleteOptions, parseListOptions } from './options.js';
import { readOptionalBody } from './request-body.js';
import type { RequestScope } from './scope.js';

/**
 * DELETE on an item. Options come from the query, overridden by an optional DeleteOptions
 * body. 200 with what the Deleter returns; 202 when the object is not gone yet and the
 * client asked for cascading deletion with `orphanDependents: false` (kube's rule).
 */
export async function handleDelete(scope: RequestScope): Promise<void> {
  const body = await readOptionalBody(scope);
  const options = parseDeleteOptions(scope.query, body, (m) => scope.warnings.push(m));
  const result = await scope.resource.deleter!.delete(scope.context, scope.info.name, options);
  const code = !result.deletedImmediately && options.orphanDependents === false ? 202 : 200;
  writeObject(scope.res, code, result.object, scope.output, { warnings: scope.warnings });
}

/** DELETE on a collection: deletes what the selectors match and returns the deleted items as a list. */
export async function handleDeleteCollection(scope: RequestScope): Promise<void> {
  const body = await readOptionalBody(scope);
  const options = parseDeleteOptions(scope.query, body, (m) => scope.warnings.push(m));
  const { watch: _watch, timeoutSeconds: _timeout, allowWatchBookmarks: _bookmarks, sendInitialEvents: _initial, ...listOptions } = parseListOptions(scope.query);
  const list = await scope.resource.collectionDeleter!.deleteCollection(scope.context, options, listOptions);
  writeObject(scope.res, 200, list, scope.output, { warnings: scope.warnings });
}
