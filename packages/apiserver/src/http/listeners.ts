/**
 * The HTTP(S) listeners: created with kube's per-connection limits (Go http.Server settings
 * from secure_serving.go, mapped onto Node's), `Expect: 100-continue` and requests Node's
 * parser refuses answered in order (expect-continue.ts, client-errors.ts), bound, and
 * stopped for the shutdown.
 */
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from './client-errors.js';
import type { ConnectionGuard } from './connection-guard.js';
import { answerExpectContinue } from './expect-continue.js';

/** Node's per-connection limits; kube's values by default. */
export interface ConnectionTimeouts {
  /** Time to receive the request headers (slowloris); default 32000 (kube's ReadHeaderTimeout). */
  readonly headersTimeoutMs?: number;
  /** Idle keep-alive connections are closed after it; default 90000 (kube's IdleTimeout). */
  readonly keepAliveTimeoutMs?: number;
  /** Time to receive a whole request (headers and body); default request timeout + headers timeout. */
  readonly requestReceiveTimeoutMs?: number;
  /** How often Node checks the two above; default 30000 (Node's). */
  readonly checkIntervalMs?: number;
}

/** kube's ReadHeaderTimeout (32 s): the headers of a request, and the first request of a connection. */
export const HEADERS_TIMEOUT_MS = 32_000;
/** kube's IdleTimeout (90 s): a keep-alive connection with no request. */
export const KEEP_ALIVE_TIMEOUT_MS = 90_000;

export interface ListenerOptions {
  /**
   * PEM certificate and key: HTTPS; none: plain HTTP. With `clientCa` (--client-ca-file) the
   * handshake requests, but does not require, a client certificate and checks it against
   * those authorities; the authenticator reads the outcome.
   */
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCa?: string };
  /** --request-timeout in ms (bounds receiving a request, see `tune`). */
  readonly requestTimeoutMs: number;
  readonly timeouts?: ConnectionTimeouts;
  /** The process-wide connection limits (first-request deadline, --max-connections). */
  readonly guard: ConnectionGuard;
}

/** An HTTP or HTTPS server for `handler` with kube's limits and the connection guard attached; not yet listening. */
export function createListener(handler: RequestListener, options: ListenerOptions): HttpServer {
  const timeouts = options.timeouts ?? {};
  const common = { maxHeaderSize: 1 << 20, ...(timeouts.checkIntervalMs !== undefined ? { connectionsCheckingInterval: timeouts.checkIntervalMs } : {}) };
  const server = options.tls !== undefined
    ? createHttpsServer({
        ...common,
        cert: options.tls.cert,
        key: options.tls.key,
        handshakeTimeout: timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
        ...(options.tls.clientCa !== undefined ? { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
      }, handler)
    : createHttpServer(common, handler);
  tune(server, options.requestTimeoutMs, timeouts);
  answerExpectContinue(server);
  answerClientErrors(server);
  options.guard.attach(server);
  return server;
}

export function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '::' || address === '') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

export function listen(server: HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops listening (new connections are refused) and closes idle connections; resolves when
 * every connection has ended. `forceAfterMs` later, connections still open are cut.
 */
export function stopListening(server: HttpServer, forceAfterMs: number): { closed: Promise<void>; force(): void } {
  const closed = new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), forceAfterMs);
  timer.unref();
  return {
    closed,
    force: () => {
      clearTimeout(timer);
      server.closeAllConnections();
    },
  };
}

/**
 * Node's limits, set to kube's (secure_serving.go): 32 s to send the headers (slowloris), 90 s
 * idle keep-alive, 1 MiB of headers. Node's requestTimeout bounds receiving the request
 * (headers and body), never the response, so it cannot cut a watch: it is set to the request
 * timeout plus the header time, so a client trickling a body is cut too.
 */
function tune(server: HttpServer, requestTimeoutMs: number, timeouts: ConnectionTimeouts = {}): void {
  const headersTimeout = timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  server.headersTimeout = headersTimeout;
  server.requestTimeout = timeouts.requestReceiveTimeoutMs ?? (requestTimeoutMs > 0 ? requestTimeoutMs + headersTimeout : 0);
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
  server.maxHeadersCount = 1000;
}

