/** The core group (""): hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour, withIndexedFields } from '../../builtin/override.js';
import { configMapBehaviour } from './configmaps.js';
import { endpointsBehaviour } from './endpoints.js';
import { eventBehaviour } from './events.js';
import { namespaceBehaviour } from './namespaces.js';
import { nodeBehaviour } from './nodes.js';
import { POD_INDEXED_FIELDS } from './pods/pod-index.js';
import { bindingsOverride, podOverride } from './pods/index.js';
import { podTemplateBehaviour } from './podtemplates.js';
import { replicationControllerOverride } from './replicationcontrollers.js';
import { secretBehaviour } from './secrets.js';
import { serviceAccountBehaviour } from './serviceaccounts.js';
import { serviceBehaviour } from './services.js';
import { persistentVolumeClaimColumns, persistentVolumeColumns, resourceQuotaColumns } from './storage-columns.js';

export const coreOverrides: GroupOverrides = {
  namespaces: withBehaviour(namespaceBehaviour),
  configmaps: withBehaviour(configMapBehaviour),
  secrets: withBehaviour(secretBehaviour),
  serviceaccounts: withBehaviour(serviceAccountBehaviour),
  events: withBehaviour(eventBehaviour),
  services: withBehaviour(serviceBehaviour),
  endpoints: withBehaviour(endpointsBehaviour),
  nodes: withBehaviour(nodeBehaviour),
  pods: withIndexedFields(POD_INDEXED_FIELDS, podOverride),
  bindings: bindingsOverride,
  podtemplates: withBehaviour(podTemplateBehaviour),
  replicationcontrollers: replicationControllerOverride,
  persistentvolumes: withBehaviour({ printerColumns: persistentVolumeColumns }),
  persistentvolumeclaims: withBehaviour({ printerColumns: persistentVolumeClaimColumns }),
  resourcequotas: withBehaviour({ printerColumns: resourceQuotaColumns }),
};
