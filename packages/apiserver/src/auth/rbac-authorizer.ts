/**
 * The RBAC mode: a request is allowed when a rule of a role bound to the user (a
 * ClusterRoleBinding anywhere, a RoleBinding in the request's namespace) allows it; otherwise
 * no opinion, with the lookups that failed as the reason (kube's `RBAC: ...`). Decisions are
 * cached per user and request attributes until the policy changes.
 */
import type { Attributes, Authorizer, AuthorizerResult } from './authorizer.js';
import type { RbacPolicy } from './rbac-policy.js';
import { describeBinding, matchingSubject, ruleAllows, type Binding, type PolicyRule } from './rbac-rules.js';
import type { UserInfo } from './user.js';

const MAX_CACHED_DECISIONS = 50_000;

function roleNotFound(kind: string, name: string): string {
  return `${kind}.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;
}

/**
 * Visits the rules bound to `user` (cluster-wide, then in `namespace`) until `visit` returns
 * false. Missing roles are reported through `missing` (kube's resolver errors).
 */
export function visitRules(
  policy: RbacPolicy,
  user: UserInfo,
  namespace: string,
  visit: (rule: PolicyRule, source: () => string) => boolean,
  missing: (message: string) => void,
  notFound: (kind: 'clusterrole' | 'role', name: string) => string = roleNotFound,
): void {
  const rulesOf = (binding: Binding, bindingNamespace: string): readonly PolicyRule[] | undefined => {
    const ref = binding.roleRef;
    if (ref.kind === 'ClusterRole') {
      const rules = policy.clusterRoleRules(ref.name);
      if (rules === undefined) missing(notFound('clusterrole', ref.name));
      return rules;
    }
    if (ref.kind === 'Role') {
      const rules = policy.roleRules(bindingNamespace, ref.name);
      if (rules === undefined) missing(notFound('role', ref.name));
      return rules;
    }
    missing(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
    return undefined;
  };
  for (const binding of policy.clusterRoleBindings()) {
    const subject = matchingSubject(user, binding.subjects, '');
    if (subject === undefined) continue;
    for (const rule of rulesOf(binding, '') ?? []) if (!visit(rule, () => describeBinding(binding, subject, ''))) return;
  }
  if (namespace === '') return;
  for (const binding of policy.roleBindings(namespace)) {
    const subject = matchingSubject(user, binding.subjects, namespace);
    if (subject === undefined) continue;
    for (const rule of rulesOf(binding, namespace) ?? []) if (!visit(rule, () => describeBinding(binding, subject, namespace))) return;
  }
}

/** utilerrors.NewAggregate's text: one message as is, several (deduplicated) in brackets. */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export function rbacAuthorizer(policy: RbacPolicy): Authorizer {
  let cache = new Map<string, AuthorizerResult>();
  let cachedGeneration = -1;
  return {
    authorize(attributes: Attributes): AuthorizerResult {
      if (cachedGeneration !== policy.generation || cache.size >= MAX_CACHED_DECISIONS) {
        cache = new Map();
        cachedGeneration = policy.generation;
      }
      const { user } = attributes;
      const key = `${user.name}\u0000${user.groups.join('\u0001')}\u0000${attributes.verb}\u0000${attributes.resourceRequest ? `${attributes.namespace}\u0000${attributes.apiGroup}\u0000${attributes.resource}\u0000${attributes.subresource}\u0000${attributes.name}` : `\u0002${attributes.path}`}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      let allowedBy: string | undefined;
      const errors: string[] = [];
      visitRules(
        policy,
        user,
        attributes.resourceRequest ? attributes.namespace : '',
        (rule, source) => {
          if (!ruleAllows(attributes, rule)) return true;
          allowedBy = source();
          return false;
        },
        (message) => errors.push(message),
      );
      // kube's reason for an allow (the audit annotation authorization.k8s.io/reason).
      const result: AuthorizerResult = allowedBy !== undefined
        ? { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy}` }
        : { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
      cache.set(key, result);
      return result;
    },
    rulesFor(user, namespace) {
      const resourceRules: PolicyRule[] = [];
      const nonResourceRules: PolicyRule[] = [];
      const errors: string[] = [];
      visitRules(
        policy,
        user,
        namespace,
        (rule) => {
          if ((rule.resources ?? []).length > 0) resourceRules.push({ verbs: rule.verbs ?? [], apiGroups: rule.apiGroups ?? [], resources: rule.resources ?? [], resourceNames: rule.resourceNames ?? [] });
          if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs ?? [] });
          return true;
        },
        (message) => errors.push(message),
      );
      return { resourceRules, nonResourceRules, incomplete: errors.length > 0, evaluationError: errors.length > 0 ? aggregate(errors) : '' };
    },
  };
}
