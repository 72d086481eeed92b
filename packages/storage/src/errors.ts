/**
 * Storage errors, independent of any API resource: the registry (which knows the resource)
 * turns them into Status errors once, in one place. Backends cast their client's errors here.
 */

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'ResourceVersionConflicts'
  | 'InvalidObj'
  | 'InvalidError'
  | 'Unreachable'
  | 'TooLargeResourceVersion'
  | 'Expired'
  | 'InvalidContinue'
  /** A cache is (re)initializing: 429 with Retry-After. */
  | 'TooManyRequests'
  /**
   * The write is larger than etcd takes (see etcd/request-size.ts). The message is what
   * kube-apiserver answers, a 500 without a reason.
   */
  | 'RequestTooLarge'
  /**
   * A stored value that does not decode (not JSON, not kube's protobuf, or not an object of
   * a known kind). kube-apiserver answers the decoder's message as a 500 without a reason.
   */
  | 'Corrupt'
  /**
   * With AllowUnsafeMalformedObjectDeletion: a stored value that does not decode or decrypt,
   * read by a get (kube's StorageError code 7, `corrupt object`). The message is kube's
   * StorageError text; kube answers it as a 500 InternalError. The unsafe deleter looks for it.
   */
  | 'CorruptObject'
  /**
   * With AllowUnsafeMalformedObjectDeletion: a list met values that do not decode or decrypt;
   * `causes` names each key (at most 100, then `truncated`). kube's 500 StorageReadError.
   */
  | 'StoreReadError'
  | 'Internal';

/** One unreadable value of a list (StoreReadError). */
export interface CorruptObjectCause {
  readonly key: string;
  /** kube's StorageError text for the value. */
  readonly message: string;
}

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string;
  /** For TooLargeResourceVersion: the requested and current revisions. */
  readonly requestedRevision?: number;
  readonly currentRevision?: number;
  /** For Expired continue tokens: a token to continue inconsistently (rv -1), when one exists. */
  readonly inconsistentContinue?: string;
  /** For Corrupt: the mod_revision of the value that did not decode, when known. */
  readonly revision?: number;
  /** For StoreReadError: the unreadable values, and whether more were left out. */
  readonly causes?: readonly CorruptObjectCause[];
  readonly truncated?: boolean;

  constructor(
    code: StorageErrorCode,
    key: string,
    message: string,
    extra: {
      requestedRevision?: number;
      currentRevision?: number;
      inconsistentContinue?: string;
      cause?: unknown;
      revision?: number;
      causes?: readonly CorruptObjectCause[];
      truncated?: boolean;
    } = {},
  ) {
    super(message, extra.cause !== undefined ? { cause: extra.cause } : undefined);
    this.name = 'StorageError';
    this.code = code;
    this.key = key;
    if (extra.requestedRevision !== undefined) this.requestedRevision = extra.requestedRevision;
    if (extra.currentRevision !== undefined) this.currentRevision = extra.currentRevision;
    if (extra.inconsistentContinue !== undefined) this.inconsistentContinue = extra.inconsistentContinue;
    if (extra.revision !== undefined) this.revision = extra.revision;
    if (extra.causes !== undefined) this.causes = extra.causes;
    if (extra.truncated !== undefined) this.truncated = extra.truncated;
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

export const isKeyNotFound = (err: unknown): boolean => isStorageError(err, 'KeyNotFound');
export const isKeyExists = (err: unknown): boolean => isStorageError(err, 'KeyExists');
export const isUnreachable = (err: unknown): boolean => isStorageError(err, 'Unreachable');

export function keyNotFound(key: string): StorageError {
  return new StorageError('KeyNotFound', key, `key not found: ${key}`);
}

export function keyExists(key: string): StorageError {
  return new StorageError('KeyExists', key, `key exists: ${key}`);
}

/** A precondition (uid or resourceVersion) did not hold. The REST layer reports 409 Conflict. */
export function preconditionFailed(key: string, what: 'UID' | 'ResourceVersion', expected: string, actual: string): StorageError {
  return new StorageError(
    'InvalidObj',
    key,
    `Precondition failed: ${what} in precondition: ${expected}, ${what} in object meta: ${actual}`,
  );
}

/**
 * Parses a request's resourceVersion: "" and "0" → 0, a decimal revision → that number.
 * Anything else is an InvalidError naming `metadata.resourceVersion`. Shared by every backend
 * and the cache, so they reject alike.
 */
export function parseResourceVersion(resourceVersion: string | undefined, key: string): number {
  if (resourceVersion === undefined || resourceVersion === '') return 0;
  if (!/^\d{1,16}$/.test(resourceVersion)) {
    throw new StorageError(
      'InvalidError',
      key,
      `metadata.resourceVersion: Invalid value: ${JSON.stringify(resourceVersion)}: must be a decimal revision`,
    );
  }
  return Number(resourceVersion);
}

/** The store (or cache) has not reached `requested` (kube answers 504 with Retry-After). */
export function tooLargeResourceVersion(key: string, requested: number, current: number): StorageError {
  return new StorageError('TooLargeResourceVersion', key, `Too large resource version: ${requested}, current: ${current}`, {
    requestedRevision: requested,
    currentRevision: current,
  });
}
