import type { KubeObject } from '@kapi/machinery';
import { deepCopy } from '@kapi/machinery';
import type { DeleteOptions } from '../interface.js';
import { keyNotFound } from '../errors.js';
import { readKey, withResourceVersion, type EtcdKV } from './kv.js';
import { stateFromCache, stateFromKV, type ObjectState } from './object-state.js';
import { checkPreconditions } from './preconditions.js';
import { conditionalWrite } from './conditional-write.js';

/**
 * Conditional delete (see `Storage.delete`): start from `cachedExisting` or a quorum read;
 * check preconditions, then `validateDeletion` (given a private copy); txn "if mod_revision ==
 * read then delete else get", repeating on conflict. A failed check on a cached state re-reads
 * and retries unless the revision is unchanged (then the error stands).
 *
 * Returns the deleted object with resourceVersion = the deleting revision. Throws KeyNotFound
 * (absent, or deleted concurrently), the preconditions' InvalidObj error, whatever
 * `validateDeletion` throws, and Unreachable/Internal from etcd.
 */
export async function deleteObject(kv: EtcdKV, key: string, options: DeleteOptions = {}): Promise<KubeObject> {
  const codec = kv.codec;
  const fetch = async (): Promise<ObjectState> => stateFromKV(codec, (await readKey(kv, key)).kv, key);
  let state = options.cachedExisting ? stateFromCache(codec, options.cachedExisting) : await fetch();

  for (;;) {
    const existing = state.obj;
    if (existing === undefined) throw keyNotFound(key);
    try {
      checkPreconditions(key, options.preconditions, existing);
      await options.validateDeletion?.(deepCopy(existing));
    } catch (err) {
      if (state.current) throw err;
      const cachedRevision = state.revision;
      state = await fetch();
      if (state.revision === cachedRevision) throw err;
      continue;
    }

    const result = await conditionalWrite(kv, key, state.revision, { delete: true });
    if (!result.succeeded) {
      state = stateFromKV(codec, result.current, key);
      continue;
    }
    return withResourceVersion(deepCopy(existing), result.revision);
  }
}
