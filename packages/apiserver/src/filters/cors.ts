/**
 * kube's CORS filter (--cors-allowed-origins): a request whose Origin matches one of the
 * patterns gets the CORS headers, and a preflight (OPTIONS) from it is answered 204 at once,
 * before authentication. Other requests pass untouched. The patterns were checked at start
 * (flags.ts); like Go's regexp.MatchString, a pattern matches anywhere in the Origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOW_METHODS = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
const ALLOW_HEADERS = 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since';
const EXPOSE_HEADERS = 'Date';

/** Sets the headers for an allowed Origin; true when the request was a preflight and is answered. */
export type CorsFilter = (req: IncomingMessage, res: ServerResponse) => boolean;

export function corsFilter(allowedOrigins: readonly string[]): CorsFilter | undefined {
  if (allowedOrigins.length === 0) return undefined;
  const patterns = allowedOrigins.map((origin) => new RegExp(origin));
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined || origin === '' || !patterns.some((p) => p.test(origin))) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method !== 'OPTIONS') return false;
    res.writeHead(204, { 'Cache-Control': 'no-cache, private' });
    res.end();
    return true;
  };
}
