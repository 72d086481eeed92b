/**
 * RBAC escalation prevention, as kube's policy-based RBAC storages do it: a user may create
 * or update a Role or ClusterRole only when they already hold every permission it grants (or
 * may `escalate` roles), and a RoleBinding or ClusterRoleBinding only when they hold every
 * permission of the role it references (or may `bind` that role). Members of system:masters,
 * and requests without a user (authentication off, the insecure port), are never checked.
 * Installed as the registry's write guard of the four RBAC resources, whatever the
 * authorization modes (with AlwaysAllow, `escalate` and `bind` are always allowed).
 */
import { goQuote, notFound, StatusError, type GroupResource, type KubeObject } from '@kapi/machinery';
import type { RequestContext, ResourceDefinition, WriteGuard } from '@kapi/registry';
import type { Authorizer } from './authorizer.js';
import { aggregate, visitRules } from './rbac-authorizer.js';
import { RBAC_GROUP, type RbacPolicy } from './rbac-policy.js';
import type { PolicyRule, RoleRef } from './rbac-rules.js';
import { MASTERS_GROUP, type UserInfo } from './user.js';

/** What `*` on everything is: needed to set or change an aggregationRule. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const list = (values: readonly string[] | undefined | null): readonly string[] => values ?? [];

/** A rule split into rules of one group, resource, verb and name (or one URL and verb): kube's BreakdownRule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of list(rule.apiGroups)) {
    for (const resource of list(rule.resources)) {
      for (const verb of list(rule.verbs)) {
        const names = list(rule.resourceNames);
        if (names.length > 0) for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of list(rule.nonResourceURLs)) for (const verb of list(rule.verbs)) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourcesCovered(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes('*') || hasAll(owned, wanted)) return true;
  for (const path of wanted) {
    if (owned.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0 || !owned.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlsCovered(owned: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) => owned.some((o) => o === path || (o.endsWith('*') && path.startsWith(o.replace(/\*+$/, '')))));
}

/** Whether `owner` covers `sub` (a rule of one verb, resource and name): kube's ruleCovers. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerNames = list(owner.resourceNames);
  const subNames = list(sub.resourceNames);
  return (
    (list(owner.verbs).includes('*') || hasAll(list(owner.verbs), list(sub.verbs))) &&
    (list(owner.apiGroups).includes('*') || hasAll(list(owner.apiGroups), list(sub.apiGroups))) &&
    resourcesCovered(list(owner.resources), list(sub.resources)) &&
    urlsCovered(list(owner.nonResourceURLs), list(sub.nonResourceURLs)) &&
    (subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames))
  );
}

/** The parts of `wanted` that `owned` does not cover, broken down (kube's validation.Covers). */
export function uncoveredRules(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((sub) => !owned.some((o) => ruleCovers(o, sub)));
}

/** Merges broken-down rules that differ only by verb (kube's CompactRules). */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>();
  for (const rule of rules) {
    const names = list(rule.resourceNames);
    const isSimple = names.length <= 1 && list(rule.nonResourceURLs).length === 0 && list(rule.apiGroups).length === 1 && list(rule.resources).length === 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([list(rule.apiGroups)[0], list(rule.resources)[0], names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing !== undefined) existing.verbs.push(...list(rule.verbs));
    else simple.set(key, { apiGroups: [...list(rule.apiGroups)], resources: [...list(rule.resources)], verbs: [...list(rule.verbs)], ...(names.length > 0 ? { resourceNames: [...names] } : {}) });
  }
  return [...compacted, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
const quoteList = (values: readonly string[]): string => `[${values.map(goQuote).join(' ')}]`;

/** kube's rbac CompactString: `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (list(rule.apiGroups).length > 0) parts.push(`APIGroups:${quoteList(list(rule.apiGroups))}`);
  if (list(rule.resources).length > 0) parts.push(`Resources:${quoteList(list(rule.resources))}`);
  if (list(rule.nonResourceURLs).length > 0) parts.push(`NonResourceURLs:${quoteList(list(rule.nonResourceURLs))}`);
  if (list(rule.resourceNames).length > 0) parts.push(`ResourceNames:${quoteList(list(rule.resourceNames))}`);
  if (list(rule.verbs).length > 0) parts.push(`Verbs:${quoteList(list(rule.verbs))}`);
  return `{${parts.join(', ')}}`;
}


/** kube's apierrors.NewForbidden. */
function forbiddenWrite(resource: GroupResource, name: string, message: string): StatusError {
  const qualified = `${resource.resource}.${resource.group}`;
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    message: name === '' ? `${qualified} is forbidden: ${message}` : `${qualified} ${goQuote(name)} is forbidden: ${message}`,
    details: { ...(name !== '' ? { name } : {}), group: resource.group, kind: resource.resource },
  });
}

/** Why `rules` are not all held by `user` in `namespace` ("" = cluster-wide), or undefined when they are (kube's ConfirmNoEscalation). */
export function escalationError(policy: RbacPolicy | undefined, resource: GroupResource, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned: PolicyRule[] = [];
  const errors: string[] = [];
  // kube resolves through its storages, whose NotFound names the resource of the request (not the role's).
  const missingRole = (_kind: string, name: string) => `${resource.resource}.${resource.group} ${goQuote(name)} not found`;
  if (policy !== undefined) visitRules(policy, user, namespace, (rule) => (owned.push(rule), true), (message) => errors.push(message), missingRole);
  const missing = uncoveredRules(owned, rules);
  if (missing.length === 0) return undefined;
  const described = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user ${goQuote(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${described.join('\n')}`;
  if (errors.length > 0) message += `; resolution errors: [${aggregate(errors)}]`;
  return message;
}

/** Equality of JSON values where an empty array or object is the same as none (kube's semantic equality). */
function semanticallyEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticallyEqual(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return [...new Set([...Object.keys(ra), ...Object.keys(rb)])].every((k) => semanticallyEqual(ra[k], rb[k]));
  }
  return a === b;
}

/** The update changes nothing but what the garbage collector writes (kube's IsOnlyMutatingGCFields). */
export function onlyMutatesGcFields(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (old === undefined) return false;
  const metadata: Record<string, unknown> = { ...obj.metadata };
  for (const field of ['ownerReferences', 'finalizers', 'selfLink', 'managedFields']) {
    const value = (old.metadata as Record<string, unknown>)[field];
    if (value === undefined) delete metadata[field];
    else metadata[field] = value;
  }
  return semanticallyEqual({ ...obj, metadata }, old);
}

export interface EscalationDependencies {
  /** The full authorizer (every mode), asked about `escalate` and `bind`. */
  readonly authorizer: Authorizer;
  /** The RBAC objects (undefined when RBAC is not an authorization mode: the user then holds nothing). */
  readonly policy: () => RbacPolicy | undefined;
}

interface RoleObject extends KubeObject {
  readonly rules?: readonly PolicyRule[] | null;
  readonly aggregationRule?: { readonly clusterRoleSelectors?: readonly unknown[] | null } | null;
}

interface BindingObject extends KubeObject {
  readonly roleRef?: Partial<RoleRef> | null;
}

const hasAggregationRule = (role: RoleObject | undefined): boolean => (role?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;

/** kube's EscalationAllowed: no user on the request, or a member of system:masters. */
function escalationAllowed(user: UserInfo | undefined): boolean {
  return user === undefined || user.groups.includes(MASTERS_GROUP);
}

/** The write guard for `definition` when it is one of the RBAC resources, else undefined. */
export function escalationGuard(deps: EscalationDependencies, definition: ResourceDefinition): WriteGuard | undefined {
  if (definition.group !== RBAC_GROUP) return undefined;
  const resource: GroupResource = { group: RBAC_GROUP, resource: definition.plural };
  const allowed = (user: UserInfo, verb: string, apiGroup: string, plural: string, namespace: string, name: string): boolean =>
    deps.authorizer.authorize({ user, verb, resourceRequest: true, namespace, apiGroup, apiVersion: '*', resource: plural, subresource: '', name, path: '' }).decision === 'Allow';

  const guardRole = (clusterScoped: boolean): WriteGuard => (req, urlName, obj, old) => {
    const user = req.user;
    if (escalationAllowed(user) || user === undefined) return;
    // As kube, `escalate` is asked about the name in the URL (none on a POST).
    if (allowed(user, 'escalate', RBAC_GROUP, definition.plural, req.namespace, urlName)) return;
    if (onlyMutatesGcFields(obj, old)) return;
    const role = obj as RoleObject;
    const name = obj.metadata.name ?? '';
    const message = escalationError(deps.policy(), resource, user, req.namespace, role.rules ?? []);
    if (message !== undefined) throw forbiddenWrite(resource, name, message);
    if (clusterScoped && (hasAggregationRule(role) || hasAggregationRule(old as RoleObject | undefined))) {
      if (escalationError(deps.policy(), resource, user, req.namespace, FULL_AUTHORITY) !== undefined) {
        throw forbiddenWrite(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
  };

  const guardBinding: WriteGuard = (req: RequestContext, _urlName, obj, old) => {
    const user = req.user;
    if (escalationAllowed(user) || user === undefined) return;
    if (onlyMutatesGcFields(obj, old)) return;
    const ref = (obj as BindingObject).roleRef ?? {};
    const kind = ref.kind ?? '';
    const refName = ref.name ?? '';
    const name = obj.metadata.name ?? '';
    if ((kind === 'ClusterRole' || kind === 'Role') && allowed(user, 'bind', ref.apiGroup ?? '', kind === 'ClusterRole' ? 'clusterroles' : 'roles', req.namespace, refName)) return;
    const policy = deps.policy();
    let rules: readonly PolicyRule[] | undefined;
    if (kind === 'ClusterRole') rules = policy?.clusterRoleRules(refName);
    else if (kind === 'Role') rules = policy?.roleRules(req.namespace, refName);
    // kube returns the resolver's error as is: a plain error (500 without a reason) or its storage's NotFound, which names the binding's resource.
    else throw new StatusError({ code: 500, message: `unsupported role reference kind: ${goQuote(kind)}` });
    if (rules === undefined) throw notFound(resource, refName);
    const message = escalationError(policy, resource, user, req.namespace, rules);
    if (message !== undefined) throw forbiddenWrite(resource, name, message);
  };

  switch (definition.plural) {
    case 'roles':
      return guardRole(false);
    case 'clusterroles':
      return guardRole(true);
    case 'rolebindings':
    case 'clusterrolebindings':
      return guardBinding;
    default:
      return undefined;
  }
}
