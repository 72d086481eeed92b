/**
 * kube-apiserver 1.32's bootstrap RBAC policy (generated/bootstrap-policy.json, `make
 * bootstrap-policy`): the ClusterRoles, ClusterRoleBindings and namespaced Roles and
 * RoleBindings kube reconciles at start when RBAC is on. Objects without apiVersion/kind.
 */
import { once, readGenerated } from './generated-file.js';

export interface BootstrapPolicy {
  readonly kubeVersion: string;
  readonly clusterRoles: readonly Record<string, unknown>[];
  readonly clusterRoleBindings: readonly Record<string, unknown>[];
  /** Roles by namespace. */
  readonly namespaceRoles: Readonly<Record<string, readonly Record<string, unknown>[]>>;
  readonly namespaceRoleBindings: Readonly<Record<string, readonly Record<string, unknown>[]>>;
}

export const bootstrapPolicy: () => BootstrapPolicy = once(() => readGenerated<BootstrapPolicy>('bootstrap-policy.json'));
