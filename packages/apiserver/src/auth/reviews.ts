/**
 * The review APIs, served as create-only resources that store nothing (kube's REST storages
 * of authentication.k8s.io and authorization.k8s.io): SelfSubjectReview (`kubectl auth
 * whoami`), TokenReview, SubjectAccessReview, LocalSubjectAccessReview,
 * SelfSubjectAccessReview (`kubectl auth can-i`) and SelfSubjectRulesReview (`kubectl auth
 * can-i --list`). Each answers 201 with the posted object and its status.
 */
import { servedGroups } from '@kapi/catalog';
import { badRequest, fieldInvalid, invalid, nowRFC3339, type FieldError, type KubeObject } from '@kapi/machinery';
import { catalogDefinition, type Creater, type RequestContext, type RestResource } from '@kapi/registry';
import type { TokenReviewResult } from './authenticator.js';
import { fieldSelectorRequirements } from './attributes.js';
import type { Attributes, Authorizer, FieldSelectorRequirement } from './authorizer.js';
import type { PolicyRule } from './rbac-rules.js';
import { ANONYMOUS, type UserInfo } from './user.js';

export interface ReviewDependencies {
  readonly authorizer: Authorizer;
  /** The bearer-token authenticator, for TokenReview (none: every token is unknown). */
  readonly reviewToken?: (token: string, audiences?: readonly string[]) => TokenReviewResult;
}

type Body = Record<string, unknown>;

function objectBody(body: unknown, kind: string): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest(`not a ${kind}`);
  return body as Body;
}

function record(value: unknown): Body | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
}

/** The posted metadata as kube's typed round trip returns it (a zero creationTimestamp is written as null). */
function metadataOf(body: Body): Body {
  return { creationTimestamp: null, ...(record(body['metadata']) ?? {}) };
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function userOf(ctx: RequestContext): UserInfo {
  return ctx.user ?? ANONYMOUS;
}

/** kube's UserInfo of authentication.k8s.io/v1 (empty fields omitted). */
function userInfoJson(user: UserInfo): Body {
  return {
    ...(user.name !== '' ? { username: user.name } : {}),
    ...(user.uid !== '' ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function attributesOf(user: UserInfo, spec: Body): Attributes {
  const resource = record(spec['resourceAttributes']);
  if (resource !== undefined) {
    return {
      user,
      verb: str(resource['verb']),
      resourceRequest: true,
      namespace: str(resource['namespace']),
      apiGroup: str(resource['group']),
      apiVersion: str(resource['version']),
      resource: str(resource['resource']),
      subresource: str(resource['subresource']),
      name: str(resource['name']),
      path: '',
      ...reviewFieldSelector(record(resource['fieldSelector'])),
    };
  }
  const nonResource = record(spec['nonResourceAttributes']) ?? {};
  return { user, verb: str(nonResource['verb']), resourceRequest: false, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: str(nonResource['path']) };
}

/** A review's fieldSelector: its rawSelector, or requirements with one value for In (=) and NotIn (!=). */
function reviewFieldSelector(selector: Body | undefined): { fieldSelector?: readonly FieldSelectorRequirement[] } {
  if (selector === undefined) return {};
  const raw = fieldSelectorRequirements(str(selector['rawSelector']));
  if (raw !== undefined) return { fieldSelector: raw };
  const requirements: FieldSelectorRequirement[] = [];
  for (const requirement of Array.isArray(selector['requirements']) ? selector['requirements'] : []) {
    const r = record(requirement) ?? {};
    const values = strings(r['values']);
    if (values.length !== 1 || (r['operator'] !== 'In' && r['operator'] !== 'NotIn')) return {};
    requirements.push({ field: str(r['key']), operator: r['operator'] === 'In' ? '=' : '!=', value: values[0]! });
  }
  return requirements.length > 0 ? { fieldSelector: requirements } : {};
}

function attributeErrors(spec: Body): FieldError[] {
  const errors: FieldError[] = [];
  const hasResource = record(spec['resourceAttributes']) !== undefined;
  const hasNonResource = record(spec['nonResourceAttributes']) !== undefined;
  if (hasResource && hasNonResource) errors.push(fieldInvalid('spec.nonResourceAttributes', spec['nonResourceAttributes'], 'cannot be specified in combination with resourceAttributes'));
  if (!hasResource && !hasNonResource) errors.push(fieldInvalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  return errors;
}

function decide(authorizer: Authorizer, attributes: Attributes): Body {
  const result = authorizer.authorize(attributes);
  return {
    allowed: result.decision === 'Allow',
    ...(result.decision === 'Deny' ? { denied: true } : {}),
    ...(result.reason !== '' ? { reason: result.reason } : {}),
  };
}

function ruleJson(rule: PolicyRule, nonResource: boolean): Body {
  const list = (key: keyof PolicyRule) => ((rule[key] ?? []).length > 0 ? { [key]: [...rule[key]!] } : {});
  return nonResource ? { verbs: [...(rule.verbs ?? [])], ...list('nonResourceURLs') } : { verbs: [...(rule.verbs ?? [])], ...list('apiGroups'), ...list('resources'), ...list('resourceNames') };
}

function subjectAccessReview(deps: ReviewDependencies, local: boolean): Creater {
  const kind = local ? 'LocalSubjectAccessReview' : 'SubjectAccessReview';
  return {
    create(ctx, raw) {
      const body = objectBody(raw, kind);
      const spec = record(body['spec']) ?? {};
      const errors = attributeErrors(spec);
      const user = str(spec['user']);
      const groups = strings(spec['groups']);
      if (user === '' && groups.length === 0) errors.push(fieldInvalid('spec.user', user, 'at least one of user or group must be specified'));
      const namespace = str(record(body['metadata'])?.['namespace']);
      if (local) {
        const resourceNamespace = str(record(spec['resourceAttributes'])?.['namespace']);
        if (resourceNamespace !== namespace && namespace !== '' && errors.length === 0) {
          errors.push(fieldInvalid('spec.resourceAttributes.namespace', resourceNamespace, 'must match metadata.namespace'));
        }
        if (record(spec['nonResourceAttributes']) !== undefined) errors.push(fieldInvalid('spec.nonResourceAttributes', spec['nonResourceAttributes'], 'disallowed on this kind of request'));
      }
      if (errors.length > 0) return Promise.reject(invalid({ group: 'authorization.k8s.io', kind }, '', errors));
      if (local) {
        if (ctx.namespace === '') return Promise.reject(badRequest(`namespace is required on this type: ${ctx.namespace}`));
        if (ctx.namespace !== namespace) return Promise.reject(badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`));
      }
      const extra: Record<string, string[]> = {};
      for (const [key, values] of Object.entries(record(spec['extra']) ?? {})) extra[key] = strings(values);
      const subject: UserInfo = { name: user, uid: str(spec['uid']), groups, extra };
      const status = decide(deps.authorizer, attributesOf(subject, spec));
      return Promise.resolve({ ...body, apiVersion: 'authorization.k8s.io/v1', kind, metadata: metadataOf(body), spec, status } as unknown as KubeObject);
    },
  };
}

function creaters(deps: ReviewDependencies): Record<string, Creater> {
  return {
    'authentication.k8s.io/selfsubjectreviews': {
      create(ctx, raw) {
        objectBody(raw, 'SelfSubjectReview');
        const status = { userInfo: userInfoJson(userOf(ctx)) };
        return Promise.resolve({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { creationTimestamp: nowRFC3339() }, status } as unknown as KubeObject);
      },
    },
    'authentication.k8s.io/tokenreviews': {
      create(_ctx, raw) {
        const body = objectBody(raw, 'TokenReview');
        const spec = record(body['spec']) ?? {};
        const token = str(spec['token']);
        if (token === '') return Promise.reject(badRequest('token is required for TokenReview in authentication'));
        const result = deps.reviewToken?.(token, strings(spec['audiences'])) ?? { error: 'invalid bearer token' };
        const status = 'user' in result
          ? { ...(result.audiences.length > 0 ? { audiences: [...result.audiences] } : {}), authenticated: true, user: userInfoJson(result.user) }
          : { user: {}, error: result.error };
        return Promise.resolve({ ...body, apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: metadataOf(body), spec, status } as unknown as KubeObject);
      },
    },
    'authorization.k8s.io/subjectaccessreviews': subjectAccessReview(deps, false),
    'authorization.k8s.io/localsubjectaccessreviews': subjectAccessReview(deps, true),
    'authorization.k8s.io/selfsubjectaccessreviews': {
      create(ctx, raw) {
        const body = objectBody(raw, 'SelfSubjectAccessReview');
        const spec = record(body['spec']) ?? {};
        const errors = attributeErrors(spec);
        if (errors.length > 0) return Promise.reject(invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' }, '', errors));
        const status = decide(deps.authorizer, attributesOf(userOf(ctx), spec));
        return Promise.resolve({ ...body, apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: metadataOf(body), spec, status } as unknown as KubeObject);
      },
    },
    'authorization.k8s.io/selfsubjectrulesreviews': {
      create(ctx, raw) {
        const body = objectBody(raw, 'SelfSubjectRulesReview');
        const spec = record(body['spec']) ?? {};
        const namespace = str(spec['namespace']);
        if (namespace === '') return Promise.reject(badRequest('no namespace on request'));
        const rules = deps.authorizer.rulesFor(userOf(ctx), namespace);
        const status = {
          resourceRules: rules.resourceRules.map((r) => ruleJson(r, false)),
          nonResourceRules: rules.nonResourceRules.map((r) => ruleJson(r, true)),
          incomplete: rules.incomplete,
          ...(rules.evaluationError !== '' ? { evaluationError: rules.evaluationError } : {}),
        };
        return Promise.resolve({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: { creationTimestamp: null }, spec: {}, status } as unknown as KubeObject);
      },
    },
  };
}

/** The review resources, one per served version (create only), in the catalogue's order. */
export function reviewResources(deps: ReviewDependencies): RestResource[] {
  const byKey = creaters(deps);
  const out: RestResource[] = [];
  for (const group of servedGroups()) {
    const plurals = [...new Set(group.versions.flatMap((v) => v.resources.map((r) => r.resource)))];
    for (const plural of plurals) {
      const creater = byKey[`${group.group}/${plural}`];
      if (creater === undefined) continue;
      const definition = catalogDefinition(group, plural);
      for (const version of definition.versions.filter((v) => v.served)) out.push({ definition, version: version.name, creater });
    }
  }
  return out;
}
