import type { IKeyValue, IRangeRequest } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import { decodeContinue, encodeContinue, yieldIfBusy } from '@kapi/machinery';
import type { ListOptions, ListResult } from '../interface.js';
import { everything } from '../interface.js';
import { StorageError, isStorageError, parseResourceVersion, tooLargeResourceVersion } from '../errors.js';
import { decodeKV, revisionOf, type EtcdKV } from './kv.js';
import { TransformError } from './codec.js';
import { ListReadErrors } from './corrupt-objects.js';
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

/** How the list reads in chunks (tests make them small). */
export interface ListChunking {
  /** Bytes a chunk aims at, judged by the values read so far; default 4 MiB. */
  readonly targetBytes?: number;
  /** Keys the first chunk asks for (nothing is known of the values' size yet); default 1000. */
  readonly firstKeys?: number;
  /** The fewest keys a later chunk asks for; default 10. */
  readonly minKeys?: number;
}

const defaultChunking = { targetBytes: 4 << 20, firstKeys: 1000, minKeys: 10 };

/**
 * Lists `key` per `Storage.list`. The range is `[start, prefixEnd(key + "/"))` (or the single
 * key when `recursive === false`). The first response pins the revision for later round trips
 * and for the continue token. Pages under-filled by the predicate are topped up by reading on
 * with doubled page sizes (up to 10000). `continue` is set when etcd's count says more keys
 * remain; `remainingItemCount` only when the predicate is empty.
 *
 * Large reads (no limit, or a limit beyond one chunk) go to etcd in chunks of about
 * `chunking.targetBytes`, all at the pinned revision, so no response is one huge message; the
 * next chunk is asked for as soon as a response arrives, before its values are decoded (only
 * when it is certainly needed: the values in hand cannot fill the page), so etcd reads the next
 * chunk while this process decodes the last one. The result is the same as one range.
 *
 * Throws: InvalidContinue (bad token, or a resourceVersion with a token), InvalidError (bad
 * resourceVersion), TooLargeResourceVersion (NotOlderThan N beyond the store, or Exact N in
 * the future), Expired (compacted revision; for a continue token with the inconsistent-continue
 * message and `inconsistentContinue` = the same start key at rv -1), Internal (undecodable
 * value), Unreachable.
 */
export async function list(kv: EtcdKV, key: string, options: ListOptions = {}, chunking: ListChunking = {}): Promise<ListResult> {
  const recursive = options.recursive !== false;
  const keyPrefix = recursive ? listPrefix(key) : key;
  const predicate = options.predicate ?? everything;
  const limit = recursive && options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : 0;
  const plan = planRead(key, keyPrefix, options);
  const rangeEnd = recursive ? prefixEnd(Buffer.from(keyPrefix)) : undefined;
  const targetBytes = chunking.targetBytes ?? defaultChunking.targetBytes;
  const firstKeys = Math.max(1, chunking.firstKeys ?? defaultChunking.firstKeys);
  const minKeys = Math.max(1, chunking.minKeys ?? defaultChunking.minKeys);

  const items: KubeObject[] = [];
  // With AllowUnsafeMalformedObjectDeletion, unreadable values are collected, not fatal at once.
  const readErrors = kv.unsafeDeletion !== undefined ? new ListReadErrors() : undefined;
  let revision = plan.revision;
  let lastKey: string | undefined;
  let hasMore = false;
  let lastCount = 0;
  let consumedFromLast = 0;
  // The page size rule of a limited list: the limit, then doubling while a predicate leaves
  // the page short (as before chunking). A list without a limit reads everything.
  let pageSize = limit;
  const growPage = () => {
    pageSize = Math.min(Math.max(pageSize * 2, limit), Math.max(maxPageSize, limit));
  };
  // Chunks bounded by bytes where every key read is wanted: no limit, or a limit and no
  // predicate (a filtering page keeps its doubling sizes, as only decoding tells what it needs).
  const chunked = limit === 0 || predicate.empty;
  let bytesSeen = 0;
  let keysSeen = 0;
  const chunkKeys = (): number => {
    if (!chunked) return pageSize;
    const byBytes = keysSeen === 0 ? firstKeys : Math.max(minKeys, Math.floor(targetBytes / Math.max(1, bytesSeen / keysSeen)));
    return pageSize > 0 ? Math.min(pageSize, byBytes) : byBytes;
  };
  const request = (startKey: string, keys: number) => {
    const req: IRangeRequest = { key: Buffer.from(startKey) };
    if (rangeEnd) req.range_end = rangeEnd;
    // A range always has a limit (a chunk or the page); a single key needs none.
    if (recursive) req.limit = keys;
    if (revision > 0) req.revision = revision;
    const pending = rangeAt(kv, key, keyPrefix, req, plan);
    // Awaited below; a prefetch left behind by a failure must not be an unhandled rejection.
    pending.catch(() => undefined);
    return pending;
  };

  let next: ReturnType<typeof request> | undefined = request(plan.startKey, chunkKeys());
  while (next !== undefined) {
    const res = await next;
    next = undefined;
    lastCount = revisionOf(res.count);
    consumedFromLast = 0;
    hasMore = res.kvs.length < lastCount;
    if (res.kvs.length === 0 && hasMore) {
      throw new StorageError('Internal', key, 'no results were found, but etcd indicated there were more values remaining');
    }
    if (revision === 0) {
      revision = revisionOf(res.header.revision);
      if (revision < plan.minimumRevision) throw tooLargeResourceVersion(key, plan.minimumRevision, revision);
    }
    for (const kvPair of res.kvs) bytesSeen += kvPair.value.length;
    keysSeen += res.kvs.length;
    // Ask for the next chunk before decoding this one when it is needed whatever the
    // predicate says: no limit, or even if every value matched the page would be short.
    const short = limit === 0 ? Infinity : limit - items.length - res.kvs.length;
    if (hasMore && short > 0) {
      next = request(`${res.kvs[res.kvs.length - 1]!.key.toString()}\x00`, Math.min(chunkKeys(), short));
    }

    for (const kvPair of res.kvs) {
      if (limit > 0 && items.length >= limit) {
        hasMore = true;
        break;
      }
      const itemKey = kvPair.key.toString();
      lastKey = itemKey;
      consumedFromLast++;
      // Each large value's decode is one step: others may run between two of them. (Awaited
      // only when it pauses: an await of undefined still costs a microtask per value.)
      const pause = yieldIfBusy();
      if (pause !== undefined) await pause;
      let obj: KubeObject;
      try {
        obj = readErrors === undefined ? decodeListed(kv, kvPair, itemKey) : decodeKV(kv.codec, kvPair, itemKey);
      } catch (err) {
        if (readErrors === undefined || !readErrors.add(itemKey, err)) throw err;
        if (readErrors.full) throw readErrors.error(key)!;
        continue;
      }
      if (predicate.matches(obj)) items.push(obj);
    }

    if (next === undefined && hasMore && limit > 0 && items.length < limit) {
      // The predicate left the page short of the limit: read on in bigger pages.
      growPage();
      next = request(`${lastKey}\x00`, chunkKeys());
    }
  }

  const unreadable = readErrors?.error(key);
  if (unreadable !== undefined) throw unreadable;
  const result: ListResult = { items, resourceVersion: String(revision) };
  if (hasMore && lastKey !== undefined && limit > 0) {
    result.continue = encodeContinue(`${lastKey}\x00`, keyPrefix, revision);
    if (predicate.empty) result.remainingItemCount = lastCount - consumedFromLast;
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

/** A listed value; a value that does not decrypt names its key, as kube's list does. */
function decodeListed(kv: EtcdKV, kvPair: IKeyValue, key: string): KubeObject {
  try {
    return decodeKV(kv.codec, kvPair, key);
  } catch (err) {
    if (err instanceof TransformError) throw new StorageError('Internal', key, `unable to transform key ${JSON.stringify(key)}: ${err.message}`);
    throw err;
  }
}
