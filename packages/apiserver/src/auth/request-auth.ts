/**
 * Authentication, impersonation and authorization of one request, in kube's filter order.
 * Synchronous: every input (certificates, tokens, the RBAC policy) is in memory.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestInfo, ResourceRequestInfo } from '../http/request-info.js';
import { requestAttributes } from './attributes.js';
import type { Authenticator } from './authenticator.js';
import type { Authorizer } from './authorizer.js';
import { forbiddenRequest, unauthorized } from './forbidden.js';
import { hasImpersonation, impersonate } from './impersonation.js';
import { ANONYMOUS, type UserInfo } from './user.js';

export interface RequestAuthorization {
  /** Undefined: authentication is off (no authenticator configured and anonymous requests refused), every request runs as system:anonymous. */
  readonly authenticator?: Authenticator;
  readonly authorizer: Authorizer;
  /** Called with the reason of a refused credential (kube logs it; the client sees only 401). */
  readonly onAuthenticationFailure?: (req: IncomingMessage, reason: string) => void;
  /**
   * Admission of an allowed request that needs nothing but its attributes (NodeRestriction's
   * pod subresources); throws a StatusError to refuse.
   */
  readonly admitRequest?: (user: UserInfo, info: ResourceRequestInfo) => void;
}

/** Told each step of `authorizeRequest` (the audit record follows them). */
export interface AuthSteps {
  /** Authentication succeeded (before impersonation). */
  authenticated?(user: UserInfo): void;
  /** The credential was refused (the request is answered 401). */
  authenticationFailed?(): void;
  impersonated?(user: UserInfo): void;
  /** The authorizer's decision on the request. */
  authorized?(allowed: boolean, reason: string): void;
}

/**
 * The user a request acts as, once allowed. Throws a 401 StatusError (no or a refused
 * credential), a 403 (impersonation or the request not allowed), or an ImpersonationError.
 */
export function authorizeRequest(auth: RequestAuthorization, req: IncomingMessage, info: RequestInfo, query: URLSearchParams, steps: AuthSteps = {}): UserInfo {
  let user: UserInfo = ANONYMOUS;
  if (auth.authenticator !== undefined) {
    const result = auth.authenticator.authenticate(req);
    if ('failure' in result) {
      auth.onAuthenticationFailure?.(req, result.failure);
      steps.authenticationFailed?.();
      throw unauthorized();
    }
    user = result.user;
  }
  steps.authenticated?.(user);
  if (hasImpersonation(req.rawHeaders)) {
    user = impersonate(user, req.headers, req.rawHeaders, auth.authorizer);
    steps.impersonated?.(user);
  }
  const attributes = requestAttributes(user, info, query);
  const decision = auth.authorizer.authorize(attributes);
  steps.authorized?.(decision.decision === 'Allow', decision.reason);
  if (decision.decision !== 'Allow') throw forbiddenRequest(attributes, decision.reason);
  if (info.isResourceRequest) auth.admitRequest?.(user, info);
  return user;
}
