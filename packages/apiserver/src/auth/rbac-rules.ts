/**
 * RBAC's pure parts: the rbac.authorization.k8s.io/v1 shapes kapi reads, whether a binding's
 * subjects include a user, and whether a rule allows a request (kube's RuleAllows).
 */
import type { Attributes } from './authorizer.js';
import type { UserInfo } from './user.js';

import type { PolicyRule } from '@kapi/controllers';

/** A ClusterRole's or Role's rule as stored (one shape, shared with the aggregation controller). */
export type { PolicyRule };

export interface Subject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface RoleRef {
  readonly apiGroup?: string;
  readonly kind: string;
  readonly name: string;
}

export interface Binding {
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly subjects?: readonly Subject[];
  readonly roleRef: RoleRef;
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** Whether one of `subjects` names the user (a ServiceAccount without a namespace takes the binding's). */
export function appliesTo(user: UserInfo, subjects: readonly Subject[] | undefined, bindingNamespace: string): boolean {
  return matchingSubject(user, subjects, bindingNamespace) !== undefined;
}

/** The first of `subjects` that names the user, if any. */
export function matchingSubject(user: UserInfo, subjects: readonly Subject[] | undefined, bindingNamespace: string): Subject | undefined {
  for (const subject of subjects ?? []) {
    switch (subject.kind) {
      case 'User':
        if (user.name === subject.name) return subject;
        break;
      case 'Group':
        if (user.groups.includes(subject.name)) return subject;
        break;
      case 'ServiceAccount': {
        const namespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
        if (namespace !== '' && user.name === `${SERVICE_ACCOUNT_PREFIX}${namespace}:${subject.name}`) return subject;
        break;
      }
    }
  }
  return undefined;
}

/** kube's text for the binding that granted a rule: `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`. */
export function describeBinding(binding: Binding, subject: Subject, bindingNamespace: string): string {
  const who = subject.kind === 'ServiceAccount'
    ? `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace}`)}`
    : `${subject.kind} ${JSON.stringify(subject.name)}`;
  const name = bindingNamespace === '' ? `ClusterRoleBinding ${JSON.stringify(binding.metadata.name)}` : `RoleBinding ${JSON.stringify(`${binding.metadata.name}/${bindingNamespace}`)}`;
  return `${name} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${who}`;
}

function includesOrAll(values: readonly string[] | undefined, wanted: string): boolean {
  if (values === undefined) return false;
  for (const value of values) if (value === '*' || value === wanted) return true;
  return false;
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const resource of rule.resources ?? []) {
    if (resource === '*' || resource === combined) return true;
    if (subresource !== '' && resource.length === subresource.length + 2 && resource.startsWith('*/') && resource.endsWith(subresource)) return true;
  }
  return false;
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** kube's RuleAllows. */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!includesOrAll(rule.verbs, attributes.verb)) return false;
  if (!attributes.resourceRequest) return nonResourceUrlMatches(rule, attributes.path);
  const combined = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  if (!includesOrAll(rule.apiGroups, attributes.apiGroup)) return false;
  if (!resourceMatches(rule, combined, attributes.subresource)) return false;
  const names = rule.resourceNames;
  return names === undefined || names.length === 0 || names.includes(attributes.name);
}
