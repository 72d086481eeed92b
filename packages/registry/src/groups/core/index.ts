/** The core group (""): hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { configMapBehaviour } from './configmaps.js';
import { eventBehaviour } from './events.js';
import { namespaceBehaviour } from './namespaces.js';
import { bindingsOverride, podOverride } from './pods/index.js';
import { secretBehaviour } from './secrets.js';
import { serviceAccountBehaviour } from './serviceaccounts.js';

export const coreOverrides: GroupOverrides = {
  namespaces: withBehaviour(namespaceBehaviour),
  configmaps: withBehaviour(configMapBehaviour),
  secrets: withBehaviour(secretBehaviour),
  serviceaccounts: withBehaviour(serviceAccountBehaviour),
  events: withBehaviour(eventBehaviour),
  pods: podOverride,
  bindings: bindingsOverride,
};
