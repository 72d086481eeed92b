export type { Controller, ControllerOwner, TermController } from './controller.js';
export { startControllers, type ControllerManagerOptions, type RunningControllers } from './controller-manager.js';
export {
  kapiControllers,
  resolveControllerFlag,
  UnknownControllerError,
  KUBE_CONTROLLER_MANAGER_CONTROLLERS,
  type ControllerInputs,
  type ControllerOptions,
  type ControllerSelection,
} from './catalogue.js';
export { startLeaderElection, microTime, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
export { namespaceController, type NamespaceController, type NamespaceControllerOptions } from './namespace-controller.js';
export { garbageCollector, type GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';
export { kubernetesServiceController, type KubernetesServiceController, type KubernetesServiceOptions, type MasterLeases } from './kubernetes-service.js';
export { masterLeases, advertisedAddress } from './master-leases.js';
export { startObjectCache, startResourceCache, EMPTY_OBJECT_CACHE, type ObjectCache } from './object-cache.js';
export {
  defaultServiceAccountController,
  rootCaPublisher,
  tokenSecretController,
  ROOT_CA_CONFIGMAP,
  SERVICE_ACCOUNT_TOKEN_TYPE,
  type ControllerCaches,
  type LegacyTokenSigner,
} from './serviceaccount-controllers.js';
export { clusterRoleAggregationController, type ClusterRoleObject, type ClusterRoleSource, type PolicyRule } from './clusterrole-aggregation.js';
export { ensureFlowcontrolBootstrap, flowcontrolBootstrapKeeper, FLOWCONTROL_GROUP } from './flowcontrol-bootstrap.js';
export { CONFIG_CONSUMER_FIELD_MANAGER, danglingCondition, flowcontrolConfigConsumer } from './flowcontrol-config-consumer.js';
export {
  evaluatorFor,
  isIgnoredResource,
  quotaMatches,
  quotaScopes,
  type Evaluator,
  type GroupResource,
  type ScopeRequirement,
} from './quota/evaluators.js';
export {
  addLists,
  lessThanOrEqual,
  mask,
  negativeNames,
  prettyPrint,
  prettyPrintNames,
  removeZeros,
  resourceListJson,
  resourceListOf,
  subtractNonNegative,
  listsEqual,
  type ResourceList,
} from './quota/resource-list.js';
export { pvcProtectionController, pvProtectionController, PVC_PROTECTION_FINALIZER, PV_PROTECTION_FINALIZER } from './storage-protection.js';
export { resourceQuotaController, calculateUsage, type ResourceQuotaControllerOptions } from './resourcequota-controller.js';
