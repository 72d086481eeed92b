/**
 * Keys that expire: each write grants a fresh etcd lease of the given TTL and puts the key
 * under it, so a key not rewritten within its TTL disappears (kube's storage writes with a
 * TTL the same way: `/registry/masterleases/<ip>`). Values are written as JSON and read in any
 * format kube stores (kube-apiserver writes its master leases as protobuf Endpoints).
 */
import { etcdCalls, type EtcdClient } from './etcd-calls.js';
import { prefixEnd } from './keys.js';
import { decodeStoredObject } from './kube-codec.js';
import { createLeaseManager } from './lease-manager.js';

export interface TtlKeys {
  /** Writes `value` at `<prefix><name>`, expiring `ttlSeconds` (at least 1) after this write. */
  put(name: string, value: unknown, ttlSeconds: number): Promise<void>;
  /** The names (without the prefix) and parsed values of the keys that have not expired. */
  list(): Promise<{ name: string; value: unknown }[]>;
  /** Deletes `<prefix><name>` (no error when absent). */
  remove(name: string): Promise<void>;
}

/**
 * Each put writes the key under a lease from a lease manager of its own (lease-manager.ts, as
 * kube's storage of these keys has): for TTLs under 20 s (the master leases' 15 s) that is a
 * fresh LeaseGrant per put. The lease is never kept alive or revoked, so the key expires
 * unless written again. Each call has a deadline of `timeoutMs` (default 10 s); errors are the
 * client's (etcd3's error classes). `onGrant` is told of grants as a lease manager's is
 * (`etcd_lease_object_counts`).
 */
export function ttlKeys(client: EtcdClient, prefix: string, timeoutMs = 10_000, onGrant?: (attachedCount: number) => void): TtlKeys {
  const calls = etcdCalls(client);
  const start = Buffer.from(prefix);
  const leases = createLeaseManager(async (ttl) => (await calls.leaseGrant({ TTL: ttl }, timeoutMs)).ID, onGrant !== undefined ? { onGrant } : {});
  return {
    async put(name, value, ttlSeconds) {
      if (!(ttlSeconds >= 1)) throw new RangeError(`The TTL in an etcd lease must be at least 1 second. Got: ${ttlSeconds}`);
      const lease = await leases.leaseFor(ttlSeconds);
      await calls.put({ key: Buffer.from(prefix + name), value: Buffer.from(JSON.stringify(value)), lease }, timeoutMs);
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
