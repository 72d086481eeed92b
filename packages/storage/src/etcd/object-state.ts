import type { IKeyValue } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import { deepCopy } from '@kapi/machinery';
import type { StorageCodec } from './codec.js';
import { revisionOf, withResourceVersion, withRevision } from './kv.js';

/**
 * What a conditional write starts from: the object (undefined when the key is absent), its
 * stored bytes and its mod_revision (0 when absent). `current` says whether the state was read
 * from etcd in this call (true) or came from a caller's cached copy (false, may be stale).
 * `data` is the serialized object (before encryption); `stale` says the stored value was not
 * written with the first encryption provider and key, so even an unchanged object is rewritten.
 */
export interface ObjectState {
  obj: KubeObject | undefined;
  data: Buffer | undefined;
  stale?: boolean;
  revision: number;
  current: boolean;
}

export function stateFromKV(codec: StorageCodec, kv: IKeyValue | undefined, key: string): ObjectState {
  if (kv === undefined) return { obj: undefined, data: undefined, revision: 0, current: true };
  const opened = codec.open(kv.value, key);
  let decoded: KubeObject;
  try {
    decoded = codec.decodeSerialized(opened.data, key);
  } catch (err) {
    throw withRevision(err, kv);
  }
  const obj = withResourceVersion(decoded, revisionOf(kv.mod_revision));
  return { obj, data: opened.data, stale: opened.stale, revision: revisionOf(kv.mod_revision), current: true };
}

/** A state built from a caller's cached copy: trusted only until it is checked against etcd. */
export function stateFromCache(codec: StorageCodec, cached: KubeObject): ObjectState {
  const obj = deepCopy(cached);
  return {
    obj,
    data: codec.encode(obj),
    revision: Number(obj.metadata.resourceVersion ?? 0),
    current: false,
  };
}
