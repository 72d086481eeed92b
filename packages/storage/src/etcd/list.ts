import type { IRangeRequest } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import { decodeContinue, encodeContinue } from '@kapi/machinery';
import type { ListOptions, ListResult } from '../interface.js';
import { everything } from '../interface.js';
import { StorageError, isStorageError, parseResourceVersion, tooLargeResourceVersion } from '../errors.js';
import { decodeKV, revisionOf, type EtcdKV } from './kv.js';
import { listPrefix, prefixEnd } from './keys.js';
import {
  continueTooOldMessage,
  continueTooOldShortMessage,
  listTooOldMessage,
  resourceVersionWithContinueMessage,
} from '../messages.js';

/** The largest page the loop asks etcd for when selectors leave pages under-filled. */
const maxPageSize = 10_000;

interface ReadPlan {
  /** The first key to read (the prefix, the single key, or the continue key). */
  startKey: string;
  /** The revision to read at; 0 = latest (pinned by the first response). */
  revision: number;
  /** For NotOlderThan: the header revision must reach this. */
  minimumRevision: number;
  /** Set when reading a continue token (for the Expired error). */
  fromContinue: boolean;
}

function planRead(key: string, keyPrefix: string, options: ListOptions): ReadPlan {
  const rv = options.resourceVersion ?? '';
  if (options.continue) {
    if (rv !== '' && rv !== '0') {
      throw new StorageError('InvalidContinue', key, resourceVersionWithContinueMessage);
    }
    let decoded: { fromKey: string; resourceVersion: number };
    try {
      decoded = decodeContinue(options.continue, keyPrefix);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const message = reason.startsWith('invalid continue token') ? reason : `invalid continue token: ${reason}`;
      throw new StorageError('InvalidContinue', key, message, { cause: err });
    }
    // rv > 0: read at that revision; rv < 0: the latest (an inconsistent continuation).
    return { startKey: decoded.fromKey, revision: Math.max(decoded.resourceVersion, 0), minimumRevision: 0, fromContinue: true };
  }
  const requested = parseResourceVersion(rv, key);
  const startKey = options.recursive === false ? key : keyPrefix;
  if (requested === 0) return { startKey, revision: 0, minimumRevision: 0, fromContinue: false };
  const match = options.resourceVersionMatch ?? '';
  const exact = match === 'Exact' || (match === '' && (options.limit ?? 0) > 0);
  return exact
    ? { startKey, revision: requested, minimumRevision: 0, fromContinue: false }
    : { startKey, revision: 0, minimumRevision: requested, fromContinue: false };
}

/**
 * Lists `key` per `Storage.list`. The range is `[start, prefixEnd(key + "/"))` (or the single
 * key when `recursive === false`). The first response pins the revision for later round trips
 * and for the continue token. Pages under-filled by the predicate are topped up by reading on
 * with doubled page sizes (up to 10000). `continue` is set when etcd's count says more keys
 * remain; `remainingItemCount` only when the predicate is empty.
 *
 * Throws: InvalidContinue (bad token, or a resourceVersion with a token), InvalidError (bad
 * resourceVersion), TooLargeResourceVersion (NotOlderThan N beyond the store, or Exact N in
 * the future), Expired (compacted revision; for a continue token with the inconsistent-continue
 * message and `inconsistentContinue` = the same start key at rv -1), Internal (undecodable
 * value), Unreachable.
 */
export async function list(kv: EtcdKV, key: string, options: ListOptions = {}): Promise<ListResult> {
  const recursive = options.recursive !== false;
  const keyPrefix = recursive ? listPrefix(key) : key;
  const predicate = options.predicate ?? everything;
  const limit = recursive && options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : 0;
  const plan = planRead(key, keyPrefix, options);
  const rangeEnd = recursive ? prefixEnd(Buffer.from(keyPrefix)) : undefined;

  const items: KubeObject[] = [];
  let revision = plan.revision;
  let startKey = plan.startKey;
  let pageSize = limit;
  let lastKey: string | undefined;
  let hasMore = false;
  let lastCount = 0;

  for (;;) {
    const req: IRangeRequest = { key: Buffer.from(startKey) };
    if (rangeEnd) req.range_end = rangeEnd;
    if (pageSize > 0) req.limit = pageSize;
    if (revision > 0) req.revision = revision;
    const res = await rangeAt(kv, key, keyPrefix, req, plan);

    const count = revisionOf(res.count);
    lastCount = count;
    hasMore = res.kvs.length < count;
    if (res.kvs.length === 0 && hasMore) {
      throw new StorageError('Internal', key, 'no results were found, but etcd indicated there were more values remaining');
    }
    if (revision === 0) {
      revision = revisionOf(res.header.revision);
      if (revision < plan.minimumRevision) throw tooLargeResourceVersion(key, plan.minimumRevision, revision);
    }

    for (const kvPair of res.kvs) {
      if (limit > 0 && items.length >= limit) {
        hasMore = true;
        break;
      }
      const itemKey = kvPair.key.toString();
      lastKey = itemKey;
      const obj = decodeKV(kv.codec, kvPair, itemKey);
      if (predicate.matches(obj)) items.push(obj);
    }

    if (!hasMore || limit === 0) break;
    if (items.length >= limit) break;
    pageSize = Math.min(Math.max(pageSize * 2, limit), Math.max(maxPageSize, limit));
    startKey = `${lastKey}\x00`;
  }

  const result: ListResult = { items, resourceVersion: String(revision) };
  if (hasMore && lastKey !== undefined) {
    result.continue = encodeContinue(`${lastKey}\x00`, keyPrefix, revision);
    if (predicate.empty) result.remainingItemCount = lastCount - limit;
  }
  return result;
}

async function rangeAt(kv: EtcdKV, key: string, keyPrefix: string, req: IRangeRequest, plan: ReadPlan) {
  try {
    return await kv.range(key, req);
  } catch (err) {
    if (isStorageError(err, 'Expired')) throw expiredError(key, keyPrefix, plan, err);
    if (isStorageError(err, 'TooLargeResourceVersion') && plan.revision > 0) {
      const current = revisionOf((await kv.range(key, { key: Buffer.from(keyPrefix), limit: 1 })).header.revision);
      throw tooLargeResourceVersion(key, plan.revision, current);
    }
    throw err;
  }
}

function expiredError(key: string, keyPrefix: string, plan: ReadPlan, cause: unknown): StorageError {
  if (!plan.fromContinue) return new StorageError('Expired', key, listTooOldMessage, { cause });
  try {
    const inconsistentContinue = encodeContinue(plan.startKey, keyPrefix, -1);
    return new StorageError('Expired', key, continueTooOldMessage, { cause, inconsistentContinue });
  } catch {
    return new StorageError('Expired', key, continueTooOldShortMessage, { cause });
  }
}
