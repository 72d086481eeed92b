/**
 * Proxying a request for a remote APIService's group-version to its backend (kube's
 * aggregator proxyHandler): after this server authenticated and authorized it, the request
 * goes to the resolved Service address over TLS with the front-proxy client certificate, the
 * caller's credentials replaced by the X-Remote-* identity headers; the body and the
 * response (a watch included) are streamed both ways. An upgrade request (WebSocket, SPDY:
 * exec-style streams) is asked of the backend as an upgrade, and once it answers 101 the two
 * connections are joined byte for byte (upgrade-tunnel.ts); a backend that does not switch
 * protocols is answered as any other request. Failures are kube's plain-text errors:
 * 503 `service unavailable` while the APIService is not Available or its Service cannot be
 * resolved, 503 with Go's error when the backend cannot be reached.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { writePlainError } from '../filters/max-inflight.js';
import type { UserInfo } from '../auth/user.js';
import { authProxyHeaders, isAuthProxyHeader } from '../proxy/index.js';
import { isAvailable, type ApiServiceObject } from './apiservices.js';
import { backendRequest, goNetError, type BackendAccess } from './backend.js';
import { isUpgradeRequest, upgradeConnectionOf } from '../http/upgrade.js';
import { tunnel } from './upgrade-tunnel.js';

/** Headers that describe one hop (RFC 7230 §6.1) or this server's credentials: never forwarded. */
const DROPPED_REQUEST_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'authorization', 'http2-settings']);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

const REDIRECT_REFUSED = 'the backend attempted to redirect this request, which is not permitted';

/** A discovery request (`/apis/<group>/<version>`, no resource) must answer within 5 s, as kube bounds it. */
const DISCOVERY_TIMEOUT_MS = 5000;

export interface ProxyOptions {
  readonly access: BackendAccess;
  /** RemoteRequestHeaderUID: send X-Remote-Uid too. */
  readonly uidHeader: boolean;
}

function forwardedHeaders(req: IncomingMessage, user: UserInfo, uidHeader: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || DROPPED_REQUEST_HEADERS.has(name) || name.startsWith('impersonate-') || isAuthProxyHeader(name)) continue;
    headers[name] = value;
  }
  const client = req.socket.remoteAddress?.replace(/^::ffff:/, '');
  if (client !== undefined) {
    const prior = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior !== undefined && prior !== '' ? `${String(prior)}, ${client}` : client;
  }
  return { ...headers, ...authProxyHeaders(user, { uid: uidHeader }) };
}

/** Go's reverse proxy's X-Forwarded-Host/-Proto/-Uri: the backend's host, https, the request URI. */
function forwardingHeaders(host: string, requestUri: string): OutgoingHttpHeaders {
  return { 'x-forwarded-host': host, 'x-forwarded-proto': 'https', 'x-forwarded-uri': requestUri };
}

/**
 * Proxies `req` to `apiService`'s backend. `discovery`: the request is the group-version's
 * discovery document (bounded to 5 s). Resolves when the exchange ended; never throws.
 */
export function proxyToApiService(options: ProxyOptions, apiService: ApiServiceObject, req: IncomingMessage, res: ServerResponse, user: UserInfo | undefined, discovery: boolean): Promise<void> {
  if (!isAvailable(apiService)) {
    writePlainError(res, 503, 'service unavailable');
    return Promise.resolve();
  }
  if (user === undefined) {
    writePlainError(res, 500, 'missing user');
    return Promise.resolve();
  }
  const headers = forwardedHeaders(req, user, options.uidHeader);
  // The backend audits the request under this server's audit ID (kube's NewRequestForProxy).
  const auditId = res.getHeader('Audit-Id');
  if (typeof auditId === 'string') headers['audit-id'] = auditId;
  let target: ReturnType<typeof backendRequest>;
  try {
    target = backendRequest(options.access, apiService, req.method ?? 'GET', req.url ?? '/', headers);
  } catch {
    writePlainError(res, 503, 'service unavailable');
    return Promise.resolve();
  }
  Object.assign(target.options.headers ?? {}, forwardingHeaders(String((target.options.headers as OutgoingHttpHeaders | undefined)?.['host'] ?? ''), req.url ?? '/'));
  const connection = isUpgradeRequest(req) ? upgradeConnectionOf(req) : undefined;
  if (connection !== undefined) {
    // kube's upgrade-aware proxy: the upgrade is asked of the backend, and a 101 joins the two connections.
    Object.assign(target.options.headers ?? {}, { connection: 'Upgrade', upgrade: req.headers.upgrade });
  }
  return new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    };
    const upstream = httpsRequest(target.options, (backendRes) => {
      const code = backendRes.statusCode ?? 502;
      if (code >= 300 && code <= 399 && (backendRes.headers.location ?? '') !== '') {
        // kube's --aggregator-reject-forwarding-redirect (default true): a backend's redirect is not passed on.
        backendRes.resume();
        const body = REDIRECT_REFUSED;
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
        finish();
        return;
      }
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(backendRes.headers)) {
        if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
        // The backend's Audit-Id does not replace this server's.
        if (name === 'audit-id') continue;
        out[name] = value;
      }
      try {
        if (connection !== undefined) {
          // An upgrade the backend refused: its answer as it wrote it, as kube's upgrade-aware proxy passes it on (no Audit-Id, no Date of this server's).
          for (const name of res.getHeaderNames()) res.removeHeader(name);
          res.sendDate = false;
          const raw: string[] = [];
          for (let i = 0; i + 1 < backendRes.rawHeaders.length; i += 2) {
            if (!DROPPED_RESPONSE_HEADERS.has(backendRes.rawHeaders[i]!.toLowerCase())) raw.push(backendRes.rawHeaders[i]!, backendRes.rawHeaders[i + 1]!);
          }
          res.writeHead(backendRes.statusCode ?? 502, raw);
        } else res.writeHead(backendRes.statusCode ?? 502, out);
      } catch {
        backendRes.destroy();
        res.destroy();
        finish();
        return;
      }
      // Each chunk is passed on as it comes (a watch's events are not held back).
      backendRes.on('data', (chunk: Buffer) => {
        if (!res.write(chunk)) {
          backendRes.pause();
          res.once('drain', () => backendRes.resume());
        }
      });
      backendRes.on('end', () => {
        res.end();
        finish();
      });
      backendRes.on('error', () => {
        res.destroy();
        finish();
      });
    });
    if (connection !== undefined) {
      upstream.on('upgrade', (backendRes, backendSocket, backendHead) => {
        clearTimeout(timer);
        tunnel({ res, client: connection, backendRes, backendSocket, backendHead, onClose: finish });
      });
    }
    const timer = discovery ? setTimeout(() => upstream.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'ETIMEDOUT' })), DISCOVERY_TIMEOUT_MS) : undefined;
    upstream.on('error', (err) => {
      if (!res.headersSent) writePlainError(res, 503, (err as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? 'context deadline exceeded' : goNetError(err, target.address));
      else res.destroy();
      finish();
    });
    // The client went away (or the server's deadline ended the response): stop the backend exchange.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
      finish();
    });
    req.pipe(upstream);
  });
}
