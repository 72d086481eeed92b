/**
 * kube's audit policy (audit.k8s.io/v1 Policy): loading and validating the file given to
 * --audit-policy-file, and choosing a request's level. Rules are tried in order; the first
 * that matches decides; no match means level None.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Attributes } from '../auth/authorizer.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

export interface GroupResources {
  readonly group: string;
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface PolicyRule {
  readonly level: Level;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

export interface Policy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages: readonly Stage[];
  readonly omitManagedFields: boolean;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  readonly level: Level;
  readonly omitStages: ReadonlySet<Stage>;
  readonly omitManagedFields: boolean;
}

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

/** The level order: a level is at least `other` when it comes at or after it. */
export function levelAtLeast(level: Level, other: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(other);
}

type Raw = Record<string, unknown>;

function stringList(value: unknown, path: string, errors: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    errors.push(`${path}: Invalid value: ${JSON.stringify(value)}: must be a list of strings`);
    return [];
  }
  return value as string[];
}

function stages(value: unknown, path: string, errors: string[]): Stage[] {
  const list = stringList(value, path, errors);
  list.forEach((stage, i) => {
    if (!(STAGES as readonly string[]).includes(stage)) errors.push(`${path}[${i}]: Invalid value: ${JSON.stringify(stage)}: allowed stages are ${STAGES.join(',')}`);
  });
  return list as Stage[];
}

function optionalBool(value: unknown, path: string, errors: string[]): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    errors.push(`${path}: Invalid value: ${JSON.stringify(value)}: must be a boolean`);
    return undefined;
  }
  return value;
}

function rule(raw: unknown, path: string, errors: string[]): PolicyRule | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(`${path}: Invalid value: ${JSON.stringify(raw)}: must be an object`);
    return undefined;
  }
  const r = raw as Raw;
  const level = r['level'];
  if (typeof level !== 'string' || !(LEVELS as readonly string[]).includes(level)) {
    if (level === undefined || level === '') errors.push(`${path}.level: Required value`);
    else errors.push(`${path}.level: Invalid value: ${JSON.stringify(level)}: allowed levels are ${LEVELS.join(',')}`);
  }
  const resources: GroupResources[] = [];
  const rawResources = r['resources'];
  if (rawResources !== undefined && rawResources !== null) {
    if (!Array.isArray(rawResources)) errors.push(`${path}.resources: Invalid value: ${JSON.stringify(rawResources)}: must be a list`);
    else {
      rawResources.forEach((g: unknown, i: number) => {
        const gr = (g ?? {}) as Raw;
        const group = gr['group'] ?? '';
        if (typeof group !== 'string') {
          errors.push(`${path}.resources[${i}].group: Invalid value: ${JSON.stringify(group)}: must be a string`);
          return;
        }
        const names = stringList(gr['resources'], `${path}.resources[${i}].resources`, errors);
        const resourceNames = stringList(gr['resourceNames'], `${path}.resources[${i}].resourceNames`, errors);
        if (group.includes('/')) errors.push(`${path}.resources[${i}].group: Invalid value: ${JSON.stringify(group)}: group name must not contain "/"`);
        if (resourceNames.length > 0) {
          names.forEach((name, j) => {
            if (name === '*' || name.startsWith('*/') || name.endsWith('/*')) {
              errors.push(`${path}.resources[${i}].resourceNames: Invalid value: ${JSON.stringify(resourceNames)}: using resource names with a wildcard resource is not allowed (resources[${j}]: ${JSON.stringify(name)})`);
            }
          });
        }
        resources.push({ group, resources: names, resourceNames });
      });
    }
  }
  const namespaces = stringList(r['namespaces'], `${path}.namespaces`, errors);
  const nonResourceURLs = stringList(r['nonResourceURLs'], `${path}.nonResourceURLs`, errors);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) {
    errors.push(`${path}.nonResourceURLs: Invalid value: ${JSON.stringify(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  nonResourceURLs.forEach((url, i) => {
    if (url === '') errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: "": non-resource URL rules may not be empty`);
    else if (url !== '*' && !url.startsWith('/')) errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
    else if (url.slice(0, -1).includes('*')) errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}: non-resource URL wildcards ('*') must be the final character of the rule`);
  });
  const omitManagedFields = optionalBool(r['omitManagedFields'], `${path}.omitManagedFields`, errors);
  return {
    level: level as Level,
    users: stringList(r['users'], `${path}.users`, errors),
    userGroups: stringList(r['userGroups'], `${path}.userGroups`, errors),
    verbs: stringList(r['verbs'], `${path}.verbs`, errors),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: stages(r['omitStages'], `${path}.omitStages`, errors),
    ...(omitManagedFields !== undefined ? { omitManagedFields } : {}),
  };
}

/** Parses and validates a policy document (YAML or JSON). Throws PolicyError with kube-style field errors. */
export function parsePolicy(text: string, source: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new PolicyError(`failed decoding file ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new PolicyError(`failed decoding file ${JSON.stringify(source)}: not a Policy object`);
  const raw = doc as Raw;
  const apiVersion = raw['apiVersion'];
  const kind = raw['kind'];
  if (kind !== 'Policy' || apiVersion !== 'audit.k8s.io/v1') {
    throw new PolicyError(`failed decoding file ${JSON.stringify(source)}: no kind ${JSON.stringify(kind ?? '')} is registered for version ${JSON.stringify(apiVersion ?? '')} (kapi reads audit.k8s.io/v1 Policy)`);
  }
  const errors: string[] = [];
  const rawRules = raw['rules'];
  const rules: PolicyRule[] = [];
  if (rawRules !== undefined && rawRules !== null && !Array.isArray(rawRules)) errors.push(`rules: Invalid value: ${JSON.stringify(rawRules)}: must be a list`);
  else (rawRules ?? []).forEach((r: unknown, i: number) => {
    const parsed = rule(r, `rules[${i}]`, errors);
    if (parsed !== undefined) rules.push(parsed);
  });
  const omitStages = stages(raw['omitStages'], 'omitStages', errors);
  const omitManagedFields = optionalBool(raw['omitManagedFields'], 'omitManagedFields', errors) ?? false;
  if (errors.length > 0) throw new PolicyError(`invalid audit policy file ${JSON.stringify(source)}: [${errors.join(', ')}]`);
  if (rules.length === 0) throw new PolicyError(`loaded illegal policy with 0 rules from file ${source}`);
  return { rules, omitStages, omitManagedFields };
}

/** Reads --audit-policy-file. Throws PolicyError (`loading audit policy file: ...`). */
export function loadPolicyFile(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PolicyError(`loading audit policy file: failed to read file path ${JSON.stringify(path)}: open ${path}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
  try {
    return parsePolicy(text, path);
  } catch (err) {
    throw new PolicyError(`loading audit policy file: ${(err as Error).message}`);
  }
}

function matchesResource(rule: PolicyRule, a: Attributes): boolean {
  if (!a.resourceRequest) return false;
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(a.namespace)) return false;
  if (rule.resources.length === 0) return true;
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  for (const gr of rule.resources) {
    if (gr.group !== a.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource !== '' && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

function matchesNonResource(rule: PolicyRule, a: Attributes): boolean {
  if (a.resourceRequest) return false;
  return rule.nonResourceURLs.some((spec) => spec === '*' || spec === a.path || (spec.endsWith('*') && a.path.startsWith(spec.slice(0, -1))));
}

function matches(rule: PolicyRule, a: Attributes): boolean {
  if (rule.users.length > 0 && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups.length > 0 && !a.user.groups.some((g) => rule.userGroups.includes(g))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return matchesResource(rule, a);
  if (rule.nonResourceURLs.length > 0) return matchesNonResource(rule, a);
  return true;
}

const NOTHING: RequestAuditConfig = { level: 'None', omitStages: new Set(), omitManagedFields: false };

/** The first matching rule's level, stages to omit (the policy's and the rule's) and managed-fields choice. */
export function evaluatePolicy(policy: Policy, attributes: Attributes): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (!matches(rule, attributes)) continue;
    return {
      level: rule.level,
      omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
    };
  }
  return NOTHING;
}
