import type { KubeObject } from '@kapi/machinery';
import { decodeContinue, encodeContinue } from '@kapi/machinery';
import { StorageError, everything, type ListResult, type Predicate } from '@kapi/storage';
import { compareKeys, prefixEnd } from './key-order.js';
import type { SortedMap } from './sorted-map.js';

/** The list prefix for `key`: it always ends with "/", so listing `/a` cannot match `/ab`. */
export function listPrefix(key: string): string {
  return key.endsWith('/') ? key : `${key}/`;
}

export interface SnapshotListOptions {
  recursive: boolean;
  /** 0 = everything. */
  limit: number;
  predicate?: Predicate;
  /** Where a continued list resumes (a full key); default the start of the prefix. */
  startKey?: string;
}

/**
 * Lists `key` from a snapshot at `revision` with exactly the etcd list's semantics (see
 * Storage.list): items in key order filtered by the predicate; with a limit, a page ends once
 * it holds `limit` items and the continue token (kube's format, pinned at `revision`) resumes
 * after the last key looked at; `remainingItemCount` (keys after the page) only with an empty
 * predicate. A single key (`recursive: false`) ignores the limit.
 */
export function listSnapshot(map: SortedMap<KubeObject>, revision: number, key: string, options: SnapshotListOptions): ListResult {
  const predicate = options.predicate ?? everything;
  if (!options.recursive) {
    const obj = map.get(key);
    return { items: obj !== undefined && predicate.matches(obj) ? [obj] : [], resourceVersion: String(revision) };
  }
  const keyPrefix = listPrefix(key);
  const limit = options.limit;
  if (limit <= 0 && (options.startKey === undefined || options.startKey.startsWith(keyPrefix))) return { items: wholeRange(map, keyPrefix, options.startKey ?? keyPrefix, predicate), resourceVersion: String(revision) };
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  map.forEachFrom(options.startKey ?? keyPrefix, (k, obj) => {
    if (!k.startsWith(keyPrefix)) return false;
    if (limit > 0 && items.length >= limit) {
      hasMore = true;
      return false;
    }
    lastKey = k;
    if (predicate.matches(obj)) items.push(obj);
    return true;
  });
  const result: ListResult = { items, resourceVersion: String(revision) };
  if (hasMore && lastKey !== undefined) {
    const next = `${lastKey}\x00`;
    result.continue = encodeContinue(next, keyPrefix, revision);
    if (predicate.empty) {
      const end = prefixEnd(keyPrefix);
      result.remainingItemCount = (end === '' ? map.size : map.countBelow(end)) - map.countBelow(next);
    }
  }
  return result;
}

/**
 * The objects under `keyPrefix` from `from` on (a key under it) that match: the keys in
 * [from, prefixEnd) are exactly those, so the range is counted and read in one pass, with no
 * check per key.
 */
function wholeRange(map: SortedMap<KubeObject>, keyPrefix: string, from: string, predicate: Predicate): KubeObject[] {
  const end = prefixEnd(keyPrefix);
  const inRange = map.valuesFrom(from, (end === '' ? map.size : map.countBelow(end)) - map.countBelow(from));
  return predicate.empty ? inRange : inRange.filter((obj) => predicate.matches(obj));
}

/**
 * Lists `key` like `listSnapshot` from candidate keys only (sorted; those an index found for
 * the predicate's hint): the same items, pages and continue tokens, without visiting the
 * objects the index rules out. A page ends with a token only while more candidates follow.
 */
export function listCandidates(map: SortedMap<KubeObject>, revision: number, key: string, candidates: readonly string[], options: SnapshotListOptions): ListResult {
  const predicate = options.predicate ?? everything;
  const keyPrefix = listPrefix(key);
  const from = options.startKey ?? keyPrefix;
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  for (const k of candidates) {
    if (!k.startsWith(keyPrefix) || compareKeys(k, from) < 0) continue;
    if (options.limit > 0 && items.length >= options.limit) {
      hasMore = true;
      break;
    }
    lastKey = k;
    const obj = map.get(k);
    if (obj !== undefined && predicate.matches(obj)) items.push(obj);
  }
  const result: ListResult = { items, resourceVersion: String(revision) };
  if (hasMore && lastKey !== undefined) result.continue = encodeContinue(`${lastKey}\x00`, keyPrefix, revision);
  return result;
}

/** A decoded continue token: where to resume and at which revision (negative = latest). */
export interface ContinuePoint {
  startKey: string;
  revision: number;
}

/**
 * Decodes a continue token for a list of `key` the way the etcd list does, with the same
 * errors: InvalidContinue `invalid continue token: <reason>`.
 */
export function decodeContinuePoint(key: string, recursive: boolean, token: string): ContinuePoint {
  try {
    const decoded = decodeContinue(token, recursive ? listPrefix(key) : key);
    return { startKey: decoded.fromKey, revision: decoded.resourceVersion };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const message = reason.startsWith('invalid continue token') ? reason : `invalid continue token: ${reason}`;
    throw new StorageError('InvalidContinue', key, message, { cause: err });
  }
}
