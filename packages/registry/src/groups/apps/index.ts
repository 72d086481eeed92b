/** apps: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { controllerRevisionBehaviour } from './controllerrevisions.js';
import { daemonSetOverride } from './daemonsets.js';
import { deploymentOverride } from './deployments.js';
import { replicaSetOverride } from './replicasets.js';
import { statefulSetOverride } from './statefulsets.js';

export const appsOverrides: GroupOverrides = {
  controllerrevisions: withBehaviour(controllerRevisionBehaviour),
  daemonsets: daemonSetOverride,
  deployments: deploymentOverride,
  replicasets: replicaSetOverride,
  statefulsets: statefulSetOverride,
};
