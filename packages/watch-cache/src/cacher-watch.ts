import type { KubeObject, Status } from '@kapi/machinery';
import { expired, tooLargeResourceVersion as tooLargeStatus } from '@kapi/machinery';
import { everything, type Predicate, type Watch, type WatchEvent, type WatchOptions } from '@kapi/storage';
import { addedEventOf, type CacheEvent } from './cache-event.js';
import { CacheWatcher, bookmarkEvent } from './cache-watcher.js';
import type { Cacher, CacheState } from './cacher.js';
import type { SortedMap } from './sorted-map.js';
import { parseResourceVersion, tooManyRequests } from './storage-errors.js';

/** Keys visited per step when the initial state is produced lazily. */
const INITIAL_CHUNK = 256;

interface Scope {
  scope: string;
  recursive: boolean;
  predicate: Predicate;
}

/**
 * Starts a watch served by `cacher` (reference §4.4, §6):
 * - `sendInitialEvents: true`: waits (bounded) until the cache reaches the required revision
 *   ("" = the backend's current revision), then ADDED for the matching objects sorted by key,
 *   then (with bookmarks) a BOOKMARK annotated `k8s.io/initial-events-end`, then changes; a
 *   timeout gives one ERROR event (504 too large resource version);
 * - RV "" or "0": the current state as ADDED events (unless `sendInitialEvents: false`), then changes;
 * - RV N: the buffered events after N, then changes; N older than the buffer gives one ERROR
 *   event (410 Expired `too old resource version: N (oldest-1)`); N in the future waits for it.
 * Throws InvalidError for a malformed resourceVersion and TooManyRequests while the cache
 * (re)initializes.
 */
export async function cachedWatch(cacher: Cacher, key: string, options: WatchOptions = {}): Promise<Watch> {
  const rv = options.resourceVersion ?? '';
  const requested = parseResourceVersion(rv, key);
  if (!(await cacher.readyForRequest())) throw tooManyRequests(key);
  const recursive = options.recursive !== false;
  const scope: Scope = { scope: cacher.scopeOf(key, recursive), recursive, predicate: options.predicate ?? everything };
  const allowBookmarks = options.allowBookmarks === true;

  const create = (startRevision: number, initial?: Iterator<WatchEvent>): CacheWatcher =>
    new CacheWatcher({
      ...scope,
      allowBookmarks,
      queueSize: cacher.watcherQueueSize(),
      budget: cacher.options.slowWatcherBudget,
      startRevision,
      ...(initial !== undefined ? { initial } : {}),
      now: cacher.options.now,
      ...(options.deadline !== undefined ? { deadline: cacher.options.now() + (options.deadline - Date.now()) } : {}),
      onSlow: (watcher) => {
        cacher.metrics.terminatedWatcher();
        cacher.options.logger.warn(`Forcing ${cacher.name} watcher close due to unresponsiveness: key: "${watcher.scope}", revision: ${watcher.revision}`);
      },
      onClose: (watcher) => cacher.unregister(watcher),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  const failed = (status: Status): Watch => {
    const watcher = create(0, [{ type: 'ERROR', object: status, revision: 0 } as WatchEvent][Symbol.iterator]());
    watcher.close(false);
    return watcher;
  };
  /** Registers a watcher starting after `state` (with its initial events first) and catches up on events applied since. */
  const start = (state: CacheState, initial: Iterable<WatchEvent>): Watch => {
    const missed = replay(cacher.buffer.slice(cacher.buffer.firstAfter(state.revision)), scope);
    const watcher = create(Math.max(state.revision, cacher.revision), chain(initial, missed));
    cacher.register(watcher);
    return watcher;
  };

  if (options.sendInitialEvents === true) {
    const required = rv === '' ? await cacher.backend.currentRevision() : requested;
    const generation = cacher.generation;
    const state = await cacher.freshState(required, cacher.options.waitTimeoutMs);
    if (state === undefined) return failed(tooLargeStatus(required, cacher.knownRevision()).status);
    if (generation !== cacher.generation) throw tooManyRequests(key);
    const end = allowBookmarks ? [bookmarkEvent(state.revision, true)] : [];
    return start(state, chain(snapshotEvents(state.map, scope, cacher.indexedCandidates(state, scope.predicate)), end));
  }
  if (requested === 0) {
    const state = await cacher.anyState();
    if (!cacher.isReady) throw tooManyRequests(key);
    return start(state, options.sendInitialEvents === false ? [] : snapshotEvents(state.map, scope, cacher.indexedCandidates(state, scope.predicate)));
  }
  const oldest = cacher.oldestServableRevision();
  if (requested < oldest - 1) return failed(expired(`too old resource version: ${requested} (${oldest - 1})`).status);
  if (requested >= cacher.revision) {
    const watcher = create(requested);
    cacher.register(watcher);
    return watcher;
  }
  return start({ map: cacher.map, revision: requested }, []);
}

/**
 * ADDED events for the objects in scope, sorted by key, produced a chunk at a time; only the
 * index's candidates when it has them (`candidates`, sorted keys).
 */
function* snapshotEvents(map: SortedMap<KubeObject>, { scope, recursive, predicate }: Scope, candidates?: readonly string[]): Generator<WatchEvent> {
  if (recursive && candidates !== undefined) {
    for (const key of candidates) {
      const obj = key.startsWith(scope) ? map.get(key) : undefined;
      if (obj !== undefined && predicate.matches(obj)) yield addedEventOf(obj);
    }
    return;
  }
  if (!recursive) {
    const obj = map.get(scope);
    if (obj !== undefined && predicate.matches(obj)) yield addedEventOf(obj);
    return;
  }
  let from = scope;
  for (;;) {
    const chunk: KubeObject[] = [];
    let visited = 0;
    let next: string | undefined;
    map.forEachFrom(from, (k, obj) => {
      if (!k.startsWith(scope)) return false;
      if (visited === INITIAL_CHUNK) {
        next = k;
        return false;
      }
      visited++;
      if (predicate.matches(obj)) chunk.push(obj);
      return true;
    });
    for (const obj of chunk) yield addedEventOf(obj);
    if (next === undefined) return;
    from = next;
  }
}

/** Buffered events as a watcher with `scope` sees them (selector transitions applied). */
function* replay(events: readonly CacheEvent[], { scope, recursive, predicate }: Scope): Generator<WatchEvent> {
  for (const event of events) {
    if (recursive ? !event.key.startsWith(scope) : event.key !== scope) continue;
    const watchEvent = event.watchEventFor(predicate);
    if (watchEvent !== undefined) yield watchEvent;
  }
}

function* chain<T>(...parts: Iterable<T>[]): Generator<T> {
  for (const part of parts) yield* part;
}
