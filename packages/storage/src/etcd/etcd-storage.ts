import { Etcd3, type IOptions } from 'etcd3';
import { noop } from 'cockatiel';
import type { KubeObject } from '@kapi/machinery';
import type { Counter, Storage } from '../interface.js';
import { StorageError, keyExists, keyNotFound } from '../errors.js';
import { jsonCodec, type Codec } from './codec.js';
import { createEtcdKV, decodeKV, readKey, revisionOf, withResourceVersion, type EtcdKV } from './kv.js';
import { conditionalWrite } from './conditional-write.js';
import { guaranteedUpdate } from './guaranteed-update.js';
import { deleteObject } from './delete.js';
import { list } from './list.js';
import { listPrefix, prefixEnd } from './keys.js';
import { parseResourceVersion, tooLargeResourceVersion } from './resource-version.js';

export interface EtcdStorageOptions {
  /** Client URLs, e.g. `["http://127.0.0.1:2379"]`. Ignored when `client` is given. */
  endpoints: string[];
  /** An existing client to use; the storage then does not close it. */
  client?: Etcd3;
  /** Passed to the etcd3 client as its dial timeout. Default 5000 ms. */
  dialTimeoutMs?: number;
  /**
   * Deadline for each etcd call. A call that has not completed by then fails with
   * Unreachable, so a hung or partitioned etcd never blocks a request forever. Default 10000 ms.
   */
  requestTimeoutMs?: number;
  /** How objects are stored; default JSON. */
  codec?: Codec;
}

/** The etcd backend: `Storage` plus the optional `Counter`. */
export interface EtcdStorage extends Storage, Counter {
  /** The underlying client (for backend-specific operations such as compaction and watch). */
  readonly client: Etcd3;
}

/**
 * Creates the etcd3 client the backend uses when none is given: no client-side retries and no
 * circuit breaker (a failing call fails at once and is reported as Unreachable; retrying a
 * conditional write blindly could misreport its outcome), a per-call deadline, and short
 * reconnect backoff so that a restarted etcd is used again within about a second.
 */
export function createEtcdClient(endpoints: string[], dialTimeoutMs = 5000): Etcd3 {
  const options: IOptions = {
    hosts: endpoints,
    dialTimeout: dialTimeoutMs,
    faultHandling: { host: () => noop, global: noop },
    grpcOptions: {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
    },
  };
  return new Etcd3(options);
}

/**
 * The etcd backend of the storage contract (see interface.ts for each operation's contract).
 * Keys are used as given; values are `codec`-encoded objects without resourceVersion;
 * resourceVersion = mod_revision. Every etcd3 error is cast to a StorageError in
 * etcd/errors.ts.
 */
export function createEtcdStorage(options: EtcdStorageOptions): EtcdStorage {
  const ownsClient = options.client === undefined;
  const client = options.client ?? createEtcdClient(options.endpoints, options.dialTimeoutMs);
  const kv: EtcdKV = createEtcdKV(client, options.codec ?? jsonCodec, options.requestTimeoutMs ?? 10_000);

  return {
    client,

    async create(key: string, obj: KubeObject): Promise<KubeObject> {
      if (obj.metadata?.resourceVersion) {
        throw new StorageError('Internal', key, 'resourceVersion should not be set on objects to be created');
      }
      const data = kv.codec.encode(obj);
      const result = await conditionalWrite(kv, key, 0, { put: data });
      if (!result.succeeded) throw keyExists(key);
      return withResourceVersion(kv.codec.decode(data, key), result.revision);
    },

    async get(key, getOptions = {}) {
      const minimum = parseResourceVersion(getOptions.resourceVersion, key);
      const { kv: found, revision } = await readKey(kv, key);
      if (minimum > revision) throw tooLargeResourceVersion(key, minimum, revision);
      if (found === undefined) {
        if (getOptions.ignoreNotFound) return undefined;
        throw keyNotFound(key);
      }
      return decodeKV(kv.codec, found, key);
    },

    list: (key, listOptions) => list(kv, key, listOptions),

    guaranteedUpdate: (key, tryUpdate, updateOptions) => guaranteedUpdate(kv, key, tryUpdate, updateOptions),

    delete: (key, deleteOptions) => deleteObject(kv, key, deleteOptions),

    async currentRevision() {
      const res = await kv.range('/', { key: Buffer.from('/'), limit: 1 });
      const revision = revisionOf(res.header.revision);
      if (revision <= 0) throw new StorageError('Internal', '/', 'the current resource version must be greater than 0');
      return revision;
    },

    async count(keyPrefix) {
      const prefix = Buffer.from(listPrefix(keyPrefix));
      const res = await kv.range(keyPrefix, { key: prefix, range_end: prefixEnd(prefix), count_only: true });
      return revisionOf(res.count);
    },

    async close() {
      if (ownsClient) client.close();
    },
  };
}
