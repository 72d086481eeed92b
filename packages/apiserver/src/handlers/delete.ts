/** delete and deletecollection. */
import { validateListOptions } from '@kapi/machinery';
import { readOptionalBody } from '../body/object-body.js';
import { withoutItemTypeMeta } from '../http/encode-once.js';
import { writeObject } from '../http/respond.js';
import { parseDeleteOptions, parseListOptions } from './options.js';
import type { RequestScope } from './scope.js';
import { bodyTarget } from './write.js';

/**
 * DELETE on an item. Options come from a DeleteOptions body, or from the query when there is
 * no body. 200 with what the Deleter returns; 202 when the object is not gone yet and the
 * client asked for cascading deletion with `orphanDependents: false` (kube's rule).
 */
export async function handleDelete(scope: RequestScope): Promise<void> {
  const body = await readOptionalBody(scope.req, bodyTarget(scope, 'DeleteOptions', 'meta.k8s.io/v1'));
  const options = parseDeleteOptions(scope.query, body, (m) => scope.warnings.push(m));
  const result = await scope.resource.deleter!.delete(scope.context, scope.info.name, options);
  const code = !result.deletedImmediately && options.orphanDependents === false ? 202 : 200;
  writeObject(scope.res, code, result.object, scope.output, { warnings: scope.warnings });
}

/**
 * DELETE on a collection: deletes what the selectors match and returns the deleted items as a
 * list. As in kube, the list options are read and validated first (400, then 422
 * ListOptions), then the body, then the DeleteOptions.
 */
export async function handleDeleteCollection(scope: RequestScope): Promise<void> {
  const { watch: _watch, timeoutSeconds: _timeout, allowWatchBookmarks: _bookmarks, sendInitialEvents, ...listOptions } = parseListOptions(scope.query);
  if (sendInitialEvents !== undefined) validateListOptions({ ...listOptions, sendInitialEvents });
  const body = await readOptionalBody(scope.req, bodyTarget(scope, 'DeleteOptions', 'meta.k8s.io/v1'));
  const options = parseDeleteOptions(scope.query, body, (m) => scope.warnings.push(m));
  const list = await scope.resource.collectionDeleter!.deleteCollection(scope.context, options, listOptions);
  // As for lists: a built-in kind's items carry no apiVersion/kind.
  const answer = scope.resource.definition.bodyDecoding !== 'unstructured' && scope.output.transform === undefined ? withoutItemTypeMeta(list) : list;
  writeObject(scope.res, 200, answer, scope.output, { warnings: scope.warnings });
}
