/**
 * Value transformers: what happens to an object's serialized bytes on their way to and from
 * etcd (kube's storage/value). Encryption at rest is a chain of prefixed transformers; the
 * bytes on disk are the same as kube-apiserver's, so either server reads what the other wrote.
 */

/** Bytes read back from storage: the plaintext, and whether it should be rewritten (not written by the first provider). */
export interface OpenedValue {
  readonly data: Buffer;
  readonly stale: boolean;
}

/**
 * Turns serialized bytes into stored bytes and back. `key` is the etcd key: AES-GCM binds it
 * as authenticated data, so a value copied to another key does not decrypt. `fromStorage`
 * throws an Error with kube's message when the value cannot be read.
 */
export interface ValueTransformer {
  toStorage(data: Buffer, key: string): Buffer;
  fromStorage(stored: Buffer, key: string): OpenedValue;
}

/** The prefix every encrypted value starts with. */
export const ENCRYPTED_PREFIX = Buffer.from('k8s:enc:');

/**
 * kube's identity provider (and the transformer of a server without an encryption config):
 * writes the bytes as they are, refuses to read an encrypted value.
 */
export const identityTransformer: ValueTransformer = {
  toStorage: (data) => data,
  fromStorage(stored) {
    if (startsWith(stored, ENCRYPTED_PREFIX)) throw new Error('identity transformer tried to read encrypted data');
    return { data: stored, stale: false };
  },
};

export interface PrefixedTransformer {
  readonly prefix: Buffer;
  readonly transformer: ValueTransformer;
}

/**
 * kube's prefix transformers: writes with the first (its prefix, then its output); reads with
 * the first whose prefix the value has and that succeeds. A value read by any but the first is
 * stale. An identity (empty prefix) that fails is passed over silently; other failures are
 * kept and reported when nothing succeeds (one as is, several as `[a, b]`); with no prefix
 * matching at all, `noMatch` is thrown.
 */
export function prefixTransformers(noMatch: string, transformers: readonly PrefixedTransformer[]): ValueTransformer {
  if (transformers.length === 0) throw new Error('prefixTransformers needs at least one transformer');
  const first = transformers[0]!;
  return {
    toStorage(data, key) {
      return Buffer.concat([first.prefix, first.transformer.toStorage(data, key)]);
    },
    fromStorage(stored, key) {
      const errors: string[] = [];
      for (const [i, { prefix, transformer }] of transformers.entries()) {
        if (!startsWith(stored, prefix)) continue;
        try {
          const opened = transformer.fromStorage(stored.subarray(prefix.length), key);
          return { data: opened.data, stale: opened.stale || i !== 0 };
        } catch (err) {
          if (prefix.length > 0) errors.push((err as Error).message);
        }
      }
      if (errors.length === 1) throw new Error(errors[0]);
      if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
      throw new Error(noMatch);
    },
  };
}

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.subarray(0, prefix.length).equals(prefix);
}
