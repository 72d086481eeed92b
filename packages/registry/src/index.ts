// @kapi/registry — resource definitions, built-in schemas and the generic store.

export type {
  Admission, AdmissionAttributes, AdmissionOperation, AdmissionPlugin, AdmissionUser, EquivalentResource, GroupVersionKind, GroupVersionResource,
} from './admission.js';
export { admissionChain } from './admission.js';
export type { Verb, VersionDefinition, FieldGetter, RequestContext, WriteGuard, Strategy, LastValidationContext, ResourceDefinition, SubresourceDefinition, ScaleDefinition } from './definition.js';
export type {
  GetOptions,
  ListOptions,
  FieldValidation,
  WriteOptions,
  DeleteOptions,
  Getter,
  Lister,
  Creater,
  Updater,
  Deleter,
  CollectionDeleter,
  CorruptObjectDeleter,
  Watcher,
  WatchOptions,
  WatchStream,
  WatchEvent,
  RestResource,
  RestSubresource,
  Patcher,
  Patch,
  PatchType,
  PatchOptions,
  NamedCreater,
  Connecter,
  ConnectVerb,
  ConnectRequest,
  ConnectResponse,
} from './rest.js';
export type { SubresourceStore, SubresourceFactory, SubresourceFactories, ResourceLookup, KubeletAddressing } from './subresource-store.js';

export {
  builtinDefinitions,
  builtinDefinition,
  builtinGroupOrder,
  NOT_SERVED,
  SUBRESOURCES_NOT_SERVED,
  definitions,
  namespaces,
  configMaps,
  secrets,
  serviceAccounts,
  events,
  leases,
  eventsApi,
} from './builtin/index.js';
export type { ResourceOverride, GroupOverrides } from './builtin/override.js';
export { storageApiVersionOf, storageVersionOf, versionConversion, type VersionConversion } from './store-conversion.js';
export { OBJECT_META } from './builtin/schemas.js';
export { COMPONENTS } from './schemas/schema-builders.js';

export { createRegistry, SYSTEM_NAMESPACES, type Registry, type RegistryChange, type RegistryOptions } from './registry.js';
export { createStore, storageWatcher, type StoreOptions } from './store.js';
export { withWatchListDefaults } from './store-watch.js';
export { toStatusError } from './storage-errors.js';
export { IMMORTAL_NAMESPACES } from './namespace-lifecycle.js';
export { DEFAULT_PREFIX } from './keys.js';
export {
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  serviceIPRange,
  nodePortRange,
  repairServiceNetwork,
  newRepairState,
  type ServiceNetworkConfig,
} from './groups/core/service-network/index.js';
export { FINALIZER_ORPHAN, FINALIZER_FOREGROUND } from './store-delete.js';
export { FINALIZER_KUBERNETES } from './groups/core/namespaces.js';
export {
  customResourceDefinitions,
  apiextensionsDefinitions,
  startCrdController,
  customResourceDefinition,
  APIEXTENSIONS_GROUP,
  CLEANUP_FINALIZER,
  type CrdController,
  type CrdControllerOptions,
  type CustomResourceDefinition,
} from './apiextensions/index.js';
export { startInformer, type Informer, type InformerHandlers, type InformerOptions } from './informer/informer.js';
export { createWorkQueue, processQueue, type WorkQueue } from './informer/work-queue.js';
export { sleep } from './informer/sleep.js';
export { catalogDefinition } from './builtin/catalog-definition.js';
export { JSON_STORED_KINDS } from './json-stored-kinds.js';
export { checkFieldSelector, selectionPredicate } from './field-selection.js';
export { builtinSubresourceFactories } from './builtin/subresources.js';
export { quantityNanos } from './groups/core/pods/pod-qos.js';
