/**
 * The HTTP(S) listeners: created with kube's per-connection limits (Go http.Server settings
 * from secure_serving.go, mapped onto Node's), `Expect: 100-continue` and requests Node's
 * parser refuses answered in order (expect-continue.ts, client-errors.ts), bound, and
 * stopped for the shutdown. The secure port speaks HTTP/2 and HTTP/1.1 (http2.ts) unless
 * HTTP/2 is disabled; the plain-HTTP port speaks HTTP/1.1.
 */
import { createServer as createHttpServer, Server as HttpServer, type RequestListener } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { handleUpgrades } from './upgrade.js';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from './client-errors.js';
import type { ConnectionGuard } from './connection-guard.js';
import { answerExpectContinue } from './expect-continue.js';
import { closeHttp2Sessions, createHttp2SecureServer, type Http2Options } from './http2.js';

/** A listening server: HTTP/1.1 (http or https) or HTTP/2 with HTTP/1.1 (secure port). */
export type Listener = HttpServer | Http2SecureServer;

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
/** kube's MaxHeaderBytes. */
const MAX_HEADER_BYTES = 1 << 20;

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
  /** HTTP/2 on the secure port (kube's --http2-max-streams-per-connection, --goaway-chance, --disable-http2-serving). */
  readonly http2?: Http2Options;
}

/** An HTTP or HTTPS server for `handler` with kube's limits and the connection guard attached; not yet listening. */
export function createListener(handler: RequestListener, options: ListenerOptions): Listener {
  const timeouts = options.timeouts ?? {};
  const common = { maxHeaderSize: MAX_HEADER_BYTES, ...(timeouts.checkIntervalMs !== undefined ? { connectionsCheckingInterval: timeouts.checkIntervalMs } : {}) };
  const tls = options.tls === undefined ? undefined : {
    cert: options.tls.cert,
    key: options.tls.key,
    handshakeTimeout: timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    ...(options.tls.clientCa !== undefined ? { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
  };
  let server: Listener;
  if (tls === undefined) server = createHttpServer(common, handler);
  else if (options.http2?.disabled === true) server = createHttpsServer({ ...common, ...tls }, handler);
  else {
    server = createHttp2SecureServer(tls, handler, options.http2 ?? {}, {
      idleMs: timeouts.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS,
      receiveMs: receiveTimeoutMs(options.requestTimeoutMs, timeouts),
    });
    // The HTTP/1.1 connections of an HTTP/2 server read these fields as an http.Server's.
    Object.assign(server, { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: true }, timeouts.checkIntervalMs !== undefined ? { connectionsCheckingInterval: timeouts.checkIntervalMs } : {});
  }
  tune(server, options.requestTimeoutMs, timeouts);
  handleUpgrades(server as HttpServer, handler);
  answerExpectContinue(server);
  answerClientErrors(server);
  options.guard.attach(server);
  return server;
}

export function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '::' || address === '') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

export function listen(server: Listener, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops listening (new connections are refused), closes idle HTTP/1.1 connections and sends
 * GOAWAY to HTTP/2 sessions (each closes when its streams have finished); resolves when every
 * connection has ended. `forceAfterMs` later, connections still open are cut.
 */
export function stopListening(server: Listener, forceAfterMs: number): { closed: Promise<void>; force(): void } {
  const closed = new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
  // An HTTP/2 server keeps its HTTP/1.1 connections as an http.Server does.
  (server as HttpServer).closeIdleConnections();
  const http2 = server instanceof HttpServer ? undefined : server;
  if (http2 !== undefined) closeHttp2Sessions(http2, false);
  const closeAll = () => {
    HttpServer.prototype.closeAllConnections.call(server);
    if (http2 !== undefined) closeHttp2Sessions(http2, true);
  };
  const timer = setTimeout(closeAll, forceAfterMs);
  timer.unref();
  return {
    closed,
    force: () => {
      clearTimeout(timer);
      closeAll();
    },
  };
}

/**
 * Node's limits, set to kube's (secure_serving.go): 32 s to send the headers (slowloris), 90 s
 * idle keep-alive, 1 MiB of headers. Node's requestTimeout bounds receiving the request
 * (headers and body), never the response, so it cannot cut a watch: it is set to the request
 * timeout plus the header time, so a client trickling a body is cut too.
 */
function tune(server: Listener, requestTimeoutMs: number, timeouts: ConnectionTimeouts = {}): void {
  const http1 = server as HttpServer;
  http1.headersTimeout = timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  http1.requestTimeout = receiveTimeoutMs(requestTimeoutMs, timeouts);
  http1.keepAliveTimeout = timeouts.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
  http1.maxHeadersCount = 1000;
}

/** The time to receive a whole request: the request timeout plus the header time, unless set. */
function receiveTimeoutMs(requestTimeoutMs: number, timeouts: ConnectionTimeouts): number {
  const headersTimeout = timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  return timeouts.requestReceiveTimeoutMs ?? (requestTimeoutMs > 0 ? requestTimeoutMs + headersTimeout : 0);
}

