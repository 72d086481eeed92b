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
 * One txn: "if mod_revision(key) == expectedRevision then (put data | delete) else get key".
 * `expectedRevision` 0 means "the key must not exist". Never retries. A put whose raft entry
 * would be larger than `kv.maxRequestBytes` is not sent: it throws `RequestTooLarge` (see
 * request-size.ts).
 */
export async function conditionalWrite(
  kv: EtcdKV,
  key: string,
  expectedRevision: number,
  op: { put: Buffer } | { delete: true },
): Promise<ConditionalWriteResult> {
  const keyBytes = Buffer.from(key);
  if ('put' in op) {
    const size = {
      messageBytes: conditionalPutSize(keyBytes.length, expectedRevision, op.put.length),
      entryBytes: conditionalPutEntrySize(keyBytes.length, expectedRevision, op.put.length, kv.requestIdBytes()),
    };
    checkRequestSize(key, size, kv.maxRequestBytes);
  }
  const res = await kv.txn(key, {
    compare: [{ key: keyBytes, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
    success: [
      'put' in op
        ? { request_put: { key: keyBytes, value: op.put } }
        : { request_delete_range: { key: keyBytes } },
    ],
    failure: [{ request_range: { key: keyBytes } }],
  });
  const revision = revisionOf(res.header.revision);
  if (res.succeeded) return { succeeded: true, revision, current: undefined };
  return { succeeded: false, revision, current: res.responses[0]?.response_range?.kvs[0] };
}
