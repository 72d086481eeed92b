/**
 * Keys that expire: each write grants a fresh etcd lease of the given TTL and puts the key
 * under it, so a key not rewritten within its TTL disappears (kube's storage writes with a
 * TTL the same way: `/registry/masterleases/<ip>`). Values are written as JSON and read in any
 * format kube stores (kube-apiserver writes its master leases as protobuf Endpoints).
 */
import type { Etcd3 } from 'etcd3';
import { decodeStoredObject } from './kube-codec.js';

export interface TtlKeys {
  /** Writes `value` at `<prefix><name>`, expiring `ttlSeconds` after this write. */
  put(name: string, value: unknown, ttlSeconds: number): Promise<void>;
  /** The names (without the prefix) and parsed values of the keys that have not expired. */
  list(): Promise<{ name: string; value: unknown }[]>;
  /** Deletes `<prefix><name>` (no error when absent). */
  remove(name: string): Promise<void>;
}

export function ttlKeys(client: Etcd3, prefix: string): TtlKeys {
  return {
    async put(name, value, ttlSeconds) {
      const lease = client.lease(ttlSeconds, { autoKeepAlive: false });
      try {
        await lease.put(prefix + name).value(JSON.stringify(value));
      } finally {
        lease.release();
      }
    },
    async list() {
      const all = await client.getAll().prefix(prefix).buffers();
      return Object.entries(all).map(([key, bytes]) => {
        let value: unknown;
        try {
          value = decodeStoredObject(bytes, key);
        } catch {
          value = undefined;
        }
        return { name: key.slice(prefix.length), value };
      });
    },
    async remove(name) {
      await client.delete().key(prefix + name);
    },
  };
}
