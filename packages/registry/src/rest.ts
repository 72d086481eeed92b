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
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
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

export interface Deleter {
  /** Returns the deleted object (or Status) and whether it is gone now (false: deletion pending). */
  delete(ctx: RequestContext, name: string, options: DeleteOptions): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }>;
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
  readonly collectionDeleter?: CollectionDeleter;
  readonly watcher?: Watcher;
}
