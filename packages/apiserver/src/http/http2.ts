/**
 * HTTP/2 on the secure port, as kube serves it (Go's http2.Server configured in
 * secure_serving.go), next to HTTP/1.1 on the same port (ALPN `h2`, `http/1.1`):
 *
 * - Settings: at most `--http2-max-streams-per-connection` concurrent streams (0: kube's 100),
 *   256 KiB per-stream receive window and frame size, a connection window of that times the
 *   stream limit, 1 MiB of headers (kube's MaxHeaderBytes).
 * - No cap on a session's memory: Node's default (`maxSessionMemory`, 10 MB, counting data
 *   queued to be sent) refuses every new stream with ENHANCE_YOUR_CALM once the responses
 *   waiting for a connection's readers pass it — a dozen watches replaying 1 MiB each would
 *   do. Go's server has no such limit; each stream's backlog is bounded by flow control and
 *   the handlers' backpressure instead.
 * - Idle sessions: a session with no open stream for the idle timeout (kube's 90 s) is sent
 *   GOAWAY and closed, as Go's IdleTimeout does; a session that opens no stream at all is
 *   bounded by the connection guard's first-request deadline.
 * - Slow request bodies: a stream whose request has not been received whole within the
 *   receive deadline (as HTTP/1.1's requestTimeout) is reset.
 * - `Connection: close` has no meaning in HTTP/2 (and Node refuses the header): where kapi
 *   would close an HTTP/1.1 connection after a response, an HTTP/2 session is sent GOAWAY
 *   instead — its other streams finish, new requests go to a new connection — as Go's server
 *   does when a handler sets that header (`closeConnectionAfterResponse`); where it closes
 *   one so as not to read the rest of a body, only the stream is reset (`abandonRequestBody`).
 * - `--goaway-chance`: that fraction of HTTP/2 requests ends its session the same way (kube's
 *   WithProbabilisticGoaway), so clients behind a load balancer spread over the replicas.
 * - Shutdown: every session is sent GOAWAY and closes when its streams have finished.
 *
 * Node's compatibility layer gives handlers request/response objects shaped like
 * HTTP/1.1's; the one gap handlers rely on (`res.destroyed`) is filled by the response class
 * below, which also ends a response with its last DATA frame instead of the empty trailers
 * the compat class sends after every body, and the request class below reports a request
 * whose stream ended with its headers (no body: GET, DELETE without options) as complete
 * from the start, as HTTP/1.1 does, so
 * the handlers' drain of unread bodies does not start the layer's read machinery for nothing.
 * Measured against answering on the 'stream' event directly, the layer costs some 10–30 µs
 * per request on a 2-core machine (about 4–6% of a create's or GET's CPU), too little to
 * warrant an adaptor of kapi's own; scripts/bench-h2-serving.mjs measures it.
 */
import { constants, createSecureServer, Http2ServerRequest, Http2ServerResponse, type Http2SecureServer, type OutgoingHttpHeaders, type SecureServerOptions, type ServerHttp2Session } from 'node:http2';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';

/** The HTTP/2 knobs of the secure port (kube's flags). */
export interface Http2Options {
  /** --disable-http2-serving: serve HTTP/1.1 only. */
  readonly disabled?: boolean;
  /** --http2-max-streams-per-connection; 0 or none: kube's 100. */
  readonly maxStreamsPerConnection?: number;
  /** --goaway-chance: the fraction of HTTP/2 requests after which the session is sent GOAWAY (0 to 0.02). */
  readonly goawayChance?: number;
}

/** kube's MaxConcurrentStreams when --http2-max-streams-per-connection is 0 (matches Go's client). */
export const DEFAULT_MAX_STREAMS = 100;
/** kube's MaxUploadBufferPerStream and MaxReadFrameSize (the 99th percentile of API request bodies). */
const STREAM_WINDOW_BYTES = 256 * 1024;
/** Node's maxSessionMemory in MB: high enough never to bind (see the file comment); Node keeps it in 32 bits. */
const UNBOUNDED_SESSION_MEMORY_MB = 1_000_000;
/** kube's MaxHeaderBytes (1 MiB), also the HTTP/1.1 limit. */
const MAX_HEADER_BYTES = 1 << 20;

/** Timeouts the sessions are held to (the listener's, see listeners.ts). */
export interface Http2Timeouts {
  /** A session with no open stream is closed after it (kube's IdleTimeout, 90 s). */
  readonly idleMs: number;
  /** A request body must be received whole within it (0: no limit). */
  readonly receiveMs: number;
}

/**
 * An HTTP/2 response with `destroyed`, which handlers check as on HTTP/1.1 (Node's compat class
 * has none), that ends its stream with its last DATA frame: the compat class always asks for
 * trailers, so every response ended with an empty frame of trailers, sent from a
 * setImmediate of its own. kapi sends no trailers (nor does kube-apiserver, whose last DATA
 * frame carries END_STREAM). Where Node's compat layer is not as expected, its own send runs.
 */
class Http2Response extends Http2ServerResponse {}
Object.defineProperty(Http2Response.prototype, 'destroyed', {
  get(this: Http2ServerResponse): boolean {
    const stream = this.stream as Http2ServerResponse['stream'] | undefined;
    return stream === undefined || stream.destroyed;
  },
});

/** The compat response's private members, found by their symbols' names. */
interface CompatResponseState {
  statusCode: number;
  ending: boolean;
  sendDate: boolean;
}
const beginSend = Object.getOwnPropertySymbols(Http2ServerResponse.prototype).find((symbol) => symbol.description === 'begin-send');
let responseSymbols: { state: symbol; headers: symbol } | null | undefined;
function compatResponseOf(res: Http2ServerResponse): { state: CompatResponseState; headers: Record<string, unknown> } | undefined {
  if (responseSymbols === undefined) {
    const own = Object.getOwnPropertySymbols(res);
    const state = own.find((symbol) => symbol.description === 'state');
    const headers = own.find((symbol) => symbol.description === 'headers');
    responseSymbols = state !== undefined && headers !== undefined ? { state, headers } : null;
  }
  if (responseSymbols === null) return undefined;
  const fields = res as unknown as Record<symbol, unknown>;
  const state = fields[responseSymbols.state] as Partial<CompatResponseState> | undefined;
  const headers = fields[responseSymbols.headers];
  if (typeof state !== 'object' || state === null || typeof headers !== 'object' || headers === null) return undefined;
  if (typeof state.statusCode !== 'number' || typeof state.ending !== 'boolean' || typeof state.sendDate !== 'boolean') return undefined;
  return { state: state as CompatResponseState, headers: headers as Record<string, unknown> };
}
if (beginSend !== undefined) {
  const compatBeginSend = (Http2ServerResponse.prototype as unknown as Record<symbol, (this: Http2ServerResponse) => void>)[beginSend]!;
  Object.defineProperty(Http2Response.prototype, beginSend, {
    value(this: Http2ServerResponse): void {
      const compat = compatResponseOf(this);
      if (compat === undefined) {
        compatBeginSend.call(this);
        return;
      }
      compat.headers[constants.HTTP2_HEADER_STATUS] = compat.state.statusCode;
      // sendDate: as the compat class passes it (Node's respond reads it; its types leave it out).
      const options = { endStream: compat.state.ending, waitForTrailers: false, sendDate: compat.state.sendDate };
      this.stream.respond(compat.headers as OutgoingHttpHeaders, options);
    },
  });
}

/**
 * An HTTP/2 request that is `complete` when its stream ended with the headers: the compat
 * class says so only once the (empty) body has been read, which costs a read of the stream.
 */
class Http2Request extends Http2ServerRequest {}
const compatComplete = Object.getOwnPropertyDescriptor(Http2ServerRequest.prototype, 'complete')?.get;
Object.defineProperty(Http2Request.prototype, 'complete', {
  get(this: Http2ServerRequest): boolean {
    const stream = this.stream as Http2ServerRequest['stream'] | undefined;
    return (stream !== undefined && stream.endAfterHeaders) || compatComplete?.call(this) === true;
  },
});

/** Open sessions per server (for the shutdown). */
const sessionsOf = new WeakMap<Http2SecureServer, Set<ServerHttp2Session>>();

/**
 * A TLS server speaking HTTP/2 and HTTP/1.1 (`tls` as for https.createServer); requests of
 * both reach `handler`. HTTP/1.1 connections get their limits from listeners.ts as on an
 * https server.
 */
export function createHttp2SecureServer(tls: SecureServerOptions, handler: RequestListener, options: Http2Options, timeouts: Http2Timeouts): Http2SecureServer {
  const maxStreams = options.maxStreamsPerConnection !== undefined && options.maxStreamsPerConnection > 0 ? options.maxStreamsPerConnection : DEFAULT_MAX_STREAMS;
  const server = createSecureServer({
    ...tls,
    allowHTTP1: true,
    Http2ServerRequest: Http2Request,
    Http2ServerResponse: Http2Response,
    settings: {
      maxConcurrentStreams: maxStreams,
      initialWindowSize: STREAM_WINDOW_BYTES,
      maxFrameSize: STREAM_WINDOW_BYTES,
      maxHeaderListSize: MAX_HEADER_BYTES,
    },
    maxHeaderListPairs: 2000,
    maxSessionMemory: UNBOUNDED_SESSION_MEMORY_MB,
  });
  const sessions = new Set<ServerHttp2Session>();
  sessionsOf.set(server, sessions);
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    trackSession(session, maxStreams, timeouts.idleMs);
  });
  server.on('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    if (!(req instanceof Http2ServerRequest) || !(res instanceof Http2ServerResponse)) return;
    if (timeouts.receiveMs > 0 && !req.stream.endAfterHeaders) limitReceive(req, timeouts.receiveMs);
    const chance = options.goawayChance ?? 0;
    if (chance > 0 && Math.random() < chance) req.stream.session?.close();
  });
  server.on('request', handler);
  return server;
}

/** The connection window, the idle timeout. */
function trackSession(session: ServerHttp2Session, maxStreams: number, idleMs: number): void {
  session.once('connect', () => {
    try {
      session.setLocalWindowSize(STREAM_WINDOW_BYTES * maxStreams);
    } catch {
      // The session ended before its handshake finished.
    }
  });
  let open = 0;
  let idle: NodeJS.Timeout | undefined;
  const startIdle = () => {
    if (idleMs <= 0) return;
    idle = setTimeout(() => session.close(), idleMs);
    idle.unref();
  };
  session.on('stream', (stream) => {
    open++;
    clearTimeout(idle);
    idle = undefined;
    stream.once('close', () => {
      if (--open === 0 && !session.closed) startIdle();
    });
  });
  session.once('close', () => clearTimeout(idle));
  startIdle();
}

/**
 * Resets `req`'s stream when the client has not finished sending its body within `ms` (the
 * client's half of the stream still open; whether the handler read the body does not count).
 */
function limitReceive(req: Http2ServerRequest, ms: number): void {
  const stream = req.stream;
  const timer = setTimeout(() => {
    if (!stream.destroyed && stream.state.remoteClose !== 1) stream.close(constants.NGHTTP2_CANCEL);
  }, ms);
  timer.unref();
  stream.once('close', () => clearTimeout(timer));
}

/**
 * Ends the connection once `res` has been sent: HTTP/1.1 `Connection: close`; on HTTP/2 the
 * session is sent GOAWAY at once (no new streams; those open, this one included, finish).
 */
export function closeConnectionAfterResponse(res: ServerResponse): void {
  if (res instanceof Http2ServerResponse) {
    (res as unknown as Http2ServerResponse).stream.session?.close();
    return;
  }
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * Reads no more of the request once `res` has been sent: HTTP/1.1 closes the connection; on
 * HTTP/2 the stream is reset with NO_ERROR after the response (RFC 9113 §8.1, as Go's server
 * does when a handler leaves the body unread), and the session's other streams go on.
 */
export function abandonRequestBody(res: ServerResponse): void {
  if (res instanceof Http2ServerResponse) {
    const stream = (res as unknown as Http2ServerResponse).stream;
    stream.once('finish', () => stream.close(constants.NGHTTP2_NO_ERROR));
    return;
  }
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * The HTTP/2 stream under `res` once its headers are sent, for a handler that writes its body
 * itself (one `write` per batch, past the compatibility layer's per-call checks); undefined
 * for HTTP/1.1 and before the headers. The stream keeps its own flow control: `write` returns
 * false and 'drain' follows as on the response.
 */
export function http2BodyStream(res: ServerResponse): Writable | undefined {
  if (!(res instanceof Http2ServerResponse) || !res.headersSent) return undefined;
  return (res as unknown as Http2ServerResponse).stream;
}

/** Whether `res` answers an HTTP/2 request. */
export function isHttp2Response(res: ServerResponse): boolean {
  return res instanceof Http2ServerResponse;
}

/**
 * Sends GOAWAY to every HTTP/2 session of `server`: each closes once its streams have finished.
 * With `force`, sessions still open are destroyed.
 */
export function closeHttp2Sessions(server: Http2SecureServer, force: boolean): void {
  for (const session of sessionsOf.get(server) ?? []) {
    if (force) session.destroy();
    else session.close();
  }
}
