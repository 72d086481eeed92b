import type { KubeObject } from '@kapi/machinery';

/**
 * The storage contract. Keys are full etcd keys (`/registry/configmaps/ns/name`); values are
 * API objects. Implementations store objects without `metadata.resourceVersion` and set it on
 * every object they return: resourceVersion = the key's etcd mod_revision; a list's
 * resourceVersion = the revision it was read at; a deleted object carries the deleting revision.
 *
 * Errors are `StorageError`s (see errors.ts); the registry translates them into API Status.
 * Any operation may also fail with Unreachable (etcd down, hung, or past the call deadline).
 * Objects returned may be shared with other readers (a cache): treat them as read-only.
 */

/** How a read's `resourceVersion` is to be matched. */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact' | '';

/** Conditions a write or delete checks against the current object before it acts. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * A filter the storage applies while reading, so that paging with selectors fills pages as
 * kube does. `matches` must be pure; `empty` means every object matches (then
 * `remainingItemCount` may be reported).
 */
export interface Predicate {
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
}

export const everything: Predicate = { empty: true, matches: () => true };

export interface GetOptions {
  /** "" = most recent (quorum), "0" = any, "N" = not older than N. */
  resourceVersion?: string;
  /** Return `undefined` instead of throwing KeyNotFound. */
  ignoreNotFound?: boolean;
}

export interface ListOptions {
  /** "" = most recent, "0" = any, "N" with `resourceVersionMatch`. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** Page size; 0 or absent = everything. */
  limit?: number;
  /** A continue token from an earlier page of the same list. */
  continue?: string;
  predicate?: Predicate;
  /**
   * List the key as a prefix (`true`, collections) or read the single key (`false`, a list
   * narrowed by `metadata.name`).
   */
  recursive?: boolean;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  /** Set when more items follow. */
  continue?: string;
  /** Items left after this page, when known (no predicate). */
  remainingItemCount?: number;
}

/**
 * The caller's step in a guaranteed update. Receives a private copy of the current object
 * (or `undefined` when it does not exist and `ignoreNotFound` was set) and returns the
 * object to write, or throws to abort. It may be called several times (once per conflict).
 * Returning `null` asks for the key to be deleted in the same transaction.
 */
export type UpdateFunction = (current: KubeObject | undefined) => KubeObject | null | Promise<KubeObject | null>;

export interface GuaranteedUpdateOptions {
  preconditions?: Preconditions;
  /** Call `tryUpdate(undefined)` when the key is missing instead of failing with KeyNotFound. */
  ignoreNotFound?: boolean;
  /** A copy believed current (for example from a cache); re-read from etcd if it proves stale. */
  cachedExisting?: KubeObject;
}

export interface DeleteOptions {
  preconditions?: Preconditions;
  /** Last check against the current object before the delete; throw to refuse. */
  validateDeletion?: (current: KubeObject) => void | Promise<void>;
  cachedExisting?: KubeObject;
}

/** Optional: counts objects under a resource prefix (the backend adds the trailing "/"). */
export interface Counter {
  count(keyPrefix: string): Promise<number>;
}

export interface Storage {
  /**
   * Writes `obj` at `key` if no object is there (txn: mod_revision == 0). Fails with KeyExists
   * otherwise. `obj.metadata.resourceVersion` must be unset. Returns the stored object with
   * its resourceVersion. Never retries.
   */
  create(key: string, obj: KubeObject): Promise<KubeObject>;

  /**
   * Reads one object (a quorum read). KeyNotFound when absent (unless `ignoreNotFound`);
   * TooLargeResourceVersion when `resourceVersion` N is beyond the store's revision;
   * InvalidError when `resourceVersion` is not a decimal revision.
   */
  get(key: string, options?: GetOptions): Promise<KubeObject | undefined>;

  /**
   * Lists objects under `key` (a prefix ending without "/"; the backend adds it), ordered by
   * key, filtered by the predicate, paged by `limit` at a revision pinned by the first page.
   * Expired when the pinned revision is compacted (message `listTooOldMessage`, or for a
   * continue token `continueTooOldMessage` plus `inconsistentContinue`, an rv -1 token);
   * TooLargeResourceVersion when the store has not reached a NotOlderThan revision (or an
   * Exact one is in the future); InvalidContinue for a bad token or a resourceVersion other
   * than ""/"0" sent with one; InvalidError for a malformed resourceVersion.
   * `resourceVersion` semantics: "" = quorum latest; "0" = latest; N + NotOlderThan = latest,
   * at least N; N + Exact (or N with a limit and no match) = at revision N; N alone = NotOlderThan.
   */
  list(key: string, options?: ListOptions): Promise<ListResult>;

  /**
   * Read-modify-write with optimistic concurrency: read (or take `cachedExisting`), check
   * preconditions, call `tryUpdate`, write with txn "mod_revision == read"; on conflict read
   * again and repeat until it succeeds or `tryUpdate` throws. Writes nothing when the encoded
   * bytes are unchanged, returning the existing object and resourceVersion. Returns the
   * written object with resourceVersion = the write's revision. When `tryUpdate` returns
   * `null` the key is deleted (same txn condition) and the deleted object is returned with
   * the deleting revision. Throws KeyNotFound (absent without `ignoreNotFound`, or `null`
   * for an absent key), InvalidObj (preconditions), or whatever `tryUpdate` throws; a failed
   * precondition/`tryUpdate` on a stale `cachedExisting` is retried on a fresh read first.
   */
  guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: GuaranteedUpdateOptions): Promise<KubeObject>;

  /**
   * Deletes the object if the preconditions hold and `validateDeletion` does not throw (txn
   * "mod_revision == read", retried on conflict, checks re-run on each retry). Returns the
   * deleted object with resourceVersion = the deleting revision. Throws KeyNotFound (absent,
   * or deleted concurrently), InvalidObj (preconditions), or what `validateDeletion` throws.
   */
  delete(key: string, options?: DeleteOptions): Promise<KubeObject>;

  /** The current etcd revision, by a quorum read. Unreachable when etcd cannot be reached. */
  currentRevision(): Promise<number>;

  /** Releases connections and timers. */
  close(): Promise<void>;
}
