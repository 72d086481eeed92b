/**
 * The `authorizer` a policy's expressions see (kube's authorizer CEL library): each check asks
 * the apiserver's authorizer as the requesting user, or as the service account
 * `authorizer.serviceAccount(ns, name)` names, with any API version (`*`), as kube does.
 * Decisions are cached for the request (kube's caching authorizer).
 */
import { Authorizer, ResourceCheck, type AuthorizationCheck, type AuthorizationDecision } from '@kapi/cel';
import type { Attributes, AuthorizerResult } from '../../auth/authorizer.js';
import type { UserInfo } from '../../auth/user.js';

export type Authorize = (attributes: Attributes) => AuthorizerResult;

function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    uid: '',
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    extra: {},
  };
}

/** The `authorizer` value for one request by `user` (undefined: an unauthenticated request's empty user). */
export function requestAuthorizer(authorize: Authorize, user: UserInfo | undefined): Authorizer {
  const requester: UserInfo = user ?? { name: '', uid: '', groups: [], extra: {} };
  const cache = new Map<string, AuthorizationDecision>();
  return new Authorizer({
    authorize(check: AuthorizationCheck): AuthorizationDecision {
      const key = JSON.stringify(check);
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const asUser = check.serviceAccount !== undefined ? serviceAccountUser(check.serviceAccount.namespace, check.serviceAccount.name) : requester;
      let decision: AuthorizationDecision;
      try {
        const result = authorize({
          user: asUser,
          verb: check.verb,
          resourceRequest: check.path === undefined,
          namespace: check.namespace ?? '',
          apiGroup: check.apiGroup ?? '',
          apiVersion: '*',
          resource: check.resource ?? '',
          subresource: check.subresource ?? '',
          name: check.name ?? '',
          path: check.path ?? '',
        });
        decision = { decision: result.decision, reason: result.reason };
      } catch (err) {
        decision = { decision: 'NoOpinion', reason: '', error: err instanceof Error ? err.message : String(err) };
      }
      cache.set(key, decision);
      return decision;
    },
  });
}

/** What `authorizer.requestResource` checks: the request's own resource, subresource, namespace and name. */
export interface RequestedResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The `authorizer.requestResource` value for `requested`, checked through `authorizer`. */
export function requestResourceCheck(authorizer: Authorizer, requested: RequestedResource): ResourceCheck {
  return new ResourceCheck(authorizer, {
    apiGroup: requested.group,
    resource: requested.resource,
    subresource: requested.subresource,
    namespace: requested.namespace,
    name: requested.name,
  });
}
