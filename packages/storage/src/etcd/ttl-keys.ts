/**
 * Keys that expire: each write grants a fresh etcd lease of the given TTL and puts the key
 * under it, so a key not rewritten within its TTL disappears (kube's storage writes with a
 * TTL the same way: `/registry/masterleases/<ip>`). Values are written as JSON and read in any
 * format kube stores (kube-apiserver writes its master leases as protobuf Endpoints).
 */
import { etcdCalls, type EtcdClient } from './etcd-calls.js';
import { prefixEnd } from './keys.js';
import { decodeStoredObject } from './kube-codec.js';

export interface TtlKeys {
  /** Writes `value` at `<prefix><name>`, expiring `ttlSeconds` (at least 1) after this write. */
  put(name: string, value: unknown, ttlSeconds: number): Promise<void>;
  /** The names (without the prefix) and parsed values of the keys that have not expired. */
  list(): Promise<{ name: string; value: unknown }[]>;
  /** Deletes `<prefix><name>` (no error when absent). */
  remove(name: string): Promise<void>;
}

/**
 * Each put grants a lease (LeaseGrant) and writes the key under it; the lease is never kept
 * alive or revoked, so the key expires unless written again. Each call has a deadline of
 * `timeoutMs` (default 10 s); errors are the client's (etcd3's error classes).
 */
export function ttlKeys(client: EtcdClient, prefix: string, timeoutMs = 10_000): TtlKeys {
  const calls = etcdCalls(client);
  const start = Buffer.from(prefix);
  return {
    async put(name, value, ttlSeconds) {
      if (!(ttlSeconds >= 1)) throw new RangeError(`The TTL in an etcd lease must be at least 1 second. Got: ${ttlSeconds}`);
      const lease = await calls.leaseGrant({ TTL: ttlSeconds }, timeoutMs);
      await calls.put({ key: Buffer.from(prefix + name), value: Buffer.from(JSON.stringify(value)), lease: lease.ID }, timeoutMs);
    },
    async list() {
      const res = await calls.range({ key: start, range_end: prefixEnd(start) }, timeoutMs);
      return res.kvs.map((kv) => {
        const key = kv.key.toString();
        let value: unknown;
        try {
          value = decodeStoredObject(kv.value, key);
        } catch {
          value = undefined;
        }
        return { name: key.slice(prefix.length), value };
      });
    },
    async remove(name) {
      await calls.deleteRange({ key: Buffer.from(prefix + name) }, timeoutMs);
    },
  };
}
