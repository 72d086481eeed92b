export { createEtcdStorage, leaseObjectCountObserver, type EtcdStorage, type EtcdStorageOptions } from './etcd-storage.js';
export { type UnsafeDeletionSettings } from './corrupt-objects.js';
export { createEtcdClient, etcdCredentials, type EtcdClientOptions, type EtcdTlsFiles } from './client.js';
export { createEtcdUnaryClient, type EtcdUnaryClient, type EtcdUnaryClientOptions } from './grpc/unary-client.js';
export { etcdCalls, type EtcdCalls, type EtcdClient } from './etcd-calls.js';
export { openWatchStream, useOwnWatchClient, stopOwnWatchClient, type WatchStream, type WatchStreamHandlers, type WatchStreamRequest } from './watch-stream.js';
export { DEFAULT_MAX_REQUEST_BYTES } from './request-size.js';
export { jsonCodec, storageCodec, decodeJson, TransformError, type Codec, type StorageCodec, type StorageCodecOptions } from './codec.js';
export { kubeStorageCodec, decodeStoredObject, STORAGE_MEDIA_TYPES, type StorageMediaType, type JsonStoredKinds } from './kube-codec.js';
export { toStorageError } from './errors.js';
export {
  startCompactor,
  compactRevKey,
  type Compactor,
  type CompactorOptions,
  type CompactionRound,
} from './compactor.js';
export { progressRequestsOrdered } from './etcd-version.js';
export {
  createEtcdInstrumentation,
  resourceResolver,
  ETCD_REQUEST_DURATION_BUCKETS,
  type ResourcePrefix,
  type EtcdInstrumentation,
  type EtcdInstrumentationOptions,
} from './instrumentation.js';
export { counterChild, histogramChild, type IncrementingChild, type ObservingChild } from './metric-children.js';
export { startStorageMetricsPoller, type StorageMetricsPoller, type StorageMetricsPollerOptions } from './storage-metrics.js';
export { ttlKeys, type TtlKeys } from './ttl-keys.js';
