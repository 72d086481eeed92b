import type { KubeObject } from '@kapi/machinery';
import { isPlainObject } from '@kapi/machinery';
import { StorageError } from '../errors.js';

/**
 * How objects become stored bytes. `encode` must not store `metadata.resourceVersion` (the
 * revision is the resourceVersion) and must be deterministic, so that equal objects give
 * equal bytes (the no-op update check compares bytes). `decode` throws a StorageError
 * (`Internal`) for bytes that are not a stored object; it never returns a partial object.
 */
export interface Codec {
  encode(obj: KubeObject): Buffer;
  decode(bytes: Buffer, key: string): KubeObject;
}

/** JSON: the object without `metadata.resourceVersion`, fields in the caller's order. */
export const jsonCodec: Codec = {
  encode(obj) {
    const { resourceVersion: _ignored, ...metadata } = obj.metadata ?? {};
    return Buffer.from(JSON.stringify({ ...obj, metadata }));
  },
  decode(bytes, key) {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new StorageError('Internal', key, `unable to decode stored object at ${key}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (!isPlainObject(value) || !isPlainObject(value.metadata)) {
      throw new StorageError('Internal', key, `unable to decode stored object at ${key}: not an object with metadata`);
    }
    return value as KubeObject;
  },
};
