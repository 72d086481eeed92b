export {
  startControllers,
  startLeaderElection,
  namespaceController,
  garbageCollector,
  microTime,
  type ControllerOptions,
  type TermController,
  type RunningControllers,
  type LeaderElector,
  type LeaderElectionOptions,
  type GarbageCollector,
  type GarbageCollectorOptions,
  type NamespaceController,
  type NamespaceControllerOptions,
  startKubernetesServiceController,
  type KubernetesServiceController,
  type KubernetesServiceOptions,
  type MasterLeases,
} from './controller-manager.js';
export { masterLeases, advertisedAddress } from './master-leases.js';
export { startObjectCache, EMPTY_OBJECT_CACHE, type ObjectCache } from './object-cache.js';
export {
  defaultServiceAccountController,
  rootCaPublisher,
  tokenSecretController,
  ROOT_CA_CONFIGMAP,
  SERVICE_ACCOUNT_TOKEN_TYPE,
  type ControllerCaches,
  type LegacyTokenSigner,
} from './serviceaccount-controllers.js';
export { startAggregationController, type AggregationController, type ClusterRoleObject, type ClusterRoleSource, type PolicyRule } from './clusterrole-aggregation.js';
export { ensureFlowcontrolBootstrap, keepFlowcontrolBootstrap, FLOWCONTROL_GROUP, type FlowcontrolBootstrapKeeper } from './flowcontrol-bootstrap.js';
