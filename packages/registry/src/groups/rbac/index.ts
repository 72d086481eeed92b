/**
 * rbac.authorization.k8s.io: kube validates the names of roles and bindings as path segments
 * (ValidateRBACName), so kube's own `system:controller:...` names are valid. Bindings print
 * kubectl's columns; roles keep kube's default Name and Created At.
 */
import { withBehaviour, type GroupOverrides } from '../../builtin/override.js';
import { clusterRoleBindingColumns, roleBindingColumns } from './binding-columns.js';

const rbacName = withBehaviour({ nameValidation: 'PathSegmentName' });

export const rbacOverrides: GroupOverrides = {
  roles: rbacName,
  clusterroles: rbacName,
  rolebindings: withBehaviour({ nameValidation: 'PathSegmentName', printerColumns: roleBindingColumns }),
  clusterrolebindings: withBehaviour({ nameValidation: 'PathSegmentName', printerColumns: clusterRoleBindingColumns }),
};
