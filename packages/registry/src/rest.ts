import type { KubeList, KubeObject, Status } from '@kapi/machinery';
import type { LabelSelector, FieldSelector } from '@kapi/machinery';
import type { RequestContext, ResourceDefinition } from './definition.js';

/**
 * The narrow role interfaces the HTTP layer talks to (one per verb). A resource's REST
 * storage implements the ones it supports; the route installer asks which roles a storage
 * has and registers only those verbs. Every method throws `StatusError`s only.
 */

export interface GetOptions {
  resourceVersion?: string;
  /**
   * The caller only reads the result (the HTTP GET handler encodes it), so it may be an object
   * shared with other readers and must then never be changed.
   */
  readOnly?: boolean;
  /**
   * With `readOnly`: the caller answers with the object's protobuf encoding, which may then be
   * made from the bytes the storage read (see the storage's `GetOptions.protobufAnswer`).
   */
  protobufAnswer?: boolean;
}

export interface ListOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  limit?: number;
  continue?: string;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  /** dryRun=All: run every step, persist nothing. */
  dryRun?: boolean;
  fieldManager?: string;
  /**
   * fieldValidation (default Warn): what unknown or duplicate fields in the body cause —
   * Strict: 400 `strict decoding error: unknown field "x"`; Warn: a warning through
   * `warn`; Ignore: dropped silently.
   */
  fieldValidation?: FieldValidation;
  /** Receives each warning (e.g. `unknown field "spec.foo"`) for a `Warning: 299 - "<text>"` header. */
  warn?: (message: string) => void;
  /**
   * Paths of duplicate fields the HTTP layer found in the body text (JSON.parse hides them),
   * e.g. `metadata.labels.a`: reported with unknown fields per fieldValidation.
   */
  duplicateFields?: readonly string[];
  /**
   * Duplicate keys of a YAML body as go-yaml's strict decoder lists them, e.g. `line 7: key
   * "a" already set in map`. Create and update report them with unknown fields (Strict: one
   * `yaml: unmarshal errors:` problem; Warn: a warning per line); apply reports them after a
   * successful apply (Strict: 400 `error strict decoding YAML: ...`; Warn: a warning per line).
   */
  duplicateKeyLines?: readonly string[];
  /**
   * The caller only reads the returned object (the HTTP create, update and patch handlers
   * encode it), so a create or a stored update may return the object the watch cache shares
   * with its readers, which must then never be changed.
   */
  readOnlyResult?: boolean;
  /**
   * Set by the HTTP create handler for a protobuf body: the body was decoded for this create
   * alone, so the create takes it as its own (no copy), and it holds only fields of the kind's
   * message, which its schema has (builtin/representations.test.ts), so it has no unknown
   * fields to prune or report (kube's protobuf decoding has no strict mode either). Never set
   * on updates: they decode their body again on each attempt.
   */
  protobufBody?: boolean;
}

/** The patch media types (kube's types.PatchType). */
export type PatchType =
  | 'application/json-patch+json'
  | 'application/merge-patch+json'
  | 'application/strategic-merge-patch+json'
  | 'application/apply-patch+yaml';

export interface PatchOptions extends WriteOptions {
  /** Apply only: take ownership of conflicting fields. */
  force?: boolean;
}

export interface Patch {
  readonly type: PatchType;
  /**
   * The decoded body: the operation list (json-patch), the patch document (merge,
   * strategic) or the applied configuration (apply).
   */
  readonly body: unknown;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** kube's unsafe deletion of an unreadable object (only with AllowUnsafeMalformedObjectDeletion; see CorruptObjectDeleter). */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
}

export interface WatchOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /** Only validated (kube forbids it together with resourceVersionMatch); a watch does not page. */
  continue?: string;
  /** Ends the watch (client gone, timeout, shutdown). */
  signal?: AbortSignal;
  /** When the watch will end (ms since the epoch); the storage sends a last bookmark 2 s before. */
  deadline?: number;
}

/** Events as the HTTP layer writes them; BOOKMARK objects already carry apiVersion and kind. */
export type { Watch as WatchStream, WatchEvent } from '@kapi/storage';

export interface Getter {
  get(ctx: RequestContext, name: string, options: GetOptions): Promise<KubeObject>;
}

export interface Lister {
  list(ctx: RequestContext, options: ListOptions): Promise<KubeList>;
}

export interface Creater {
  /** `body` is the decoded request body, not yet validated. */
  create(ctx: RequestContext, body: unknown, options: WriteOptions): Promise<KubeObject>;
}

export interface Updater {
  /** PUT. `created` is true when the object did not exist and the resource allows create-on-update. */
  update(ctx: RequestContext, name: string, body: unknown, options: WriteOptions): Promise<{ object: KubeObject; created: boolean }>;
}

export interface Patcher {
  /**
   * PATCH: applies the patch to the current object inside a guaranteed update and writes the
   * result through the update pipeline (defaults, validation, managedFields). 404 when the
   * object is absent, except for apply, which creates it (`created`). A resourceVersion in the
   * patch is a precondition (409). Throws StatusErrors only.
   */
  patch(ctx: RequestContext, name: string, patch: Patch, options: PatchOptions): Promise<{ object: KubeObject; created: boolean }>;
}

/**
 * POST to `<resource>/<name>/<subresource>` (kube's NamedCreater: pods/binding,
 * pods/eviction): `body` is the decoded body of the subresource's kind; answers the object to
 * send with 201 (kube answers a success Status for both). Throws StatusErrors only.
 */
export interface NamedCreater {
  create(ctx: RequestContext, name: string, body: unknown, options: WriteOptions): Promise<KubeObject | Status>;
}

/** The HTTP verbs a connect-style subresource answers (kube's Connecter methods). */
export type ConnectVerb = 'get' | 'create' | 'update' | 'patch' | 'delete';

/** One request to a connect-style subresource. */
export interface ConnectRequest {
  readonly verb: ConnectVerb;
  readonly query: URLSearchParams;
  /** The path below `<name>/<subresource>` ("" when none; proxies only). */
  readonly path: string;
  /** The connection upgrade the request asks for: SPDY or WebSocket streams, or none (''). */
  readonly upgrade: '' | 'spdy' | 'websocket';
  /** The WebSocket subprotocols offered (Sec-WebSocket-Protocol), in order. */
  readonly protocols: readonly string[];
}

/**
 * What a connect-style subresource answers: a body, or (a WebSocket request kube would
 * accept before it fails) the upgrade followed by a Status on the stream's error channel.
 */
export type ConnectResponse =
  | { readonly contentType: string; readonly body: string }
  | { readonly websocket: { readonly protocol: string; readonly openChannels: readonly number[]; readonly errorChannel: number; readonly status: Status } };

/**
 * A connect-style subresource (kube's rest.Connecter: pods/log, exec, attach, portforward,
 * the proxies): it reads what it needs and answers the request itself. Throws StatusErrors
 * only, and never waits on an unreachable peer longer than a bounded dial.
 */
export interface Connecter {
  readonly verbs: readonly ConnectVerb[];
  /** Paths below `<name>/<subresource>/` are served too (the proxies). */
  readonly subpaths: boolean;
  connect(ctx: RequestContext, name: string, request: ConnectRequest): Promise<ConnectResponse>;
}

/** The roles of one subresource (e.g. `status`), addressed as `<resource>/<name>/<subresource>`. */
export interface RestSubresource {
  readonly name: string;
  /** The kind discovery names when it is not the resource's own (pods/eviction: policy/v1 Eviction). */
  readonly kind?: { readonly group: string; readonly version: string; readonly kind: string };
  readonly getter?: Getter;
  readonly updater?: Updater;
  readonly patcher?: Patcher;
  readonly creater?: NamedCreater;
  readonly connecter?: Connecter;
}

export interface Deleter {
  /** Returns the deleted object (or Status) and whether it is gone now (false: deletion pending). */
  delete(ctx: RequestContext, name: string, options: DeleteOptions): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }>;
}

/**
 * kube's corrupt-object deleter: removes an object whose stored value cannot be read
 * (AllowUnsafeMalformedObjectDeletion; see store-unsafe-delete.ts). Resolves once the key is
 * gone; throws kube's 422 when the object reads fine or is absent.
 */
export interface CorruptObjectDeleter {
  deleteCorrupt(ctx: RequestContext, name: string): Promise<void>;
}

export interface Watcher {
  /** Starts a watch; expired revisions arrive in-band as an ERROR event. Throws StatusError only before the stream starts. */
  watch(ctx: RequestContext, options: WatchOptions): Promise<import('@kapi/storage').Watch>;
}

export interface CollectionDeleter {
  /** Lists with `listOptions` and deletes each item (not atomic). Returns the deleted items. */
  deleteCollection(ctx: RequestContext, options: DeleteOptions, listOptions: ListOptions): Promise<KubeList>;
}

/** A resource as the HTTP layer sees it: its definition plus the roles it implements. */
export interface RestResource {
  readonly definition: ResourceDefinition;
  /** The version this REST storage serves (one RestResource per served version). */
  readonly version: string;
  readonly getter?: Getter;
  readonly lister?: Lister;
  readonly creater?: Creater;
  readonly updater?: Updater;
  readonly deleter?: Deleter;
  /** The unsafe deletion of unreadable objects (absent where kube's storage has none: namespaces, RBAC). */
  readonly corruptObjectDeleter?: CorruptObjectDeleter;
  readonly collectionDeleter?: CollectionDeleter;
  readonly watcher?: Watcher;
  /** PATCH (json, merge, strategic merge, apply). */
  readonly patcher?: Patcher;
  /** Subresources by name. */
  readonly subresources?: ReadonlyMap<string, RestSubresource>;
}
