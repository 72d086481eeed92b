/**
 * rbac.authorization.k8s.io: kube validates the names of roles and bindings as path segments
 * (ValidateRBACName), so kube's own `system:controller:...` names are valid.
 */
import { withBehaviour, type GroupOverrides } from '../../builtin/override.js';

const rbacName = withBehaviour({ nameValidation: 'PathSegmentName' });

export const rbacOverrides: GroupOverrides = { roles: rbacName, clusterroles: rbacName, rolebindings: rbacName, clusterrolebindings: rbacName };
