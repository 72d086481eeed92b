import type { IKeyValue } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import { deepCopy } from '@kapi/machinery';
import type { Codec } from './codec.js';
import { decodeKV, revisionOf } from './kv.js';

/**
 * What a conditional write starts from: the object (undefined when the key is absent), its
 * stored bytes and its mod_revision (0 when absent). `current` says whether the state was read
 * from etcd in this call (true) or came from a caller's cached copy (false, may be stale).
 */
export interface ObjectState {
  obj: KubeObject | undefined;
  data: Buffer | undefined;
  revision: number;
  current: boolean;
}

export function stateFromKV(codec: Codec, kv: IKeyValue | undefined, key: string): ObjectState {
  if (kv === undefined) return { obj: undefined, data: undefined, revision: 0, current: true };
  return { obj: decodeKV(codec, kv, key), data: kv.value, revision: revisionOf(kv.mod_revision), current: true };
}

/** A state built from a caller's cached copy: trusted only until it is checked against etcd. */
export function stateFromCache(codec: Codec, cached: KubeObject): ObjectState {
  const obj = deepCopy(cached);
  return {
    obj,
    data: codec.encode(obj),
    revision: Number(obj.metadata.resourceVersion ?? 0),
    current: false,
  };
}
