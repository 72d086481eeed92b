import { encodeContinue, type KubeObject } from '@kapi/machinery';
import { everything, keyNotFound, type GetOptions, type ListOptions, type ListResult, type PageRevisions } from '@kapi/storage';
import type { Cacher, CacheState } from './cacher.js';
import { decodeContinuePoint, listCandidates, listPrefix, listSnapshot } from './cache-list.js';
import { parseResourceVersion, tooLargeResourceVersion, tooManyRequests } from './storage-errors.js';

/**
 * Reads served by a cacher, routed as kube's cache front-end does (reference §4.3):
 *
 * | read | served by |
 * |---|---|
 * | get RV="" | the backend (quorum) |
 * | get/list RV="0" | the cache as it is (after this replica's own writes) |
 * | get/list RV=N NotOlderThan (or N without limit) | the cache once it reaches N; TooLargeResourceVersion after the wait |
 * | list RV=N Exact (or N with a limit), continue at rv N | a snapshot at N, else the backend |
 * | list RV="" (or a continue token at rv -1) | consistent read: the backend's current revision R, then the cache once it reaches R (or is proven unchanged up to R); the backend after the wait or with consistent reads off; a first page (limit, no selector) smaller than the cache, when progress is not trusted: the cache if it holds the page's keys at the mod revisions etcd lists for them at R (keys only), else the backend |
 *
 * While the cache is not ready, a get goes to the backend, a list with a limit and no
 * selector goes to the backend, and other lists fail with TooManyRequests.
 */

export async function cachedGet(cacher: Cacher, key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
  const rv = options.resourceVersion ?? '';
  // A read-only quorum read takes the cached object when the key's value is the one cached (same
  // mod revision): the same bytes decode to the same object, whose encodings are then reused.
  if (rv === '') return cacher.backend.get(key, options.readOnly === true ? { ...options, decodedAt: (revision) => cacher.cachedAt(key, revision) } : options);
  const requested = parseResourceVersion(rv, key);
  if (!(await cacher.readyForRequest())) return cacher.backend.get(key, options);
  const state = requested === 0 ? await cacher.anyState() : await cacher.freshState(requested, cacher.options.waitTimeoutMs);
  if (state === undefined) throw tooLargeResourceVersion(key, requested, cacher.knownRevision());
  const obj = state.map.get(key);
  if (obj !== undefined) return obj;
  if (options.ignoreNotFound) return undefined;
  throw keyNotFound(key);
}

/**
 * The page `page` names (keys and mod revisions under `key` at one revision) from the cache's
 * `state`, when it holds every key at its mod revision: the items, continue token and remaining
 * count a read of the page from etcd at that revision gives. Undefined when any key is missing
 * or at another revision (the cache is behind, or already past a change).
 */
export function pageFromCache(state: CacheState, key: string, page: PageRevisions): ListResult | undefined {
  const items: KubeObject[] = new Array<KubeObject>(page.keys.length);
  for (let i = 0; i < page.keys.length; i++) {
    const { key: itemKey, modRevision } = page.keys[i]!;
    const obj = state.map.get(itemKey);
    if (obj === undefined || obj.metadata?.resourceVersion !== String(modRevision)) return undefined;
    items[i] = obj;
  }
  const result: ListResult = { items, resourceVersion: String(page.revision) };
  const last = page.keys[page.keys.length - 1];
  if (last !== undefined && page.count > page.keys.length) {
    result.continue = encodeContinue(`${last.key}\x00`, listPrefix(key), page.revision);
    result.remainingItemCount = page.count - page.keys.length;
  }
  return result;
}

export async function cachedList(cacher: Cacher, key: string, options: ListOptions = {}): Promise<ListResult> {
  const backend = cacher.backend;
  const recursive = options.recursive !== false;
  const predicate = options.predicate ?? everything;
  const limit = recursive && options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : 0;
  const rv = options.resourceVersion ?? '';
  const serve = (state: CacheState, startKey?: string): ListResult => {
    const listOptions = { recursive, limit, predicate, ...(startKey !== undefined ? { startKey } : {}) };
    const candidates = recursive ? cacher.indexedCandidates(state, predicate) : undefined;
    return candidates === undefined ? listSnapshot(state.map, state.revision, key, listOptions) : listCandidates(state.map, state.revision, key, candidates, listOptions);
  };
  const notReady = (): Promise<ListResult> => {
    if (limit > 0 && predicate.empty) return backend.list(key, options);
    throw tooManyRequests(key);
  };
  const consistent = async (startKey?: string): Promise<ListResult> => {
    if (!(await cacher.readyForRequest())) return notReady();
    // A page of a larger cache that only a read of the whole prefix in etcd could prove fresh
    // (progress not trusted, etcd < 3.4.31 / 3.5.13).
    const page = limit > 0 && predicate.empty && !cacher.trustsProgress() && cacher.current().map.size > limit;
    let target: number;
    if (page && startKey === undefined && backend.pageRevisions !== undefined) {
      // A first page proven key by key: etcd's keys and mod revisions of the page at its current
      // revision R (no values), read in place of R alone. When the cache cannot vouch for the
      // whole prefix at R, the page is still the cache's when it holds every one of those keys at
      // its mod revision.
      const revisions = await backend.pageRevisions(key, limit);
      target = revisions.revision;
      if (cacher.provenByReading(target)) {
        const proven = pageFromCache(cacher.current(), key, revisions);
        cacher.metrics.consistentRead(proven !== undefined, proven === undefined);
        return proven ?? backend.list(key, options);
      }
    } else {
      target = await backend.currentRevision();
      // Any other such page comes from etcd, which costs etcd the page alone, where kube-apiserver serves it too.
      if (page && cacher.provenByReading(target)) return backend.list(key, options);
    }
    const state = await cacher.freshState(target, cacher.options.waitTimeoutMs);
    cacher.metrics.consistentRead(state !== undefined, state === undefined);
    return state === undefined ? backend.list(key, options) : serve(state, startKey);
  };

  if (options.continue) {
    // A resourceVersion with a token is refused by the backend with the same error.
    if (rv !== '' && rv !== '0') return backend.list(key, options);
    const point = decodeContinuePoint(key, recursive, options.continue);
    if (point.revision < 0) return cacher.options.consistentReads ? consistent(point.startKey) : backend.list(key, options);
    const snapshot = cacher.snapshotAt(point.revision);
    return snapshot === undefined ? backend.list(key, options) : serve(snapshot, point.startKey);
  }

  const requested = parseResourceVersion(rv, key);
  if (rv === '') return cacher.options.consistentReads ? consistent() : backend.list(key, options);
  const match = options.resourceVersionMatch ?? '';
  if (requested > 0 && (match === 'Exact' || (match === '' && limit > 0))) {
    const snapshot = cacher.snapshotAt(requested);
    return snapshot === undefined ? backend.list(key, options) : serve(snapshot);
  }
  if (!(await cacher.readyForRequest())) return notReady();
  if (requested === 0) return serve(await cacher.anyState());
  const state = await cacher.freshState(requested, cacher.options.waitTimeoutMs);
  if (state === undefined) throw tooLargeResourceVersion(key, requested, cacher.knownRevision());
  return serve(state);
}
