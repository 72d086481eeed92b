/** delete and deletecollection. */
import { fieldInvalid, forbidden, internalError, invalid, successStatus, validateListOptions } from '@kapi/machinery';
import type { Authorizer } from '../auth/authorizer.js';
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
  const unsafeDeletion = scope.settings.unsafeDeletion;
  const options = parseDeleteOptions(scope.query, body, (m) => scope.warnings.push(m), unsafeDeletion !== undefined);
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true && unsafeDeletion !== undefined) return deleteUnreadable(scope, unsafeDeletion.authorizer);
  const result = await scope.resource.deleter!.delete(scope.context, scope.info.name, options);
  const code = !result.deletedImmediately && options.orphanDependents === false ? 202 : 200;
  writeObject(scope.res, code, result.object, scope.output, { warnings: scope.warnings });
}

const UNSAFE_VERB = 'unsafe-delete-ignore-read-errors';

/**
 * The unsafe deletion of an object whose stored value cannot be read (kube's
 * AllowUnsafeMalformedObjectDeletion): 500 where the resource has no corrupt-object deleter
 * (namespaces, RBAC, as in kube), 403 unless the user may `unsafe-delete-ignore-read-errors`
 * the object, the deleter's 422 when the object reads fine; else 200 with kube's Status (the
 * kind, not the resource, in its details: there is no object to return).
 */
async function deleteUnreadable(scope: RequestScope, authorizer: Authorizer | undefined): Promise<void> {
  const { info, context } = scope;
  const deleter = scope.resource.corruptObjectDeleter;
  if (deleter === undefined) throw internalError('no unsafe deleter provided, can not honor ignoreStoreReadErrorWithClusterBreakingPotential');
  if (authorizer !== undefined && context.user !== undefined) {
    const decision = authorizer.authorize({
      user: context.user,
      verb: UNSAFE_VERB,
      resourceRequest: true,
      namespace: info.namespace,
      apiGroup: info.group,
      apiVersion: info.version,
      resource: info.resource,
      subresource: '',
      name: info.name,
      path: '',
    });
    if (decision.decision !== 'Allow') throw forbidden(scope.groupResource, info.name, `not permitted to do "${UNSAFE_VERB}", reason: ${decision.reason}`);
  }
  await deleter.deleteCorrupt(context, info.name);
  const status = { ...successStatus({ name: info.name, kind: scope.resource.definition.kind }), code: 200 };
  writeObject(scope.res, 200, status, scope.output, { warnings: scope.warnings });
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
  const unsafeDeletion = scope.settings.unsafeDeletion !== undefined;
  const options = parseDeleteOptions(scope.query, body, (m) => scope.warnings.push(m), unsafeDeletion);
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      fieldInvalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option'),
    ]);
  }
  const list = await scope.resource.collectionDeleter!.deleteCollection(scope.context, options, listOptions);
  // As for lists: a built-in kind's items carry no apiVersion/kind.
  const answer = scope.resource.definition.bodyDecoding !== 'unstructured' && scope.output.transform === undefined ? withoutItemTypeMeta(list) : list;
  writeObject(scope.res, 200, answer, scope.output, { warnings: scope.warnings });
}
