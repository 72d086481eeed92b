/** rbac.authorization.k8s.io defaulting: a binding's role reference and its users' and groups' API group. */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';
import { recordAt } from '../../builtin/builtin-strategy.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** SetDefaults_(Cluster)RoleBinding and SetDefaults_Subject: users and groups are RBAC's, service accounts the core group's. */
function defaultBinding(obj: KubeObject): void {
  const roleRef = recordAt(obj, 'roleRef');
  if (roleRef !== undefined && (roleRef['apiGroup'] === undefined || roleRef['apiGroup'] === '')) roleRef['apiGroup'] = RBAC_GROUP;
  const subjects = (obj as Record<string, unknown>)['subjects'];
  if (!Array.isArray(subjects)) return;
  for (const subject of subjects) {
    if (typeof subject !== 'object' || subject === null) continue;
    const s = subject as Record<string, unknown>;
    if (s['apiGroup'] !== undefined && s['apiGroup'] !== '') continue;
    // A service account's group is the core group's "", which Go leaves out.
    if (s['kind'] === 'User' || s['kind'] === 'Group') s['apiGroup'] = RBAC_GROUP;
  }
}

export const rbacDefaults: GroupDefaults = {
  rolebindings: { decode: defaultBinding },
  clusterrolebindings: { decode: defaultBinding },
};
