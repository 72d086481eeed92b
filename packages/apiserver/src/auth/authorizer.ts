/**
 * kube's authorizer contract and the simple modes. A request's attributes are checked by each
 * mode of `--authorization-mode` in order; the first Allow or Deny decides, and when every
 * mode has no opinion the request is forbidden with their reasons. Members of system:masters
 * are allowed before any mode is asked (kube's privileged-group authorizer).
 */
import type { PolicyRule } from './rbac-rules.js';
import { MASTERS_GROUP, type UserInfo } from './user.js';

/** kube's authorizer.Attributes. */
export interface Attributes {
  readonly user: UserInfo;
  /** Resource verbs (get, list, watch, create, ...) or lower-case HTTP methods for paths. */
  readonly verb: string;
  readonly resourceRequest: boolean;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The URL path of a non-resource request. */
  readonly path: string;
  /** A list's or watch's field selector requirements (kube's GetFieldSelector), when it has one that parses. */
  readonly fieldSelector?: readonly FieldSelectorRequirement[];
}

export interface FieldSelectorRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizerResult {
  readonly decision: Decision;
  readonly reason: string;
}

/** What a user may do in a namespace (kube's RuleResolver, for SelfSubjectRulesReview). */
export interface UserRules {
  readonly resourceRules: readonly PolicyRule[];
  readonly nonResourceRules: readonly PolicyRule[];
  /** Some rules could not be evaluated (a missing role); `evaluationError` says which. */
  readonly incomplete: boolean;
  readonly evaluationError: string;
}

export interface Authorizer {
  /** Never throws; a failed lookup is a NoOpinion whose reason says why. */
  authorize(attributes: Attributes): AuthorizerResult;
  rulesFor(user: UserInfo, namespace: string): UserRules;
}

const NO_RULES: UserRules = { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' };

/** The modes kapi builds; `ABAC` and `Webhook` are kube's too, and a startup error here. */
export const BUILT_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node'] as const;
export const KUBE_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof BUILT_MODES)[number];

export const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => ({ resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false, evaluationError: '' }),
};
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }), rulesFor: () => NO_RULES };

/** kube's union of the configured modes, behind the privileged-group check. */
export function unionAuthorizer(modes: readonly Authorizer[]): Authorizer {
  return {
    authorize(attributes) {
      if (attributes.user.groups.includes(MASTERS_GROUP)) return { decision: 'Allow', reason: '' };
      const reasons: string[] = [];
      for (const mode of modes) {
        const result = mode.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
        if (result.reason !== '') reasons.push(result.reason);
      }
      return { decision: 'NoOpinion', reason: reasons.join('\n') };
    },
    rulesFor(user, namespace) {
      const all = modes.map((m) => m.rulesFor(user, namespace));
      const errors = all.map((r) => r.evaluationError).filter((e) => e !== '');
      return {
        resourceRules: all.flatMap((r) => r.resourceRules),
        nonResourceRules: all.flatMap((r) => r.nonResourceRules),
        incomplete: all.some((r) => r.incomplete),
        evaluationError: errors.length <= 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`,
      };
    },
  };
}
