/** watch of the generic store. */
import type { KubeObject } from '@kapi/machinery';
import { parseResourceVersion, validateListOptions } from '@kapi/machinery';
import type { Watch, WatchEvent, WatchPull, Watcher as StorageWatcher, WatchOptions as StorageWatchOptions } from '@kapi/storage';
import type { RequestContext } from './definition.js';
import { checkFieldSelector, selectionPredicate } from './field-selection.js';
import type { WatchOptions } from './rest.js';
import { presentShared, type StoreContext } from './store-context.js';
import { readTarget } from './store-read.js';
import { toStatusError, translatingStorageErrors } from './storage-errors.js';

/**
 * kube's SetListOptionsDefaults with the WatchList feature on (kube 1.32): a watch from ""
 * or "0" that says nothing about initial events gets `sendInitialEvents=true` and
 * `resourceVersionMatch=NotOlderThan` — the current state as ADDED events (consistent for "",
 * any for "0"), then, when bookmarks are allowed, the `k8s.io/initial-events-end` bookmark.
 */
export function withWatchListDefaults(options: WatchOptions): WatchOptions {
  if (options.sendInitialEvents !== undefined || (options.resourceVersionMatch ?? '') !== '') return options;
  const rv = options.resourceVersion ?? '';
  if (rv !== '' && rv !== '0') return options;
  return { ...options, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' };
}

/** Per store: storage events → the same event as this version's watchers see it. */
const presentedEvents = new WeakMap<StoreContext, WeakMap<WatchEvent, WatchEvent>>();

/**
 * The event as this store's clients see it. ADDED/MODIFIED/DELETED events whose object
 * already has the served form pass through as the same (shared, read-only) event, so that
 * the HTTP layer can encode it once for every watcher; others are converted once per store
 * version and shared by its watchers the same way; BOOKMARKs get the resource's apiVersion
 * and kind; ERROR events pass unchanged.
 */
function presentEvent(ctx: StoreContext, event: WatchEvent): WatchEvent {
  if (event.type === 'ERROR') return event;
  const obj = event.object as KubeObject;
  if (event.type === 'BOOKMARK') {
    return { type: 'BOOKMARK', object: { apiVersion: ctx.apiVersion, kind: ctx.definition.kind, metadata: obj.metadata }, revision: event.revision };
  }
  const presented = presentShared(ctx, obj);
  if (presented === obj) return event;
  let cache = presentedEvents.get(ctx);
  if (cache === undefined) presentedEvents.set(ctx, (cache = new WeakMap()));
  let out = cache.get(event);
  if (out === undefined) cache.set(event, (out = { type: event.type, object: presented, revision: event.revision }));
  return out;
}

/**
 * Wraps a storage watch: presents each event, ends after an ERROR event, and turns an error
 * thrown by the storage iterator mid-stream into a final in-band ERROR event (kube delivers
 * every failure after the watch started that way). Stopping or breaking out stops the
 * storage watch.
 */
function presentingWatch(ctx: StoreContext, inner: Watch): Watch {
  async function* events(): AsyncGenerator<WatchEvent> {
    try {
      for await (const event of inner) {
        yield presentEvent(ctx, event);
        if (event.type === 'ERROR') return;
      }
    } catch (err) {
      yield { type: 'ERROR', object: toStatusError(err, ctx.resource).status, revision: 0 };
    } finally {
      inner.stop();
    }
  }
  const watch: Watch = { stop: () => inner.stop(), [Symbol.asyncIterator]: events };
  return inner.pull === undefined ? watch : { ...watch, pull: presentingPull(ctx, inner, inner.pull) };
}

/** presentingWatch's batch side: the same presentation, the end after an ERROR event, a thrown error as a last ERROR event. */
function presentingPull(ctx: StoreContext, inner: Watch, pull: WatchPull): WatchPull {
  let ended = false;
  const end = () => {
    ended = true;
    inner.stop();
  };
  return {
    take(into, max) {
      if (ended) return false;
      const from = into.length;
      let open: boolean;
      try {
        open = pull.take(into, max);
      } catch (err) {
        into.push({ type: 'ERROR', object: toStatusError(err, ctx.resource).status, revision: 0 });
        end();
        return false;
      }
      for (let i = from; i < into.length; i++) {
        const event = into[i]!;
        into[i] = presentEvent(ctx, event);
        if (event.type === 'ERROR') {
          into.length = i + 1;
          end();
          return false;
        }
      }
      if (!open) end();
      return open;
    },
    notify(listener) {
      if (ended) listener();
      else pull.notify(listener);
    },
  };
}

/**
 * Starts a watch on the collection (one namespace from the URL or a `metadata.namespace`
 * field selector, or all) or, with a `metadata.name` field selector, on the single key.
 * Applies the WatchList defaults, then checks in kube's order: options (422, e.g.
 * `resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`), field
 * selector (400), resourceVersion (400). The selectors become the storage predicate (selector
 * transitions arrive as ADDED/DELETED). Throws StatusErrors only before the stream starts
 * (e.g. 429 `storage is (re)initializing` with Retry-After while a cache initializes); an
 * expired resourceVersion and later failures arrive in-band as an ERROR event.
 */
export async function watchObjects(ctx: StoreContext, watcher: StorageWatcher, req: RequestContext, requested: WatchOptions): Promise<Watch> {
  return translatingStorageErrors(ctx.resource, '', async () => {
    const options = withWatchListDefaults(requested);
    validateListOptions({
      watch: true,
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.resourceVersionMatch !== undefined ? { resourceVersionMatch: options.resourceVersionMatch } : {}),
      ...(options.sendInitialEvents !== undefined ? { sendInitialEvents: options.sendInitialEvents } : {}),
      ...(options.allowWatchBookmarks !== undefined ? { allowWatchBookmarks: options.allowWatchBookmarks } : {}),
      ...(options.continue !== undefined && options.continue !== '' ? { continue: options.continue } : {}),
    });
    checkFieldSelector(ctx.definition, options.fieldSelector);
    parseResourceVersion(options.resourceVersion);
    const target = readTarget(ctx, req, options.fieldSelector);
    const storageOptions: StorageWatchOptions = {
      recursive: target.recursive,
      predicate: selectionPredicate(ctx.definition, options.labelSelector, options.fieldSelector),
      allowBookmarks: options.allowWatchBookmarks === true,
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.sendInitialEvents !== undefined ? { sendInitialEvents: options.sendInitialEvents } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    };
    return presentingWatch(ctx, await watcher.watch(target.key, storageOptions));
  });
}
