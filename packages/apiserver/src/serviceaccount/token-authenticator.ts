/**
 * kube's service account token authenticator: a JWT signed by one of the
 * `--service-account-key-file` keys, issued by one of the `--service-account-issuer`s (or
 * the legacy issuer `kubernetes/serviceaccount` of Secret-based tokens), for one of the
 * requested audiences (default `--api-audiences`), not expired (a minute of leeway), whose
 * service account — and bound pod, secret or node — still exists with the same uid.
 */
import type { KubeObject } from '@kapi/machinery';
import { CREDENTIAL_ID_KEY, withAuthenticatedGroup, type UserInfo } from '../auth/user.js';
import type { VerificationKey } from './keys.js';
import { parseJwt, verifyJwt, type Claims } from './jwt.js';
import type { ObjectCache } from '@kapi/controllers';

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
/** Tokens are still accepted this long after `exp` (go-jose's default leeway). */
const LEEWAY_SECONDS = 60;
/**
 * A verified signature is remembered this long (kube caches whole token authentications for
 * 10 s; here only the signature, so that expiry, audiences and the account are checked on
 * every request), for at most this many tokens.
 */
const SIGNATURE_CACHE_MS = 10_000;
const SIGNATURE_CACHE_SIZE = 4096;

export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

export interface ServiceAccountObjects {
  readonly serviceAccounts: ObjectCache;
  readonly secrets: ObjectCache;
  readonly pods: ObjectCache;
  readonly nodes: ObjectCache;
}

export interface TokenAuthenticatorOptions {
  readonly issuers: readonly string[];
  readonly keys: readonly VerificationKey[];
  /** --api-audiences: what a token must be for when the caller asks for nothing else. */
  readonly apiAudiences: readonly string[];
  readonly objects: ServiceAccountObjects;
  /** --service-account-lookup: check that the service account and bound objects still exist (default true). */
  readonly lookup?: boolean;
  /** Seconds since the epoch; default the clock. */
  readonly now?: () => number;
}

/** A recognized token: the user and the audiences it was accepted for; or the reason it was refused. */
export type TokenResult = { readonly user: UserInfo; readonly audiences: readonly string[] } | { readonly failure: string };

export interface ServiceAccountTokenAuthenticator {
  /** undefined: not a token of these issuers (another authenticator may know it). */
  authenticate(token: string, audiences?: readonly string[]): TokenResult | undefined;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

function serviceAccountUser(namespace: string, name: string, uid: string, extra: Record<string, string[]>): UserInfo {
  return withAuthenticatedGroup({ name: serviceAccountUsername(namespace, name), uid, groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`], extra });
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const rec = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const uidOf = (obj: KubeObject): string => str(obj.metadata.uid);

function audiencesOf(claims: Claims): string[] {
  const aud = claims['aud'];
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

export function createServiceAccountTokenAuthenticator(options: TokenAuthenticatorOptions): ServiceAccountTokenAuthenticator {
  const issuers = new Set([...options.issuers, LEGACY_ISSUER]);
  const now = options.now ?? (() => Date.now() / 1000);
  const lookup = options.lookup ?? true;
  const { objects } = options;

  const legacy = (claims: Claims, token: string): TokenResult => {
    const namespace = str(claims['kubernetes.io/serviceaccount/namespace']);
    const secretName = str(claims['kubernetes.io/serviceaccount/secret.name']);
    const name = str(claims['kubernetes.io/serviceaccount/service-account.name']);
    const uid = str(claims['kubernetes.io/serviceaccount/service-account.uid']);
    if (namespace === '' || secretName === '' || name === '' || uid === '') return { failure: 'service account token claims are missing' };
    if (!lookup) return { user: serviceAccountUser(namespace, name, uid, {}), audiences: [] };
    const secret = objects.secrets.get(namespace, secretName);
    if (secret === undefined) return { failure: `secret ${namespace}/${secretName} is not found` };
    if (secret.metadata.deletionTimestamp !== undefined) return { failure: `token is bound to a secret that is being deleted: ${namespace}/${secretName}` };
    const stored = str(rec(secret['data'])['token']);
    if (Buffer.from(stored, 'base64').toString('utf8') !== token) return { failure: `token does not match the secret ${namespace}/${secretName}` };
    const sa = objects.serviceAccounts.get(namespace, name);
    if (sa === undefined) return { failure: `service account ${namespace}/${name} is not found` };
    if (sa.metadata.deletionTimestamp !== undefined) return { failure: `service account ${namespace}/${name} has been deleted` };
    if (uidOf(sa) !== uid) return { failure: `service account UID (${uidOf(sa)}) does not match claim (${uid})` };
    return { user: serviceAccountUser(namespace, name, uid, {}), audiences: [] };
  };

  /** Why a bound token's service account, pod, secret or node no longer holds; undefined when they do. */
  const boundObjectFailure = (k: Record<string, unknown>, namespace: string, name: string, uid: string, nowSeconds: number): string | undefined => {
    const sa = objects.serviceAccounts.get(namespace, name);
    if (sa === undefined) return `service account ${namespace}/${name} is not found`;
    if (sa.metadata.deletionTimestamp !== undefined) return `service account ${namespace}/${name} has been deleted`;
    if (uidOf(sa) !== uid) return `service account UID (${uidOf(sa)}) does not match claim (${uid})`;
    const podRef = rec(k['pod']);
    if (str(podRef['name']) !== '') {
      const pod = objects.pods.get(namespace, str(podRef['name']));
      if (pod === undefined) return `pod ${namespace}/${str(podRef['name'])} is not found`;
      if (uidOf(pod) !== str(podRef['uid'])) return `pod UID (${uidOf(pod)}) does not match claim (${str(podRef['uid'])})`;
      const deleted = pod.metadata.deletionTimestamp;
      if (typeof deleted === 'string' && Date.parse(deleted) / 1000 < nowSeconds - LEEWAY_SECONDS) return `token is bound to a pod that was deleted: ${namespace}/${str(podRef['name'])}`;
    }
    const secretRef = rec(k['secret']);
    if (str(secretRef['name']) !== '') {
      const secret = objects.secrets.get(namespace, str(secretRef['name']));
      if (secret === undefined) return `secret ${namespace}/${str(secretRef['name'])} is not found`;
      if (uidOf(secret) !== str(secretRef['uid'])) return `secret UID (${uidOf(secret)}) does not match claim (${str(secretRef['uid'])})`;
    }
    const nodeRef = rec(k['node']);
    // A node named through a pod need not exist (its uid is then empty); a node the token is bound to must.
    if (str(nodeRef['name']) !== '' && (str(podRef['name']) === '' || str(nodeRef['uid']) !== '')) {
      const node = objects.nodes.get('', str(nodeRef['name']));
      if (node === undefined) return `node ${str(nodeRef['name'])} is not found`;
      if (uidOf(node) !== str(nodeRef['uid'])) return `node UID (${uidOf(node)}) does not match claim (${str(nodeRef['uid'])})`;
    }
    return undefined;
  };

  const bound = (claims: Claims, nowSeconds: number): TokenResult => {
    const k = rec(claims['kubernetes.io']);
    const namespace = str(k['namespace']);
    const saRef = rec(k['serviceaccount']);
    const name = str(saRef['name']);
    const uid = str(saRef['uid']);
    if (namespace === '' || name === '' || uid === '') return { failure: 'service account token claims are missing' };
    const failure = lookup ? boundObjectFailure(k, namespace, name, uid, nowSeconds) : undefined;
    if (failure !== undefined) return { failure };
    const podRef = rec(k['pod']);
    const nodeRef = rec(k['node']);
    const extra: Record<string, string[]> = {};
    if (str(podRef['name']) !== '') {
      extra[POD_NAME_KEY] = [str(podRef['name'])];
      extra[POD_UID_KEY] = [str(podRef['uid'])];
    }
    if (str(nodeRef['name']) !== '') {
      extra[NODE_NAME_KEY] = [str(nodeRef['name'])];
      if (str(nodeRef['uid']) !== '') extra[NODE_UID_KEY] = [str(nodeRef['uid'])];
    }
    const jti = str(claims['jti']);
    if (jti !== '') extra[CREDENTIAL_ID_KEY] = [`JTI=${jti}`];
    return { user: serviceAccountUser(namespace, name, uid, extra), audiences: [] };
  };

  /** Claims of tokens whose signature was verified lately (RSA/ECDSA verification costs 0.1–0.4 ms). */
  const verified = new Map<string, { readonly claims: Claims; readonly until: number }>();
  const verifiedClaims = (token: string): Claims | 'foreign' | 'bad-signature' => {
    const cached = verified.get(token);
    if (cached !== undefined && cached.until > Date.now()) return cached.claims;
    const jwt = parseJwt(token);
    if (jwt === undefined || !issuers.has(str(jwt.claims['iss']))) return 'foreign';
    if (!verifyJwt(jwt, options.keys)) return 'bad-signature';
    if (verified.size >= SIGNATURE_CACHE_SIZE) verified.clear();
    verified.set(token, { claims: jwt.claims, until: Date.now() + SIGNATURE_CACHE_MS });
    return jwt.claims;
  };

  return {
    authenticate(token, requested) {
      const claims = verifiedClaims(token);
      if (claims === 'foreign') return undefined;
      if (claims === 'bad-signature') return { failure: 'invalid bearer token, square/go-jose: error in cryptographic primitive' };
      const issuer = str(claims['iss']);
      const nowSeconds = now();
      const exp = claims['exp'];
      const nbf = claims['nbf'];
      if (typeof exp === 'number' && nowSeconds > exp + LEEWAY_SECONDS) return { failure: 'service account token has expired' };
      if (typeof nbf === 'number' && nowSeconds + LEEWAY_SECONDS < nbf) return { failure: 'service account token is not valid yet' };
      let tokenAudiences = audiencesOf(claims);
      // Tokens without audiences (legacy Secret tokens) are for the apiserver only.
      if (tokenAudiences.length === 0) tokenAudiences = [...options.apiAudiences];
      const wanted = requested !== undefined && requested.length > 0 ? requested : options.apiAudiences;
      const audiences = tokenAudiences.filter((a) => wanted.includes(a));
      if (audiences.length === 0 && options.apiAudiences.length > 0) {
        return { failure: `token audiences ${goQuoted(tokenAudiences)} is invalid for the target audiences ${goQuoted([...wanted])}` };
      }
      const result = issuer === LEGACY_ISSUER ? legacy(claims, token) : bound(claims, nowSeconds);
      return 'failure' in result ? result : { user: result.user, audiences };
    },
  };
}

function goQuoted(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}
