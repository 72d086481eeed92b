export { createEtcdStorage, createEtcdClient, type EtcdStorage, type EtcdStorageOptions } from './etcd-storage.js';
export { jsonCodec, type Codec } from './codec.js';
export { toStorageError } from './errors.js';
