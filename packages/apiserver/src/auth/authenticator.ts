/**
 * kube's authentication chain: front-proxy request headers, x509 client certificates, then bearer tokens; the first that
 * recognises the request wins. A credential that is presented but invalid fails the request
 * (401) even when anonymous requests are allowed; a request with no credential at all is
 * system:anonymous when `--anonymous-auth` allows it, else 401.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ServiceAccountTokenAuthenticator } from '../serviceaccount/token-authenticator.js';
import { chainsTo, requestHeaderUser, type RequestHeaderConfig } from './request-header.js';
import { ANONYMOUS, CREDENTIAL_ID_KEY, withAuthenticatedGroup, type UserInfo } from './user.js';

/** A user, or a credential that was presented and refused (the reason is logged, never sent). */
export type Authentication = { readonly user: UserInfo } | { readonly failure: string };

export interface Authenticator {
  /** Never throws. */
  authenticate(req: IncomingMessage): Authentication;
  /**
   * A bearer token as TokenReview reviews it: the user (system:authenticated included) and
   * the audiences it is valid for among `audiences` (default --api-audiences), or kube's
   * error text.
   */
  reviewToken(token: string, audiences?: readonly string[]): TokenReviewResult;
}

export type TokenReviewResult = { readonly user: UserInfo; readonly audiences: readonly string[] } | { readonly error: string };

export interface AuthenticatorOptions {
  /** Users by static token (--token-auth-file). */
  readonly tokens?: ReadonlyMap<string, UserInfo>;
  /** Client certificates are checked against the HTTPS listener's CA (--client-ca-file). */
  readonly clientCertificates?: boolean;
  /**
   * The authorities of --client-ca-file, when the listener also trusts others (the front
   * proxy's): a user's certificate must chain to one of these.
   */
  readonly clientAuthorities?: readonly X509Certificate[];
  /** Front-proxy authentication (--requestheader-*). */
  readonly requestHeader?: RequestHeaderConfig;
  /** --anonymous-auth. */
  readonly anonymous: boolean;
  /** Service account JWTs (--service-account-issuer and keys). */
  readonly serviceAccountTokens?: ServiceAccountTokenAuthenticator;
  /** --api-audiences: static tokens are valid for these only, when set. */
  readonly apiAudiences?: readonly string[];
}

/** The ExtKeyUsage OID a client certificate must carry when it lists any (Go's x509 verify). */
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

type CertificateResult = UserInfo | { failure: string } | undefined;

/** One certificate check per TLS connection: every request on it presents the same one. */
const byConnection = new WeakMap<object, CertificateResult>();

function subjectValues(subject: string, key: string): string[] {
  return subject.split('\n').filter((line) => line.startsWith(`${key}=`)).map((line) => line.slice(key.length + 1));
}

function certificateUser(socket: TLSSocket, connection: object, authorities: readonly X509Certificate[] | undefined): CertificateResult {
  if (byConnection.has(connection)) return byConnection.get(connection);
  let result: CertificateResult;
  const peer = typeof socket.getPeerX509Certificate === 'function' ? socket.getPeerX509Certificate() : undefined;
  if (peer !== undefined) result = userOf(peer, socket, authorities);
  byConnection.set(connection, result);
  return result;
}

function userOf(cert: X509Certificate, socket: TLSSocket, authorities: readonly X509Certificate[] | undefined): CertificateResult {
  const identifier = `"${subjectValues(cert.subject, 'CN')[0] ?? ''}" [${cert.keyUsage?.join(',') ?? ''}]`;
  if (!socket.authorized) return { failure: `verifying certificate ${identifier} failed: ${String(socket.authorizationError)}` };
  // The listener trusts the front proxy's authority too; a user's certificate must come from the client CA.
  if (authorities !== undefined && chainsTo(socket, authorities) !== true) return { failure: `verifying certificate ${identifier} failed: x509: certificate signed by unknown authority` };
  if (cert.keyUsage !== undefined && cert.keyUsage.length > 0 && !cert.keyUsage.includes(CLIENT_AUTH_OID)) {
    return { failure: `verifying certificate ${identifier} failed: x509: certificate specifies an incompatible key usage` };
  }
  const name = subjectValues(cert.subject, 'CN')[0] ?? '';
  if (name === '') return undefined;
  const fingerprint = createHash('sha256').update(cert.raw).digest('hex');
  return withAuthenticatedGroup({ name, uid: '', groups: subjectValues(cert.subject, 'O'), extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] } });
}

/** The token of an `Authorization: Bearer <token>` header ("bearer" in any case), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.trim().split(/\s+/);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] === '' ? undefined : parts[1];
}

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const tokens = new Map<string, UserInfo>();
  for (const [token, user] of options.tokens ?? []) tokens.set(token, withAuthenticatedGroup(user));
  const implicit = options.apiAudiences ?? [];
  const bearerTokens = options.tokens !== undefined || options.serviceAccountTokens !== undefined;
  /** kube's union of token authenticators: the first that knows the token; failures are collected. */
  const reviewToken = (token: string, requested?: readonly string[]): TokenReviewResult => {
    const failures: string[] = [];
    const user = tokens.get(token);
    if (user !== undefined) {
      // Audience-agnostic tokens are valid for the apiserver's own audiences.
      if (implicit.length === 0) return { user, audiences: requested ?? [] };
      const wanted = requested !== undefined && requested.length > 0 ? requested : implicit;
      const audiences = implicit.filter((a) => wanted.includes(a));
      if (audiences.length > 0) return { user, audiences };
      failures.push(`token audiences ${goList(implicit)} is invalid for the target audiences ${goList(wanted)}`);
    }
    const result = options.serviceAccountTokens?.authenticate(token, requested);
    if (result !== undefined) {
      if ('user' in result) return result;
      failures.push(result.failure);
    }
    return { error: failures.length === 0 ? 'invalid bearer token' : `[invalid bearer token, ${failures.join(', ')}]` };
  };
  return {
    reviewToken,
    authenticate(req) {
      const failures: string[] = [];
      const socket = req.socket as TLSSocket;
      if (options.requestHeader !== undefined) {
        const result = requestHeaderUser(options.requestHeader, req);
        if (result !== undefined) {
          if ('failure' in result) failures.push(result.failure);
          else return { user: withAuthenticatedGroup(result.user) };
        }
      }
      if (options.clientCertificates === true && socket.encrypted === true) {
        // On HTTP/2 `req.socket` is a view of the connection's TLS socket made per stream: the
        // session is what stays the same over the connection's requests.
        const connection = 'stream' in req ? (req as unknown as { stream: { session?: object } }).stream.session ?? socket : socket;
        const result = certificateUser(socket, connection, options.clientAuthorities);
        if (result !== undefined) {
          if ('failure' in result) failures.push(result.failure);
          else return { user: result };
        }
      }
      if (bearerTokens) {
        const token = bearerToken(req.headers.authorization);
        if (token !== undefined) {
          const result = reviewToken(token);
          if ('user' in result) return { user: result.user };
          failures.push(result.error);
        }
      }
      if (failures.length > 0) return { failure: failures.length === 1 ? failures[0]! : `[${failures.join(', ')}]` };
      if (options.anonymous) return { user: ANONYMOUS };
      return { failure: 'no credentials' };
    },
  };
}

function goList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}
