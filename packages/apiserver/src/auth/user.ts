/**
 * kube's user.Info: who a request acts as, once authenticated (and impersonated). Read-only:
 * one value may be shared by every request on a connection.
 */
export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';
/** Members are allowed everything by every authorization mode (kube's privileged group). */
export const MASTERS_GROUP = 'system:masters';
/** The extra key holding the credential's identifier (an x509 fingerprint). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

export const ANONYMOUS: UserInfo = Object.freeze({ name: ANONYMOUS_USER, uid: '', groups: Object.freeze([UNAUTHENTICATED_GROUP]), extra: Object.freeze({}) });

/** kube's AuthenticatedGroupAdder: a named user not in system:unauthenticated also gets system:authenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER || user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
