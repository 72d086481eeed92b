export type {
  Storage,
  Counter,
  GetOptions,
  ListOptions,
  ListResult,
  DeleteOptions,
  GuaranteedUpdateOptions,
  UpdateFunction,
  Preconditions,
  Predicate,
  ResourceVersionMatch,
  WatchEvent,
  WatchEventType,
  WatchOptions,
  Watch,
  Watcher,
  Change,
  ChangeFeed,
  ChangeFeedHandlers,
  FeedHandle,
} from './interface.js';
export { everything } from './interface.js';
export {
  StorageError,
  type StorageErrorCode,
  isStorageError,
  isKeyNotFound,
  isKeyExists,
  isUnreachable,
  keyNotFound,
  keyExists,
  preconditionFailed,
} from './errors.js';
export {
  createEtcdStorage,
  createEtcdClient,
  jsonCodec,
  toStorageError,
  type Codec,
  type EtcdStorage,
  type EtcdStorageOptions,
} from './etcd/index.js';
export {
  listTooOldMessage,
  continueTooOldMessage,
  continueTooOldShortMessage,
  resourceVersionWithContinueMessage,
} from './messages.js';
