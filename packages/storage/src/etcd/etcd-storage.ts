import type { Etcd3, IKeyValue } from 'etcd3';
import { createEtcdClient, type EtcdTlsFiles } from './client.js';
import { createEtcdUnaryClient, type EtcdUnaryClient } from './grpc/unary-client.js';
import type { EtcdClient } from './etcd-calls.js';
import type { KubeObject } from '@kapi/machinery';
import { nextSlice, noteStoredEncoding, shouldYield } from '@kapi/machinery';
import type { ChangeFeed, Counter, CreateOptions, FeedHandle, Storage, UnreadableDeleter, Watcher } from '../interface.js';
import { StorageError, keyExists, keyNotFound, parseResourceVersion, tooLargeResourceVersion } from '../errors.js';
import { jsonCodec, storageCodec, type Codec } from './codec.js';
import type { ValueTransformer } from '../value/transformer.js';
import { Counter as PromCounter, Histogram as PromHistogram } from 'prom-client';
import { asCorruptObject, asUnreadableForUpdate, deleteWithoutDecoding, type UnsafeDeletionSettings } from './corrupt-objects.js';
import { createEtcdKV, decodeKV, readKey, revisionOf, type EtcdKV } from './kv.js';
import { conditionalWrite, leaseOf, type ConditionalWriteResult } from './conditional-write.js';
import { guaranteedUpdate } from './guaranteed-update.js';
import { deleteObject } from './delete.js';
import { list } from './list.js';
import { listPrefix, prefixEnd } from './keys.js';
import { startEtcdWatch } from './watch.js';
import { confirmUnchanged, openChangeFeed } from './change-feed.js';
import { checkProgressRequestsOrdered } from './etcd-version.js';
import { startCompactor } from './compactor.js';
import { createEtcdInstrumentation, resourceResolver, type ResourcePrefix } from './instrumentation.js';
import { DEFAULT_MAX_REQUEST_BYTES } from './request-size.js';
import type { Registry } from 'prom-client';
import type { Tracer } from '@opentelemetry/api';

export interface EtcdStorageOptions {
  /** Client URLs, e.g. `["http://127.0.0.1:2379"]`. */
  endpoints: string[];
  /**
   * kapi's own etcd client (grpc/unary-client.ts) to use, shared with others (the compactor,
   * the metrics poller); the storage then does not close it. Absent: the storage makes one for
   * `endpoints` with `tls`, `dialTimeoutMs` and `maxRequestBytes` and closes it in `close()`.
   */
  http2Client?: EtcdUnaryClient;
  /**
   * An existing etcd3 client, used where `kvClient` or `watchClient` asks for etcd3 (and for
   * everything when there are no `endpoints` and no `http2Client`); the storage does not close
   * it. Absent: the storage makes one for `endpoints` the first time one is needed, so that by
   * default no etcd3 client (no grpc-js channel) exists at all.
   */
  client?: Etcd3;
  /** The dial timeout of the clients the storage makes. Default 5000 ms. */
  dialTimeoutMs?: number;
  /** TLS files for the clients the storage creates (see `EtcdClientOptions.tls`); give them with `client` too. */
  tls?: EtcdTlsFiles;
  /**
   * Which client makes the unary KV calls (Range and Txn, every get, list, create, update and
   * delete). `http2` (the default): kapi's own gRPC client (grpc/unary-client.ts), which also makes
   * every other call (the version check, the compactor's). `etcd3`: the etcd3 client (`client`,
   * or one made for `endpoints`). The environment variable KAPI_ETCD_KV_CLIENT=etcd3 sets the
   * default to etcd3 (to compare the two).
   */
  kvClient?: 'http2' | 'etcd3';
  /**
   * Which client carries the Watch streams (change feeds, uncached watches) and their leader
   * checks. `http2` (the default): kapi's own client (grpc/watch-call.ts; about 35% less CPU per
   * live event than grpc-js, see `kapi-bench etcd-watch`). `etcd3`: the etcd3 client's grpc-js
   * channels. The environment variable KAPI_ETCD_WATCH_CLIENT=etcd3 sets the default to etcd3
   * (to compare the two).
   */
  watchClient?: 'http2' | 'etcd3';
  /**
   * The largest write request the etcd cluster takes: its `--max-request-bytes` (default
   * 1.5 MiB, etcd's default). A create or update whose request would be larger is refused
   * with `RequestTooLarge` without being sent (see request-size.ts). When the storage
   * creates its client, the client's send limit follows it. Default 1572864.
   */
  maxRequestBytes?: number;
  /**
   * kube's `--lease-reuse-duration-seconds` (default 60): writes given a TTL share an etcd
   * lease granted for the TTL plus up to this many seconds (see lease-manager.ts).
   */
  leaseReuseDurationSeconds?: number;
  /**
   * Deadline for each etcd call. A call that has not completed by then fails with
   * Unreachable, so a hung or partitioned etcd never blocks a request forever. Default 10000 ms.
   */
  requestTimeoutMs?: number;
  /** How objects are serialized; default JSON (kapi-apiserver uses kube's, `kubeStorageCodec`). */
  codec?: Codec;
  /**
   * The value transformer of a key (encryption at rest, `--encryption-provider-config`):
   * applied to every serialized value written and read. Default: identity, which refuses to
   * read encrypted values.
   */
  transformerFor?: (key: string) => ValueTransformer;
  /**
   * Where the compacted revision is learned, normally the process's compactor
   * (`startCompactor`). `compactedRevision()` reports the newer of it and what this storage's
   * own watches learned from etcd.
   */
  compaction?: { compactedRevision(): number };
  /**
   * Run kube's compactor on this storage's client (`--etcd-compaction-interval`; see
   * `startCompactor`): 0 only learns the compacted revision from `compact_rev_key`; absent
   * starts no compactor. Stopped by `close()`. Start one per process and etcd cluster.
   */
  compactionIntervalMs?: number;
  /** Undelivered events a watch holds before it pauses its etcd stream. Default 100. */
  watchQueueCapacity?: number;
  /**
   * How long a watch keeps re-opening a broken etcd stream before it ends with an ERROR event,
   * and (with several endpoints) a change feed before it reports Unreachable to its consumer.
   * Default 30000 ms.
   */
  watchResumeTimeoutMs?: number;
  /**
   * With several endpoints: how often the member serving a watch or change feed is asked
   * whether it still has a leader; one without (cut off from the majority) gets no new
   * revisions, so its streams move to another member, resuming after their last revision.
   * etcd itself cancels them only after about three election timeouts. 0 disables the check.
   * Default 1000 ms.
   */
  watchLeaderCheckIntervalMs?: number;
  /**
   * Where `etcd_request_duration_seconds`, `etcd_requests_total` and `etcd_request_errors_total`
   * are registered (none when absent).
   */
  /**
   * kube's AllowUnsafeMalformedObjectDeletion gate (off when absent): unreadable values are
   * reported as kube-apiserver reports them with the gate on (see corrupt-objects.ts).
   */
  unsafeDeletion?: UnsafeDeletionSettings;
  metricsRegistry?: Registry;
  /** Resource prefixes, for the metrics' and spans' `group`/`resource` labels (empty labels for other keys). */
  resources?: readonly ResourcePrefix[];
  /**
   * Tracer for `etcdserverpb.KV/*` spans. Default: the global provider's (a no-op unless the
   * process installed an SDK); spans are then made only under an active (request) span.
   */
  tracer?: Tracer;
}

/** The etcd backend: `Storage` plus the optional `Counter`, `Watcher` and `ChangeFeed`. */
export interface EtcdStorage extends Storage, Counter, Watcher, ChangeFeed, UnreadableDeleter {
  /**
   * An etcd3 client on the same etcd (tests and comparisons): `EtcdStorageOptions.client`, or
   * one made on first use (and closed by `close()`).
   */
  readonly client: Etcd3;
}

/**
 * The etcd backend of the storage contract (see interface.ts for each operation's contract).
 * Keys are used as given; values are `codec`-encoded objects without resourceVersion;
 * resourceVersion = mod_revision. Every etcd3 error is cast to a StorageError in
 * etcd/errors.ts.
 */
export function createEtcdStorage(options: EtcdStorageOptions): EtcdStorage {
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const clientOptions = {
    maxRequestBytes,
    ...(options.dialTimeoutMs !== undefined ? { dialTimeoutMs: options.dialTimeoutMs } : {}),
    ...(options.tls !== undefined ? { tls: options.tls } : {}),
  };
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const kvClient = options.kvClient ?? (process.env['KAPI_ETCD_KV_CLIENT'] === 'etcd3' ? 'etcd3' : 'http2');
  const watchClient = options.watchClient ?? (process.env['KAPI_ETCD_WATCH_CLIENT'] === 'etcd3' ? 'etcd3' : 'http2');
  const ownClient: EtcdUnaryClient | undefined =
    options.http2Client ?? (options.endpoints.length > 0 ? createEtcdUnaryClient(options.endpoints, clientOptions) : undefined);
  // The etcd3 client, made only when something asks for it.
  let etcd3 = options.client;
  let madeEtcd3 = false;
  const etcd3Client = (): Etcd3 => {
    if (etcd3 === undefined) {
      etcd3 = createEtcdClient(options.endpoints, clientOptions);
      madeEtcd3 = true;
    }
    return etcd3;
  };
  const client: EtcdClient = ownClient ?? etcd3Client();
  const kvOn: EtcdClient = kvClient === 'http2' ? client : etcd3Client();
  const watchOn: EtcdClient = watchClient === 'http2' ? client : etcd3Client();
  const instrumentation = createEtcdInstrumentation({
    ...(options.metricsRegistry !== undefined ? { registry: options.metricsRegistry } : {}),
    ...(options.resources !== undefined ? { resources: options.resources } : {}),
    ...(options.tracer !== undefined ? { tracer: options.tracer } : {}),
  });
  const decodeErrors = options.metricsRegistry === undefined ? undefined : decodeErrorCounter(options.metricsRegistry);
  const resourceOf = resourceResolver(options.resources ?? []);
  const codec = storageCodec(options.codec ?? jsonCodec, {
    ...(options.transformerFor !== undefined ? { transformerFor: options.transformerFor } : {}),
    ...(decodeErrors !== undefined
      ? {
          onDecodeError: (key: string) => {
            const { group, resource } = resourceOf(key);
            decodeErrors.inc({ resource: group === '' ? resource : `${resource}.${group}` });
          },
        }
      : {}),
  });
  const unsafeDeletion = options.unsafeDeletion;
  const kv: EtcdKV = createEtcdKV(kvOn, {
    codec,
    requestTimeoutMs,
    maxRequestBytes,
    instrumentation,
    ...(unsafeDeletion !== undefined ? { unsafeDeletion } : {}),
    ...(options.leaseReuseDurationSeconds !== undefined ? { leaseReuseDurationSeconds: options.leaseReuseDurationSeconds } : {}),
    ...(options.metricsRegistry !== undefined ? { onLeaseGrant: leaseObjectCountObserver(options.metricsRegistry) } : {}),
  });
  // With the gate, a get (and the read a delete starts with) names an unreadable value as kube then does.
  const reading = async <T>(key: string, read: () => Promise<T>): Promise<T> => {
    if (unsafeDeletion === undefined) return read();
    try {
      return await read();
    } catch (err) {
      throw asCorruptObject(unsafeDeletion, key, err);
    }
  };

  // Compaction seen by this storage's own watches (etcd reports the compacted revision when it cancels one).
  let observedCompaction = 0;
  const observeCompacted = (revision: number) => {
    if (revision > observedCompaction) observedCompaction = revision;
  };
  // Open watches and feeds, closed with the storage.
  const open = new Set<{ stop(): void }>();

  // The etcd version check, once it has succeeded (a failed check is retried on the next call).
  let trusted: boolean | undefined;
  let trustCheck: Promise<boolean> | undefined;
  const progressRequestsTrusted = (): Promise<boolean> => {
    if (trusted !== undefined) return Promise.resolve(trusted);
    trustCheck ??= checkProgressRequestsOrdered(client, options.client ? [] : options.endpoints, requestTimeoutMs, options.tls).then(
      (ordered) => {
        trusted = ordered;
        return ordered;
      },
      () => {
        trustCheck = undefined;
        return false;
      },
    );
    return trustCheck;
  };
  const watchSettings = {
    client: watchOn,
    kv,
    queueCapacity: options.watchQueueCapacity ?? 100,
    resumeTimeoutMs: options.watchResumeTimeoutMs ?? 30_000,
    leaderCheckIntervalMs: options.watchLeaderCheckIntervalMs ?? 1000,
    observeCompacted,
    open,
  };
  const compactor =
    options.compactionIntervalMs !== undefined
      ? startCompactor({ client, intervalMs: options.compactionIntervalMs, requestTimeoutMs })
      : undefined;
  const feedSettings = {
    client: watchOn,
    kv,
    progressTrusted: () => trusted,
    observeCompacted,
    resumeTimeoutMs: watchSettings.resumeTimeoutMs,
    leaderCheckIntervalMs: watchSettings.leaderCheckIntervalMs,
  };

  return {
    get client() {
      return etcd3Client();
    },

    async create(key: string, obj: KubeObject, createOptions?: CreateOptions): Promise<KubeObject> {
      if (obj.metadata?.resourceVersion) {
        throw new StorageError('Internal', key, 'resourceVersion should not be set on objects to be created');
      }
      // The written object comes with the bytes: the one the caller and the watch cache get.
      const { data, decoded } = kv.codec.encodeDecoded(obj);
      if (shouldYield()) await nextSlice();
      const stored = kv.codec.seal(data, key);
      const lease = await leaseOf(kv, key, createOptions);
      const written = kv.written.begin(key, stored, data, decoded);
      let result: ConditionalWriteResult;
      try {
        result = await conditionalWrite(kv, key, 0, { put: stored, ...lease });
      } catch (err) {
        kv.written.failed(key, written);
        throw err;
      }
      if (!result.succeeded) {
        kv.written.failed(key, written);
        throw keyExists(key);
      }
      if (shouldYield()) await nextSlice();
      return kv.written.committed(key, written, result.revision, createOptions?.readOnly === true);
    },

    async get(key, getOptions = {}) {
      const minimum = parseResourceVersion(getOptions.resourceVersion, key);
      const { kv: found, revision } = await readKey(kv, key);
      if (minimum > revision) throw tooLargeResourceVersion(key, minimum, revision);
      if (found === undefined) {
        if (getOptions.ignoreNotFound) return undefined;
        throw keyNotFound(key);
      }
      const noting = getOptions.readOnly === true && getOptions.protobufAnswer === true;
      const decoded = getOptions.decodedAt?.(revisionOf(found.mod_revision));
      if (decoded !== undefined) {
        if (noting) noteStoredValue(kv, key, found, decoded);
        return decoded;
      }
      // Starts the slice clock before a possibly long decode, so the caller's next checkpoint can yield.
      if (shouldYield()) await nextSlice();
      let serialized: Buffer | undefined;
      const obj = await reading(key, () => Promise.resolve().then(() => decodeKV(kv.codec, found, key, noting ? (data) => (serialized = data) : undefined)));
      if (serialized !== undefined) noteStoredEncoding(obj, serialized);
      return obj;
    },

    list: (key, listOptions) => list(kv, key, listOptions),

    guaranteedUpdate: async (key, tryUpdate, updateOptions) => {
      if (unsafeDeletion === undefined) return guaranteedUpdate(kv, key, tryUpdate, updateOptions);
      try {
        return await guaranteedUpdate(kv, key, tryUpdate, updateOptions);
      } catch (err) {
        throw updateOptions?.deleting === true ? asCorruptObject(unsafeDeletion, key, err) : asUnreadableForUpdate(key, err);
      }
    },

    delete: (key, deleteOptions) => reading(key, () => deleteObject(kv, key, deleteOptions)),

    deleteWithoutDecoding: (key) => deleteWithoutDecoding(kv, key),

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

    watch: (key, watchOptions) => startEtcdWatch(watchSettings, key, watchOptions),

    feed(keyPrefix, afterRevision, handlers): FeedHandle {
      void progressRequestsTrusted();
      // Tracked so that close() ends it; it leaves the set when it ends on its own.
      const entry = { stop: () => handle.close() };
      const handle = openChangeFeed(feedSettings, keyPrefix, afterRevision, {
        onChanges: (changes) => handlers.onChanges(changes),
        onProgress: (revision) => handlers.onProgress(revision),
        onError: (err) => {
          open.delete(entry);
          handlers.onError(err);
        },
      });
      open.add(entry);
      return {
        requestProgress: () => handle.requestProgress(),
        close: () => {
          open.delete(entry);
          handle.close();
        },
      };
    },

    progressRequestsTrusted,

    confirmUnchanged: (keyPrefix, sinceRevision, count) => confirmUnchanged(kv, keyPrefix, sinceRevision, count),

    async pageRevisions(keyPrefix, limit) {
      const prefix = Buffer.from(listPrefix(keyPrefix));
      const res = await kv.range(keyPrefix, { key: prefix, range_end: prefixEnd(prefix), limit, keys_only: true });
      return {
        keys: res.kvs.map((found) => ({ key: found.key.toString(), modRevision: revisionOf(found.mod_revision) })),
        count: revisionOf(res.count),
        revision: revisionOf(res.header.revision),
      };
    },

    compactedRevision: () =>
      Math.max(observedCompaction, options.compaction?.compactedRevision() ?? 0, compactor?.compactedRevision() ?? 0),

    async close() {
      await compactor?.stop();
      for (const entry of [...open]) entry.stop();
      open.clear();
      if (madeEtcd3) etcd3?.close();
      if (ownClient !== undefined && options.http2Client === undefined) ownClient.close();
    },
  };
}

/**
 * Notes the serialized bytes of `found` (the value the cached `obj` was decoded from, unsealed)
 * for the answer of a read-only get (see GetOptions.protobufAnswer); nothing when they cannot be
 * opened.
 */
function noteStoredValue(kv: EtcdKV, key: string, found: IKeyValue, obj: KubeObject): void {
  let data: Buffer;
  try {
    data = kv.codec.open(found.value, key).data;
  } catch {
    return;
  }
  noteStoredEncoding(obj, data);
}

/** kube's `apiserver_storage_decode_errors_total{resource}`: stored values that did not decode. */
function decodeErrorCounter(registry: Registry): PromCounter<'resource'> {
  const existing = registry.getSingleMetric('apiserver_storage_decode_errors_total') as PromCounter<'resource'> | undefined;
  return existing ?? new PromCounter({ name: 'apiserver_storage_decode_errors_total', help: 'Number of stored object decode errors split by object type', labelNames: ['resource'], registers: [registry] });
}

/**
 * kube's `etcd_lease_object_counts` in `registry`, as a lease manager's `onGrant`: per lease
 * granted for expiring writes, the writes counted against the one before. The family is
 * registered at the first grant (kube shows it only once it has an observation).
 */
export function leaseObjectCountObserver(registry: Registry): (count: number) => void {
  let histogram: PromHistogram | undefined;
  return (count) => {
    histogram ??= (registry.getSingleMetric('etcd_lease_object_counts') as PromHistogram | undefined) ?? new PromHistogram({
      name: 'etcd_lease_object_counts',
      help: '[ALPHA] Number of objects attached to a single etcd lease.',
      buckets: [10, 50, 100, 500, 1000, 2500, 5000],
      registers: [registry],
    });
    histogram.observe(count);
  };
}
