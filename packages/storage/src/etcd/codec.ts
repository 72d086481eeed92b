import type { KubeObject } from '@kapi/machinery';
import { goJsonSyntaxError, isPlainObject } from '@kapi/machinery';
import { StorageError } from '../errors.js';
import { identityTransformer, type OpenedValue, type ValueTransformer } from '../value/transformer.js';

/**
 * How objects become serialized bytes. `encode` must not store `metadata.resourceVersion` (the
 * revision is the resourceVersion) and must be deterministic, so that equal objects give
 * equal bytes (the no-op update check compares bytes). `decode` throws a StorageError
 * (`Corrupt`) for bytes that are not a stored object; it never returns a partial object.
 */
export interface Codec {
  encode(obj: KubeObject): Buffer;
  decode(bytes: Buffer, key: string): KubeObject;
  /**
   * `encode`, with what `decode` returns for those bytes when the codec can tell without
   * decoding them (a new object sharing nothing with `obj`), else `decoded` undefined.
   * Optional: a codec without it is encoded, and its bytes decoded, as usual.
   */
  encodeDecoded?(obj: KubeObject): { data: Buffer; decoded: KubeObject | undefined };
}

/** JSON: the object without `metadata.resourceVersion`, fields in the caller's order. */
export const jsonCodec: Codec = {
  encode(obj) {
    const { resourceVersion: _ignored, ...metadata } = obj.metadata ?? {};
    return Buffer.from(JSON.stringify({ ...obj, metadata }));
  },
  decode(bytes, key) {
    return decodeJson(bytes, key);
  },
};

/**
 * A stored JSON object; StorageError `Corrupt` otherwise, with kube's text for a value its
 * JSON decoder refuses (`couldn't get version/kind; json parse error: ` and Go's syntax error).
 */
export function decodeJson(bytes: Buffer, key: string): KubeObject {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    const goError = goJsonSyntaxError(bytes) ?? (err as Error).message;
    throw new StorageError('Corrupt', key, `couldn't get version/kind; json parse error: ${goError}`, { cause: err });
  }
  if (!isPlainObject(value) || !isPlainObject(value.metadata)) {
    throw new StorageError('Corrupt', key, 'not an object with metadata');
  }
  return value as KubeObject;
}

/** A transformer failure (decryption): kube reports it as an internal error. */
export class TransformError extends StorageError {
  constructor(key: string, message: string) {
    super('Internal', key, message);
  }
}

/**
 * What the etcd backend stores: a Codec's bytes passed through the key's value transformer
 * (encryption at rest). `encode` gives the serialized bytes (what the no-op update check
 * compares), `seal` what goes to etcd; `decode` reads stored bytes, `decodeSerialized` bytes
 * from `encode`. `open` throws TransformError, the decoders StorageError `Corrupt`.
 */
export interface StorageCodec extends Codec {
  /** The codec's encodeDecoded, or `encode` with nothing decoded. */
  encodeDecoded(obj: KubeObject): { data: Buffer; decoded: KubeObject | undefined };
  open(stored: Buffer, key: string): OpenedValue;
  seal(serialized: Buffer, key: string): Buffer;
  decodeSerialized(serialized: Buffer, key: string): KubeObject;
}

export interface StorageCodecOptions {
  /** The transformer of a key's value; identity (refusing encrypted values) when absent. */
  readonly transformerFor?: (key: string) => ValueTransformer;
  /** Called with the key of each value that fails to decode (the decode-error metric). */
  readonly onDecodeError?: (key: string) => void;
}

export function storageCodec(codec: Codec, options: StorageCodecOptions = {}): StorageCodec {
  const transformerFor = options.transformerFor ?? (() => identityTransformer);
  const onDecodeError = options.onDecodeError;
  const decodeSerialized = (serialized: Buffer, key: string): KubeObject => {
    try {
      return codec.decode(serialized, key);
    } catch (err) {
      onDecodeError?.(key);
      throw err;
    }
  };
  const open = (stored: Buffer, key: string): OpenedValue => {
    try {
      return transformerFor(key).fromStorage(stored, key);
    } catch (err) {
      throw new TransformError(key, (err as Error).message);
    }
  };
  return {
    encode: (obj) => codec.encode(obj),
    encodeDecoded: codec.encodeDecoded !== undefined ? (obj) => codec.encodeDecoded!(obj) : (obj) => ({ data: codec.encode(obj), decoded: undefined }),
    decodeSerialized,
    open,
    seal: (serialized, key) => transformerFor(key).toStorage(serialized, key),
    decode: (stored, key) => decodeSerialized(open(stored, key).data, key),
  };
}
