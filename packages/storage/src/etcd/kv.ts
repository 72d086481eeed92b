import type { IKeyValue, IRangeRequest, IRangeResponse, ITxnRequest, ITxnResponse } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import type { StorageCodec } from './codec.js';
import { WrittenValues } from './written-values.js';
import { StorageError } from '../errors.js';
import type { UnsafeDeletionSettings } from './corrupt-objects.js';
import { toStorageError } from './errors.js';
import { rangeOperation, txnOperation, type EtcdInstrumentation } from './instrumentation.js';
import { MAX_REQUEST_ID_BYTES, requestIdBytes as memberRequestIdBytes } from './request-size.js';
import { etcdCalls, type EtcdClient } from './etcd-calls.js';
import { createLeaseManager, type LeaseManager } from './lease-manager.js';

/**
 * The raw KV calls the etcd backend makes, each with a deadline and with every error cast to
 * a StorageError (via `toStorageError`). Nothing here retries.
 */
export interface EtcdKV {
  range(key: string, req: IRangeRequest): Promise<IRangeResponse>;
  txn(key: string, req: ITxnRequest): Promise<ITxnResponse>;
  readonly codec: StorageCodec;
  /** Set when the AllowUnsafeMalformedObjectDeletion gate is on: unreadable values are reported as kube does then (corrupt-objects.ts). */
  readonly unsafeDeletion?: UnsafeDeletionSettings;
  /** The largest write request etcd takes (its `--max-request-bytes`); writers check it before sending. */
  readonly maxRequestBytes: number;
  /**
   * The encoded size of the request ID etcd puts in a write's raft entry: the largest among the
   * members that have answered so far (see request-size.ts `requestIdBytes`), the most an ID
   * can take before any has.
   */
  requestIdBytes(): number;
  /** The objects of this process's writes, shared with the change feed (see WrittenValues). */
  readonly written: WrittenValues;
  /**
   * The ID of an etcd lease that outlives `ttlSeconds` from now, for a write that expires
   * (shared between writes of the same `scope`, see lease-manager.ts). Errors are
   * StorageErrors of `key`.
   */
  leaseFor(key: string, ttlSeconds: number, scope?: string): Promise<string>;
}

export interface EtcdKVOptions {
  readonly codec: StorageCodec;
  readonly unsafeDeletion?: UnsafeDeletionSettings;
  /** Deadline of each call. */
  readonly requestTimeoutMs: number;
  /** See `EtcdKV.maxRequestBytes`. */
  readonly maxRequestBytes: number;
  /**
   * Times, counts and traces each call (etcd_request_* metrics and `etcdserverpb.KV/*` spans;
   * see instrumentation.ts). None when absent.
   */
  readonly instrumentation?: EtcdInstrumentation;
  /** kube's `--lease-reuse-duration-seconds` for writes that expire (default 60). */
  readonly leaseReuseDurationSeconds?: number;
  /** Told of each lease grant with the writes counted against the previous lease (see LeaseManagerOptions.onGrant). */
  readonly onLeaseGrant?: (attachedCount: number) => void;
}

/** The KV calls on `client` (kapi's own gRPC client, grpc/unary-client.ts, or an etcd3 client). */
export function createEtcdKV(client: EtcdClient, kvOptions: EtcdKVOptions): EtcdKV {
  const { codec, requestTimeoutMs, maxRequestBytes, instrumentation } = kvOptions;
  const gate = kvOptions.unsafeDeletion !== undefined ? { unsafeDeletion: kvOptions.unsafeDeletion } : {};
  // Request ID sizes by member ID, learnt from response headers.
  const idBytesByMember = new Map<string, number>();
  const learn = (header: { member_id?: string } | undefined): void => {
    const member = header?.member_id;
    if (member !== undefined && !idBytesByMember.has(member)) idBytesByMember.set(member, memberRequestIdBytes(member));
  };
  const requestIdBytes = (): number => (idBytesByMember.size === 0 ? MAX_REQUEST_ID_BYTES : Math.max(...idBytesByMember.values()));
  const calls = etcdCalls(client);
  const callRange = (req: IRangeRequest) => calls.range(req, requestTimeoutMs);
  const callTxn = (req: ITxnRequest) => calls.txn(req, requestTimeoutMs);
  const range = async (key: string, req: IRangeRequest): Promise<IRangeResponse> => {
    try {
      const res = await callRange(req);
      learn(res.header);
      return res;
    } catch (err) {
      throw toStorageError(err, key);
    }
  };
  const txn = async (key: string, req: ITxnRequest): Promise<ITxnResponse> => {
    try {
      const res = await callTxn(req);
      learn(res.header);
      return res;
    } catch (err) {
      throw toStorageError(err, key);
    }
  };
  const written = new WrittenValues(codec);
  // One lease manager per scope: kube-apiserver has one per resource's storage.
  const managers = new Map<string, LeaseManager>();
  const grant = async (ttl: number): Promise<string> => (await calls.leaseGrant({ TTL: ttl }, requestTimeoutMs)).ID;
  const reuse = {
    ...(kvOptions.leaseReuseDurationSeconds !== undefined ? { reuseDurationSeconds: kvOptions.leaseReuseDurationSeconds } : {}),
    ...(kvOptions.onLeaseGrant !== undefined ? { onGrant: kvOptions.onLeaseGrant } : {}),
  };
  const leaseFor = async (key: string, ttlSeconds: number, scope = ''): Promise<string> => {
    let leases = managers.get(scope);
    if (leases === undefined) managers.set(scope, (leases = createLeaseManager(grant, reuse)));
    try {
      return await leases.leaseFor(ttlSeconds);
    } catch (err) {
      throw toStorageError(err, key);
    }
  };
  if (instrumentation === undefined) return { codec, ...gate, maxRequestBytes, requestIdBytes, written, leaseFor, range, txn };
  return {
    codec,
    ...gate,
    written,
    leaseFor,
    maxRequestBytes,
    requestIdBytes,
    range: (key, req) => instrumentation.call('Range', rangeOperation(req), key, () => range(key, req)),
    txn: (key, req) => instrumentation.call('Txn', txnOperation(req), key, () => txn(key, req)),
  };
}

/** etcd's int64 fields arrive as decimal strings; revisions stay far below 2^53. */
export function revisionOf(value: string | number | undefined): number {
  return value === undefined ? 0 : Number(value);
}

/**
 * The object in `kv` with its resourceVersion set to the key's mod_revision. With `opened`, the
 * value is unsealed once for both: `opened` gets the serialized bytes the object is decoded from.
 */
export function decodeKV(codec: StorageCodec, kv: IKeyValue, key: string, opened?: (serialized: Buffer) => void): KubeObject {
  try {
    if (opened === undefined) return withResourceVersion(codec.decode(kv.value, key), revisionOf(kv.mod_revision));
    const serialized = codec.open(kv.value, key).data;
    opened(serialized);
    return withResourceVersion(codec.decodeSerialized(serialized, key), revisionOf(kv.mod_revision));
  } catch (err) {
    throw withRevision(err, kv);
  }
}

/** A Corrupt error with the mod_revision of the value that did not decode (kube names it); other errors unchanged. */
export function withRevision(err: unknown, kv: IKeyValue): unknown {
  if (!(err instanceof StorageError) || err.code !== 'Corrupt' || err.revision !== undefined) return err;
  return new StorageError('Corrupt', err.key, err.message, { cause: err.cause ?? err, revision: revisionOf(kv.mod_revision) });
}

/** Sets `metadata.resourceVersion` on a freshly decoded (unshared) object and returns it. */
export function withResourceVersion(obj: KubeObject, revision: number): KubeObject {
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/** Reads `key` (quorum). Returns the raw KV, or undefined when absent, and the header revision. */
export async function readKey(kv: EtcdKV, key: string): Promise<{ kv: IKeyValue | undefined; revision: number }> {
  const res = await kv.range(key, { key: Buffer.from(key) });
  return { kv: res.kvs[0], revision: revisionOf(res.header.revision) };
}
