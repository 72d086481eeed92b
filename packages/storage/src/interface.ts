import type { KubeObject, Status } from '@kapi/machinery';

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
  /**
   * An equality requirement of the predicate on a field the resource declares indexed (kube's
   * MatchValues, e.g. pods' `spec.nodeName`): a cache may find candidates by it instead of
   * testing every object or watcher. `matches` stays the whole truth; the hint only narrows.
   */
  readonly index?: IndexedMatch;
}

/** `valueOf(obj) === value` is implied by the predicate; `valueOf` is the same function for every predicate on `field` of one resource. */
export interface IndexedMatch {
  readonly field: string;
  readonly value: string;
  /** The object's value of the field ("" when absent). Pure. */
  valueOf(obj: KubeObject): string;
}

export const everything: Predicate = { empty: true, matches: () => true };

export interface GetOptions {
  /** "" = most recent (quorum), "0" = any, "N" = not older than N. */
  resourceVersion?: string;
  /** Return `undefined` instead of throwing KeyNotFound. */
  ignoreNotFound?: boolean;
  /**
   * The caller only reads the result, so it may be an object shared with other readers (the
   * watch cache's own copy), which must then never be changed.
   */
  readOnly?: boolean;
  /**
   * For a quorum read (resourceVersion ""): an object already decoded from the value the key
   * has at `modRevision` (the revision that value was written at), or undefined. When it gives
   * one for the value read, the backend returns that object instead of decoding the value
   * again. Set by the watch cache for `readOnly` reads; backends that cannot tell a value's
   * revision ignore it.
   */
  decodedAt?: (modRevision: number) => KubeObject | undefined;
  /**
   * With `readOnly`: the caller answers with the object's protobuf encoding. A backend that read
   * the value as protobuf notes those bytes for the object it returns (machinery's
   * `noteStoredEncoding`), so that the answer is the stored bytes with the resourceVersion
   * instead of a second encoding; the answer takes the note back. Backends that hold no bytes
   * ignore it.
   */
  protobufAnswer?: boolean;
}

export interface CreateOptions {
  /**
   * The caller only reads the result, so it may be shared with other readers (the watch
   * cache's object for this write) and must then never be changed.
   */
  readOnly?: boolean;
  /**
   * Seconds after which the object expires: the key is written under an etcd lease (shared
   * with other such writes, so it lives up to `--lease-reuse-duration-seconds` longer) and etcd
   * deletes it then. Absent or 0: no expiry. Backends without leases ignore it.
   */
  ttlSeconds?: number;
  /** Writes with a TTL share leases only with writes of the same scope (kube: one resource's storage); default "". */
  leaseScope?: string;
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
  /**
   * The caller only reads the result, so a written object may be the one the change feed hands
   * to the watch cache (shared with its readers, never to be changed), noted with the bytes it
   * was stored as for a protobuf answer (see CreateOptions.readOnly).
   */
  readOnly?: boolean;
  /** Call `tryUpdate(undefined)` when the key is missing instead of failing with KeyNotFound. */
  ignoreNotFound?: boolean;
  /** A copy believed current (for example from a cache); re-read from etcd if it proves stale. */
  cachedExisting?: KubeObject;
  /**
   * The update serves a DELETE (marks the object or removes it): a stored value that cannot
   * be read is reported as kube's delete reports it, which reads the object first (matters
   * only with AllowUnsafeMalformedObjectDeletion, see etcd/corrupt-objects.ts).
   */
  deleting?: boolean;
  /**
   * The written object expires after this many seconds (see CreateOptions.ttlSeconds). Absent
   * or 0: the written key has no lease (a lease it had is dropped).
   */
  ttlSeconds?: number;
  /** See CreateOptions.leaseScope. */
  leaseScope?: string;
}

export interface DeleteOptions {
  preconditions?: Preconditions;
  /** Last check against the current object before the delete; throw to refuse. */
  validateDeletion?: (current: KubeObject) => void | Promise<void>;
  cachedExisting?: KubeObject;
}

/**
 * Optional: removes a key whose value cannot be read (kube's unsafe deletion of corrupt
 * objects, behind the AllowUnsafeMalformedObjectDeletion gate).
 */
export interface UnreadableDeleter {
  /**
   * Deletes `key` without decrypting or decoding its value — no preconditions, no checks, no
   * cached copy (txn "mod_revision == read", read again and repeated on conflict). Returns the
   * deleting revision. KeyNotFound when the key is absent.
   */
  deleteWithoutDecoding(key: string): Promise<number>;
}

/** Optional: counts objects under a resource prefix (the backend adds the trailing "/"). */
export interface Counter {
  count(keyPrefix: string): Promise<number>;
}

/** The event types of a watch stream, as they go on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One event as a watcher receives it, already filtered for that watcher (selector transitions
 * applied: an object that stops matching arrives as DELETED, one that starts matching as
 * ADDED). Events are shared between watchers and with the cache: treat them as read-only.
 *
 * - ADDED/MODIFIED: `object` is the new state, resourceVersion = the event's revision.
 * - DELETED: `object` is the last state with resourceVersion = the deleting revision. For a
 *   selector transition out (the object still exists but no longer matches), kube sends the
 *   *previous* state (the one that matched) with resourceVersion = the event's revision.
 * - BOOKMARK: `object` is `{ metadata: { resourceVersion } }` (plus
 *   `annotations: { "k8s.io/initial-events-end": "true" }` on the bookmark that ends the
 *   initial events); the HTTP layer adds apiVersion and kind.
 * - ERROR: `object` is a Status (e.g. 410 Expired); it is the last event of the stream.
 */
export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject | Status;
  /** The revision this event is at (the object's resourceVersion; for ERROR, 0). */
  readonly revision: number;
}

export interface WatchOptions {
  /**
   * "" or "0": start with the current state (synthetic ADDED events for every matching
   * object) unless `sendInitialEvents` is false; "N": every event after revision N.
   */
  resourceVersion?: string;
  predicate?: Predicate;
  /** Watch the key as a prefix (`true`, collections; the default) or the single key (`false`). */
  recursive?: boolean;
  /** Deliver BOOKMARK events (periodic, and the initial-events-end one). */
  allowBookmarks?: boolean;
  /**
   * `true`: synthetic ADDED events for the state at a revision not older than
   * `resourceVersion` ("" = consistent: at least etcd's current revision), then a BOOKMARK
   * annotated `k8s.io/initial-events-end` (when bookmarks are allowed), then changes.
   * `false`: changes only. Unset: the legacy rule above.
   */
  sendInitialEvents?: boolean;
  /** Aborting ends the watch (the iterator finishes). */
  signal?: AbortSignal;
  /**
   * When the caller will end the watch (ms since the epoch, `Date.now()` clock). A cache sends
   * a last BOOKMARK about 2 s before it (kube's rule), so a client that asked for bookmarks
   * resumes from a fresh resourceVersion.
   */
  deadline?: number;
}

/**
 * A running watch: an async iterator of events. The consumer pulls at its own pace (so a
 * slow socket slows the pulls); an implementation bounds what it queues for a watcher that
 * does not pull and may end the stream (after a final BOOKMARK when bookmarks are allowed)
 * when it cannot keep up — the client then resumes from the last resourceVersion it saw.
 * The iterator ends after an ERROR event, when `stop()` is called, or when the signal aborts.
 */
export interface Watch extends AsyncIterable<WatchEvent> {
  stop(): void;
  /** Optional: the same events taken in batches without a promise per event (see WatchPull). */
  readonly pull?: WatchPull;
}

/**
 * Optional fast path of a Watch, for a consumer that serves many watches at once (an HTTP
 * fan-out): it takes every event that is ready in one synchronous call and is told by a
 * callback, not a promise per event, when more are ready. The same events, order and end as
 * the async iterator; a consumer uses one or the other, never both. Backpressure is the same:
 * a consumer that stops taking lets the watch's queue grow (and the watch may end as slow).
 */
export interface WatchPull {
  /**
   * Appends up to `max` ready events to `into`, in order, without waiting. Returns false when
   * the watch has ended: the events appended by this call are its last (an ERROR event is
   * always last); true when more may come (possibly none appended now).
   */
  take(into: WatchEvent[], max: number): boolean;
  /**
   * Calls `listener` once when events become ready or the watch ends — at once (synchronously)
   * if that is already so. A new call replaces a listener not yet called.
   */
  notify(listener: () => void): void;
}

/** Optional: a backend or cache that can serve watches. */
export interface Watcher {
  /**
   * Starts a watch on `key` (a prefix when `recursive`, the backend adds "/"). Fails (throws)
   * only before the stream starts (InvalidError for a malformed resourceVersion,
   * TooManyRequests while a cache initializes); expired revisions and later failures
   * arrive as an ERROR event in the stream.
   */
  watch(key: string, options?: WatchOptions): Promise<Watch>;
}

/**
 * A change to one key as the backend saw it. Objects are freshly decoded and may be shared
 * by the consumer afterwards.
 */
export interface Change {
  readonly type: 'put' | 'delete';
  readonly key: string;
  /** put: the new object (resourceVersion = mod_revision); delete: the last state with resourceVersion = the deleting revision. */
  readonly object: KubeObject;
  /**
   * The state before the change, with its own resourceVersion (for puts of an existing key and
   * for deletes); undefined for a create, or for an update whose previous state etcd had
   * already compacted away.
   */
  readonly prevObject?: KubeObject;
  readonly revision: number;
}

export interface ChangeFeedHandlers {
  /** Changes in revision order (one backend watch response; revisions strictly increase across calls). */
  onChanges(changes: readonly Change[]): void;
  /**
   * Every change under the prefix up to `revision` has been delivered. Called only for
   * progress the backend can vouch for (see `ChangeFeed.progressRequestsTrusted`).
   */
  onProgress(revision: number): void;
  /** The feed ended for good (start revision compacted, watch cancelled, backend gone); the consumer re-lists. Called at most once. */
  onError(err: Error): void;
}

export interface FeedHandle {
  /**
   * Asks the backend for a progress report; answered through `onProgress` only when trusted
   * (a no-op until `progressRequestsTrusted()` has resolved true).
   */
  requestProgress(): void;
  close(): void;
}

/**
 * Optional, backend-specific: the raw change stream a watch cache is fed by (one etcd watch
 * with prev_kv and progress notifications).
 */
/** The keys of a page as of one revision (see `ChangeFeed.pageRevisions`). */
export interface PageRevisions {
  readonly keys: readonly { readonly key: string; readonly modRevision: number }[];
  /** Keys under the prefix at `revision`, the page's included. */
  readonly count: number;
  readonly revision: number;
}

export interface ChangeFeed {
  /** Streams every change under `keyPrefix` (the backend adds "/") with revision > `afterRevision`. */
  feed(keyPrefix: string, afterRevision: number, handlers: ChangeFeedHandlers): FeedHandle;
  /**
   * Whether on-demand progress replies are ordered after all earlier events (etcd >= 3.4.31 /
   * 3.5.13; etcd issue #15220). When false, `requestProgress` is a no-op and only periodic
   * per-watch progress notifications (which are ordered) reach `onProgress`.
   */
  progressRequestsTrusted(): Promise<boolean>;
  /**
   * Proves a cache is current without relying on progress notifications: in one read at the
   * backend's current revision R, checks that no key under `keyPrefix` has mod_revision >
   * `sinceRevision` and that exactly `count` keys exist. `unchanged` means the state at R equals
   * the state at `sinceRevision` (changes in between, if any, cancelled out), so a cache at
   * `sinceRevision` may answer a read "as of R".
   */
  confirmUnchanged(keyPrefix: string, sinceRevision: number, count: number): Promise<{ unchanged: boolean; revision: number }>;
  /**
   * Optional: the first page of `limit` keys under `keyPrefix` (the backend adds "/") in one read
   * at the backend's current revision R, without their values: each key with its mod revision,
   * how many keys the prefix holds at R, and R. A cache whose objects carry those revisions holds
   * exactly that page as of R (same key, same mod revision: same value).
   */
  pageRevisions?(keyPrefix: string, limit: number): Promise<PageRevisions>;
  /** The newest compacted revision known to this process (learned from the compactor or from `compact_rev_key`); 0 if none. */
  compactedRevision(): number;
}

export interface Storage {
  /**
   * Writes `obj` at `key` if no object is there (txn: mod_revision == 0). Fails with KeyExists
   * otherwise. `obj.metadata.resourceVersion` must be unset. Returns the stored object with
   * its resourceVersion: the caller's own copy, or with `readOnly` possibly the object the
   * change feed hands to the watch cache for this write. Never retries.
   */
  create(key: string, obj: KubeObject, options?: CreateOptions): Promise<KubeObject>;

  /**
   * Reads one object (a quorum read). KeyNotFound when absent (unless `ignoreNotFound`);
   * TooLargeResourceVersion when `resourceVersion` N is beyond the store's revision;
   * InvalidError when `resourceVersion` is not a decimal revision.
   */
  get(key: string, options?: GetOptions): Promise<KubeObject | undefined>;

  /**
   * Optional, on a watch cache: the object at `key` when a ready cache holds it and an RV="0"
   * get would answer at once with it (no write of this replica still on its way to the
   * cache); undefined otherwise (not cached, absent, not ready, or a get would wait). A
   * synchronous shortcut for hot read paths that fall back to `get`; treat it as read-only.
   */
  peekCached?(key: string): KubeObject | undefined;

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
