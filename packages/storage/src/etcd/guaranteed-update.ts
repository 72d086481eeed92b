import type { KubeObject } from '@kapi/machinery';
import { deepCopy, yieldIfBusy } from '@kapi/machinery';
import type { GuaranteedUpdateOptions, UpdateFunction } from '../interface.js';
import { keyNotFound } from '../errors.js';
import { readKey, withResourceVersion, type EtcdKV } from './kv.js';
import { stateFromKV, type ObjectState } from './object-state.js';
import { checkPreconditions } from './preconditions.js';
import { conditionalWrite, leaseOf, type ConditionalWriteResult } from './conditional-write.js';

/**
 * Read-modify-write with optimistic concurrency (see `Storage.guaranteedUpdate`):
 *
 * 1. Start from `cachedExisting` (not known current) or a quorum read.
 * 2. Check preconditions, then call `tryUpdate` with a private copy. If either throws while
 *    the state came from the cache, re-read; when the revision is unchanged the cached copy
 *    was right and the error is thrown, otherwise the loop runs again on the fresh state.
 * 3. Serialized bytes unchanged and the stored value not stale (written with the first
 *    encryption provider and key) → no write; returns the existing object with its resourceVersion (a
 *    cached state is confirmed by a fresh read first).
 * 4. Txn "if mod_revision == read then put (or delete, when tryUpdate returned null) else get";
 *    on failure the returned KV becomes the current state and the loop repeats. No retry limit:
 *    each retry follows a write someone else committed.
 * 5. Returns the written object with resourceVersion = the txn's revision (with `readOnly`, the
 *    object the change feed gets, see WrittenValues.committed). After a delete it returns the
 *    deleted object with resourceVersion = the deleting revision.
 *
 * Throws KeyNotFound when the key is absent (unless `ignoreNotFound`, or when `tryUpdate`
 * asks to delete an absent key), the preconditions' InvalidObj error, whatever `tryUpdate`
 * throws, and Unreachable/Internal from etcd.
 */
export async function guaranteedUpdate(
  kv: EtcdKV,
  key: string,
  tryUpdate: UpdateFunction,
  options: GuaranteedUpdateOptions = {},
): Promise<KubeObject> {
  const codec = kv.codec;
  const fetch = async (): Promise<ObjectState> => stateFromKV(codec, (await readKey(kv, key)).kv, key);
  let state = options.cachedExisting ? stateFromSharedCache(kv, options.cachedExisting) : await fetch();
  // Encoding, copying and decoding a large object are each one pass: others may run in between.
  await yieldIfBusy();

  for (;;) {
    if (state.obj === undefined && !options.ignoreNotFound) throw keyNotFound(key);

    let updated: KubeObject | null;
    try {
      checkPreconditions(key, options.preconditions, state.obj);
      const copy = state.obj === undefined ? undefined : deepCopy(state.obj);
      await yieldIfBusy();
      updated = await tryUpdate(copy);
    } catch (err) {
      if (state.current) throw err;
      const cachedRevision = state.revision;
      state = await fetch();
      if (state.revision === cachedRevision) throw err;
      continue;
    }

    if (updated === null) {
      if (state.obj === undefined) throw keyNotFound(key);
      const result = await conditionalWrite(kv, key, state.revision, { delete: true });
      if (!result.succeeded) {
        state = stateFromKV(codec, result.current, key);
        continue;
      }
      return withResourceVersion(deepCopy(state.obj), result.revision);
    }

    await yieldIfBusy();
    const data = codec.encode(updated);
    // The cached state's bytes are encoded only now (see stateFromSharedCache): a step of its own.
    await yieldIfBusy();
    if (state.data !== undefined && !state.stale && data.equals(state.data)) {
      if (!state.current) {
        state = await fetch();
        continue;
      }
      return deepCopy(state.obj!);
    }

    await yieldIfBusy();
    const stored = codec.seal(data, key);
    const lease = await leaseOf(kv, key, options);
    const written = kv.written.begin(key, stored, data);
    let result: ConditionalWriteResult;
    try {
      result = await conditionalWrite(kv, key, state.revision, { put: stored, ...lease });
    } catch (err) {
      kv.written.failed(key, written);
      throw err;
    }
    if (!result.succeeded) {
      kv.written.failed(key, written);
      state = stateFromKV(codec, result.current, key);
      continue;
    }
    await yieldIfBusy();
    return kv.written.committed(key, written, result.revision, options.readOnly === true);
  }
}

/**
 * The state of a caller's cached copy (trusted only until checked against etcd), without
 * copying it: the loop above only reads `state.obj` (tryUpdate, a delete's and a no-op's
 * results get copies), so the shared cached object is never mutated.
 */
function stateFromSharedCache(kv: EtcdKV, cached: KubeObject): ObjectState {
  // Encoded when first read: a delete never compares bytes, and an update compares them
  // after encoding its own object, with a checkpoint between the two passes. A copy the watch
  // cache got from a recent write of this process comes with the bytes it was decoded from.
  let data: Buffer | undefined;
  return {
    obj: cached,
    get data() {
      return (data ??= kv.written.encodedOf(cached) ?? kv.codec.encode(cached));
    },
    revision: Number(cached.metadata.resourceVersion ?? 0),
    current: false,
  };
}
