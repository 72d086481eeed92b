/**
 * kube's front-proxy authentication (`--requestheader-*`): a request whose client certificate
 * chains to `--requestheader-client-ca-file` (and, when `--requestheader-allowed-names` is
 * set, whose CN is one of them) is the user its headers name: the first non-empty
 * username header, every value of the group headers, and extra values from headers with an
 * extra prefix (key lower-cased and %-unescaped). Without a username header the request is
 * not this authenticator's (the next one is asked); a certificate that does not verify or
 * is not allowed is a failure, which the chain reports only if nothing else succeeds.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from './user.js';

export interface RequestHeaderConfig {
  /** The authorities of --requestheader-client-ca-file. */
  readonly authorities: readonly X509Certificate[];
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  /** --requestheader-uid-headers (RemoteRequestHeaderUID). */
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

/** The certificates of a PEM bundle (throws when it holds none). */
export function parseCertificateBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates');
  return blocks.map((block) => new X509Certificate(block));
}

type PeerChain = { raw: Buffer; issuerCertificate?: PeerChain };

/**
 * Whether the connection's client certificate chains (through the intermediates it sent) to
 * one of `authorities`, within its validity period. Undefined when it sent no certificate.
 */
export function chainsTo(socket: TLSSocket, authorities: readonly X509Certificate[]): boolean | undefined {
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const peer = socket.getPeerCertificate(true) as unknown as PeerChain | null;
  if (peer === null || peer.raw === undefined) return undefined;
  const now = Date.now();
  const seen = new Set<PeerChain>();
  for (let link: PeerChain | undefined = peer; link !== undefined && !seen.has(link); link = link.issuerCertificate) {
    seen.add(link);
    const cert = new X509Certificate(link.raw);
    if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) return false;
    for (const authority of authorities) {
      if (cert.raw.equals(authority.raw)) return true;
      if (cert.checkIssued(authority) && cert.verify(authority.publicKey)) return true;
    }
  }
  return false;
}

/** Every value of the named headers, in request order (repeated headers stay separate). */
function headerValues(req: IncomingMessage, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    for (const value of req.headersDistinct[name.toLowerCase()] ?? []) if (value !== '') out.push(value);
  }
  return out;
}

function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Results per TLS connection: whether its certificate may assert users in headers. */
const verifiedProxies = new WeakMap<TLSSocket, { failure: string } | 'trusted' | undefined>();

/** The front proxy's user, a failure, or undefined when the request is not a front-proxy request. */
export function requestHeaderUser(config: RequestHeaderConfig, req: IncomingMessage): { user: UserInfo } | { failure: string } | undefined {
  const socket = req.socket as TLSSocket;
  if (socket.encrypted !== true) return undefined;
  let verified = verifiedProxies.get(socket);
  if (!verifiedProxies.has(socket)) {
    const chained = chainsTo(socket, config.authorities);
    const cn = socket.getPeerX509Certificate?.()?.subject.split('\n').find((l) => l.startsWith('CN='))?.slice(3) ?? '';
    if (chained === undefined) verified = undefined;
    else if (!chained) verified = { failure: 'x509: certificate signed by unknown authority' };
    else if (config.allowedNames.length > 0 && !config.allowedNames.includes(cn)) verified = { failure: `x509: subject with cn=${cn} is not in the allowed list` };
    else verified = 'trusted';
    verifiedProxies.set(socket, verified);
  }
  if (verified === undefined) return undefined;
  if (verified !== 'trusted') return verified;
  const first = (headers: readonly string[]): string => {
    for (const header of headers) {
      const value = req.headersDistinct[header.toLowerCase()]?.[0] ?? '';
      if (value !== '') return value;
    }
    return '';
  };
  const name = first(config.usernameHeaders);
  if (name === '') return undefined;
  const extra: Record<string, string[]> = {};
  for (const prefix of config.extraHeaderPrefixes) {
    const lowerPrefix = prefix.toLowerCase();
    for (const [header, values] of Object.entries(req.headersDistinct)) {
      if (!header.startsWith(lowerPrefix) || values === undefined) continue;
      const key = unescapeKey(header.slice(lowerPrefix.length));
      (extra[key] ??= []).push(...values);
    }
  }
  return { user: { name, uid: first(config.uidHeaders), groups: headerValues(req, config.groupHeaders), extra } };
}
