/** The core group (""): hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour, withIndexedFields } from '../../builtin/override.js';
import { configMapBehaviour } from './configmaps.js';
import { eventBehaviour } from './events.js';
import { namespaceBehaviour } from './namespaces.js';
import { nodeBehaviour } from './nodes.js';
import { POD_INDEXED_FIELDS, podNodeNameField } from './pod-index.js';
import { secretBehaviour } from './secrets.js';
import { serviceSelectableFields } from './service-fields.js';
import { serviceAccountBehaviour } from './serviceaccounts.js';

export const coreOverrides: GroupOverrides = {
  namespaces: withBehaviour(namespaceBehaviour),
  configmaps: withBehaviour(configMapBehaviour),
  secrets: withBehaviour(secretBehaviour),
  serviceaccounts: withBehaviour(serviceAccountBehaviour),
  events: withBehaviour(eventBehaviour),
  nodes: withBehaviour(nodeBehaviour),
  services: withBehaviour({ selectableFields: serviceSelectableFields }),
  pods: withIndexedFields(POD_INDEXED_FIELDS, withBehaviour(podNodeNameField)),
};
