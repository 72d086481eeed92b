import type { IKeyValue } from 'etcd3';
import { revisionOf, type EtcdKV } from './kv.js';
import { checkRequestSize, conditionalPutEntrySize, conditionalPutSize } from './request-size.js';

export interface ConditionalWriteResult {
  succeeded: boolean;
  /** The txn's header revision: the new revision when it succeeded. */
  revision: number;
  /** When it failed: the key's current KV (undefined when the key is now absent). */
  current: IKeyValue | undefined;
}

/**
 * One txn: "if mod_revision(key) == expectedRevision then (put data | delete) else get key";
 * a put under `lease` when given.
 * `expectedRevision` 0 means "the key must not exist". Never retries. A put whose raft entry
 * would be larger than `kv.maxRequestBytes` is not sent: it throws `RequestTooLarge` (see
 * request-size.ts).
 */
export async function conditionalWrite(
  kv: EtcdKV,
  key: string,
  expectedRevision: number,
  op: { put: Buffer; lease?: string } | { delete: true },
): Promise<ConditionalWriteResult> {
  const keyBytes = Buffer.from(key);
  if ('put' in op) {
    const size = {
      messageBytes: conditionalPutSize(keyBytes.length, expectedRevision, op.put.length, op.lease),
      entryBytes: conditionalPutEntrySize(keyBytes.length, expectedRevision, op.put.length, kv.requestIdBytes(), op.lease),
    };
    checkRequestSize(key, size, kv.maxRequestBytes);
  }
  const res = await kv.txn(key, {
    compare: [{ key: keyBytes, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
    success: [
      'put' in op
        ? { request_put: { key: keyBytes, value: op.put, ...(op.lease !== undefined ? { lease: op.lease } : {}) } }
        : { request_delete_range: { key: keyBytes } },
    ],
    failure: [{ request_range: { key: keyBytes } }],
  });
  const revision = revisionOf(res.header.revision);
  if (res.succeeded) return { succeeded: true, revision, current: undefined };
  return { succeeded: false, revision, current: res.responses[0]?.response_range?.kvs[0] };
}

/**
 * The lease a put with `ttlSeconds` goes under (`{}` without a TTL: the key then has no lease,
 * and an update so drops one it had, as kube's writes without a TTL do).
 */
export async function leaseOf(kv: EtcdKV, key: string, ttl: { ttlSeconds?: number; leaseScope?: string } | undefined): Promise<{ lease?: string }> {
  const ttlSeconds = ttl?.ttlSeconds;
  if (ttlSeconds === undefined || !(ttlSeconds > 0)) return {};
  return { lease: await kv.leaseFor(key, ttlSeconds, ttl?.leaseScope) };
}
