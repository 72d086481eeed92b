/** Key arithmetic on etcd's byte-ordered keyspace. */

/** The smallest key greater than every key that starts with `prefix` (etcd's range_end). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff: every key from prefix on. etcd reads range_end "\0" as "to the end".
  return Buffer.from([0]);
}

/** The list prefix for `key`: it always ends with "/", so listing `/a` cannot match `/ab`. */
export function listPrefix(key: string): string {
  return key.endsWith('/') ? key : `${key}/`;
}
