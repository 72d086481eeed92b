/**
 * Service account issuer discovery (kube's ServiceAccountIssuerDiscovery): an OpenID Connect
 * provider configuration at `/.well-known/openid-configuration` and the verification keys
 * at `/openid/v1/jwks`, so that other parties can check kapi's tokens. Served only when the
 * first issuer is an https URL, as kube does. GET only (HEAD and others: 405); cacheable
 * for an hour. Who may read them is RBAC's business (system:service-account-issuer-discovery).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotRegistered, pageNotFound, pathNotFound } from '../http/generic-errors.js';
import type { VerificationKey } from './keys.js';

export type DiscoveryRoute = (req: IncomingMessage, res: ServerResponse, url: { readonly segments: readonly string[] }) => void;

/** The path's segments without a trailing empty one (kube serves `/openid/v1/jwks/` too). */
const segmentsOf = (url: { readonly segments: readonly string[] }) => (url.segments.at(-1) === '' ? url.segments.slice(0, -1) : url.segments);

function publicJwk(key: VerificationKey): Record<string, unknown> {
  const jwk = key.key.export({ format: 'jwk' }) as Record<string, string>;
  if (jwk['kty'] === 'RSA') return { use: 'sig', kty: 'RSA', kid: key.kid, alg: key.algorithm, n: jwk['n'], e: jwk['e'] };
  return { use: 'sig', kty: 'EC', kid: key.kid, crv: jwk['crv'], alg: key.algorithm, x: jwk['x'], y: jwk['y'] };
}

function write(res: ServerResponse, contentType: string, body: string): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'public, max-age=3600' });
  res.end(body);
}

/** The two routes by first path segment, or none when the issuer is not an https URL. */
/** `jwksUri` is asked on first use (the port may be known only once listening). */
export function issuerDiscoveryRoutes(options: { issuer: string; jwksUri: () => string; keys: readonly VerificationKey[] }): Record<string, DiscoveryRoute> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(options.issuer);
  } catch {
    return {};
  }
  if (issuerUrl.protocol !== 'https:') return {};
  const unique = [...new Map(options.keys.map((k) => [k.kid, k])).values()];
  let configuration: string | undefined;
  const configurationText = () => (configuration ??= JSON.stringify({
    issuer: options.issuer,
    jwks_uri: options.jwksUri(),
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(unique.map((k) => k.algorithm))].sort(),
  }));
  const jwks = JSON.stringify({ keys: unique.map(publicJwk) });
  return {
    '.well-known': (req, res, url) => {
      const segments = segmentsOf(url);
      if (segments[1] !== 'openid-configuration') throw pageNotFound();
      if (segments.length > 2) throw pathNotFound();
      if (req.method !== 'GET') throw methodNotRegistered();
      write(res, 'application/json', configurationText());
    },
    openid: (req, res, url) => {
      const segments = segmentsOf(url);
      if (segments[1] !== 'v1' || segments[2] !== 'jwks') throw pageNotFound();
      if (segments.length > 3) throw pathNotFound();
      if (req.method !== 'GET') throw methodNotRegistered();
      write(res, 'application/jwk-set+json', jwks);
    },
  };
}
