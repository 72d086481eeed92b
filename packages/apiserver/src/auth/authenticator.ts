/**
 * kube's authentication chain: x509 client certificates, then bearer tokens; the first that
 * recognises the request wins. A credential that is presented but invalid fails the request
 * (401) even when anonymous requests are allowed; a request with no credential at all is
 * system:anonymous when `--anonymous-auth` allows it, else 401.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { ANONYMOUS, CREDENTIAL_ID_KEY, withAuthenticatedGroup, type UserInfo } from './user.js';

/** A user, or a credential that was presented and refused (the reason is logged, never sent). */
export type Authentication = { readonly user: UserInfo } | { readonly failure: string };

export interface Authenticator {
  /** Never throws. */
  authenticate(req: IncomingMessage): Authentication;
  /** The user of a bearer token (TokenReview), system:authenticated included; undefined when unknown. */
  authenticateToken(token: string): UserInfo | undefined;
}

export interface AuthenticatorOptions {
  /** Users by static token (--token-auth-file). */
  readonly tokens?: ReadonlyMap<string, UserInfo>;
  /** Client certificates are checked against the HTTPS listener's CA (--client-ca-file). */
  readonly clientCertificates?: boolean;
  /** --anonymous-auth. */
  readonly anonymous: boolean;
}

/** The ExtKeyUsage OID a client certificate must carry when it lists any (Go's x509 verify). */
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

type CertificateResult = UserInfo | { failure: string } | undefined;

/** One certificate check per TLS connection: every request on it presents the same one. */
const byConnection = new WeakMap<TLSSocket, CertificateResult>();

function subjectValues(subject: string, key: string): string[] {
  return subject.split('\n').filter((line) => line.startsWith(`${key}=`)).map((line) => line.slice(key.length + 1));
}

function certificateUser(socket: TLSSocket): CertificateResult {
  if (byConnection.has(socket)) return byConnection.get(socket);
  let result: CertificateResult;
  const peer = typeof socket.getPeerX509Certificate === 'function' ? socket.getPeerX509Certificate() : undefined;
  if (peer !== undefined) result = userOf(peer, socket);
  byConnection.set(socket, result);
  return result;
}

function userOf(cert: X509Certificate, socket: TLSSocket): CertificateResult {
  const identifier = `"${subjectValues(cert.subject, 'CN')[0] ?? ''}" [${cert.keyUsage?.join(',') ?? ''}]`;
  if (!socket.authorized) return { failure: `verifying certificate ${identifier} failed: ${String(socket.authorizationError)}` };
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
  return {
    authenticateToken: (token) => tokens.get(token),
    authenticate(req) {
      const failures: string[] = [];
      const socket = req.socket as TLSSocket;
      if (options.clientCertificates === true && socket.encrypted === true) {
        const result = certificateUser(socket);
        if (result !== undefined) {
          if ('failure' in result) failures.push(result.failure);
          else return { user: result };
        }
      }
      if (options.tokens !== undefined) {
        const token = bearerToken(req.headers.authorization);
        if (token !== undefined) {
          const user = tokens.get(token);
          if (user !== undefined) return { user };
          failures.push('invalid bearer token');
        }
      }
      if (failures.length > 0) return { failure: failures.length === 1 ? failures[0]! : `[${failures.join(', ')}]` };
      if (options.anonymous) return { user: ANONYMOUS };
      return { failure: 'no credentials' };
    },
  };
}
