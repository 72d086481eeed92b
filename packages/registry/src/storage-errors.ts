/**
 * The one place StorageErrors become API Status errors (kube's storeerr.Interpret*Error):
 *
 * | StorageError | Status |
 * |---|---|
 * | KeyNotFound | 404 NotFound `<resource> "<name>" not found` |
 * | KeyExists | 409 AlreadyExists `<resource> "<name>" already exists` |
 * | InvalidObj (failed precondition) | 409 Conflict `Operation cannot be fulfilled on <resource> "<name>": Precondition failed: ...` |
 * | ResourceVersionConflicts | 409 Conflict with the optimistic-lock message |
 * | TooLargeResourceVersion | 504 Timeout `Too large resource version: N, current: M` + Retry-After |
 * | Expired | 410 Expired with the storage message; `metadata.continue` carries the inconsistent continue token when there is one |
 * | InvalidContinue, InvalidError | 400 BadRequest with the storage message |
 * | Unreachable, Internal | 500 InternalError `Internal error occurred: <message>` |
 * | RequestTooLarge | 500 without a reason, the storage message as is (`etcdserver: request is too large`) |
 * | Corrupt (a stored value that does not decode) | 500 without a reason, the decoder's message as is |
 * | CorruptObject (the same, with AllowUnsafeMalformedObjectDeletion) | 500 InternalError with kube's StorageError text |
 * | StoreReadError (a list's unreadable values, with the gate) | 500 StorageReadError `failed to read one or more <resource> from the storage`, a cause per key |
 *
 * Unreachable is a 500 because that is what kube-apiserver answers when etcd fails a request
 * (its etcd errors are not API statuses and are wrapped as internal errors); client-go then
 * surfaces the error without blind retries. StatusErrors pass through unchanged; any other
 * error becomes a 500 InternalError.
 */
import { StatusError, formatGroupResource, conflict, internalError, isStatusError, notFound, alreadyExists, optimisticLockConflict, badRequest, tooLargeResourceVersion, tooManyRequests } from '@kapi/machinery';
import type { GroupResource, StatusCause } from '@kapi/machinery';
import { isStorageError, type CorruptObjectCause } from '@kapi/storage';

export function toStatusError(err: unknown, resource: GroupResource, name = ''): StatusError {
  if (isStatusError(err)) return err;
  if (!isStorageError(err)) return internalError(err);
  switch (err.code) {
    case 'KeyNotFound':
      return notFound(resource, name);
    case 'KeyExists':
      return alreadyExists(resource, name);
    case 'InvalidObj':
      return conflict(resource, name, err.message);
    case 'ResourceVersionConflicts':
      return optimisticLockConflict(resource, name);
    case 'TooLargeResourceVersion':
      return tooLargeResourceVersion(err.requestedRevision ?? 0, err.currentRevision ?? 0);
    case 'Expired':
      return new StatusError({
        code: 410,
        reason: 'Expired',
        message: err.message,
        ...(err.inconsistentContinue !== undefined ? { metadata: { continue: err.inconsistentContinue } } : {}),
      });
    case 'InvalidContinue':
    case 'InvalidError':
      return badRequest(err.message);
    case 'TooManyRequests':
      return tooManyRequests(err.message, 1);
    case 'RequestTooLarge':
    case 'Corrupt':
      // kube-apiserver passes etcd's refusal through as an error that is not a Status.
      return new StatusError({ code: 500, message: err.message });
    case 'CorruptObject':
    case 'Unreachable':
    case 'Internal':
      return internalError(err);
    case 'StoreReadError':
      return storeReadError(resource, err.causes ?? [], err.truncated === true);
  }
}

/** kube's answer to a list that met unreadable values with AllowUnsafeMalformedObjectDeletion on. */
function storeReadError(resource: GroupResource, unreadable: readonly CorruptObjectCause[], truncated: boolean): StatusError {
  const causes: StatusCause[] = unreadable.map((c) => ({ reason: 'UnexpectedServerResponse', message: c.message, field: c.key }));
  if (truncated) causes.push({ reason: 'TooMany', message: 'too many errors, the list is truncated' });
  return new StatusError({
    code: 500,
    reason: 'StorageReadError',
    message: `failed to read one or more ${formatGroupResource(resource)} from the storage`,
    details: { name: 'list', group: resource.group, kind: resource.resource, causes },
  });
}

/**
 * Runs `fn`, translating whatever it throws with `toStatusError`. `name` may be a function
 * when the name is only known part-way (generated names).
 */
export async function translatingStorageErrors<T>(resource: GroupResource, name: string | (() => string), fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toStatusError(err, resource, typeof name === 'string' ? name : name());
  }
}
