/**
 * The HTTP/2 connection to one etcd member, made on first use and made again after it fails:
 * kapi's own (h2-connection.ts), which carries the unary calls and the Watch streams, or a
 * node:http2 session for whichever of them KAPI_ETCD_UNARY_TRANSPORT / KAPI_ETCD_WATCH_TRANSPORT
 * put on node:http2 (see unary-client.ts); by default only the first exists.
 */
import { connect, type ClientHttp2Session, type SecureClientSessionOptions } from 'node:http2';
import { H2Connection, type H2ConnectionOptions } from './h2-connection.js';
import { encodeHeaderBlock } from './hpack.js';
import { grpcError, grpcTimeout, Status } from './unary-call.js';

/** A member's connection settings: its connection's (TLS material, dial timeout, keepalive). */
export type MemberOptions = H2ConnectionOptions;

/** HTTP/2 flow-control windows: large, so that a long list is not paced by window updates. */
const WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * One member's connection. `session()` returns the open session, connecting if there is none;
 * a session that fails (refused, reset, closed by the server, or silent for a keepalive ping's
 * timeout) is dropped, and the next call connects again. Calls on a session that never
 * connected fail with UNAVAILABLE "No connection established. Last error: …" (so the client
 * knows they never reached etcd); calls on one that was lost fail with UNAVAILABLE
 * "Connection dropped: …".
 *
 * Keepalive: while calls are in flight, a session that has seen no frame for
 * `keepaliveTimeMs` is pinged, and destroyed when the ping is not answered within
 * `keepaliveTimeoutMs` — a hung member fails its calls instead of holding them. No pings are
 * sent on an idle connection (etcd's server counts those against the client by default).
 */
export class Member {
  private current: Connection | undefined;
  private framed: H2Connection | undefined;
  private readonly headerBlocks = new Map<string, { timeoutMs: number | undefined; block: Buffer }>();
  private closed = false;

  constructor(
    readonly endpoint: string,
    private readonly options: MemberOptions,
  ) {}

  /** The member's session and how a failure of it is reported. */
  session(): Connection {
    const current = this.current;
    if (current !== undefined && !current.session.destroyed && !current.session.closed && !current.draining) return current;
    if (this.closed) throw grpcError(Status.UNAVAILABLE, 'client closed');
    return (this.current = this.open());
  }

  /**
   * The member's h2-connection.ts connection (its own TCP/TLS connection, beside the
   * node:http2 session of `session()` if there is one), connecting if there is none usable.
   */
  framedConnection(): H2Connection {
    const current = this.framed;
    if (current !== undefined && current.usable) return current;
    if (this.closed) throw grpcError(Status.UNAVAILABLE, 'client closed');
    return (this.framed = new H2Connection(new URL(this.endpoint), this.options));
  }

  /**
   * The header block (hpack.ts) of a call to `path` on this member with deadline `timeoutMs`
   * (none when undefined: a stream) and extra `metadata`, made once per path and deadline.
   */
  headerBlock(path: string, timeoutMs: number | undefined, metadata: readonly (readonly [string, string])[]): Buffer {
    const known = this.headerBlocks.get(path);
    if (known !== undefined && known.timeoutMs === timeoutMs) return known.block;
    const url = new URL(this.endpoint);
    const block = encodeHeaderBlock([
      [':method', 'POST'],
      [':scheme', url.protocol === 'https:' ? 'https' : 'http'],
      [':path', path],
      [':authority', url.host],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ...(timeoutMs !== undefined ? [['grpc-timeout', grpcTimeout(timeoutMs)] as const] : []),
      ...metadata,
    ]);
    this.headerBlocks.set(path, { timeoutMs, block });
    return block;
  }

  /** Drops the member's connections (if any) at once; their calls fail as connection failures. */
  reset(): void {
    const current = this.current;
    this.current = undefined;
    current?.session.destroy();
    const framed = this.framed;
    this.framed = undefined;
    framed?.destroy();
  }

  close(): void {
    this.closed = true;
    this.reset();
  }

  private open(): Connection {
    const url = new URL(this.endpoint);
    const secure = url.protocol === 'https:';
    const tlsOptions: SecureClientSessionOptions = secure
      ? {
          ...(this.options.ca !== undefined ? { ca: this.options.ca } : {}),
          ...(this.options.cert !== undefined ? { cert: this.options.cert, key: this.options.key } : {}),
          ALPNProtocols: ['h2'],
        }
      : {};
    const session = connect(`${secure ? 'https' : 'http'}://${url.host}`, {
      ...tlsOptions,
      settings: { initialWindowSize: WINDOW_BYTES, enablePush: false },
      // Node refuses new streams (ENHANCE_YOUR_CALM) once a session buffers more than this
      // (default 10 MB), e.g. a few concurrent writes near etcd's 2 MiB limit: no limit, as grpc-js.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
    });
    const connection = new Connection(session);
    session.on('error', (err: Error) => {
      connection.lastError = err;
    });
    session.on('goaway', () => {
      connection.draining = true;
    });
    session.once('connect', () => {
      clearTimeout(dialTimer);
      // The client may have been closed (the session destroyed) while the connect event was queued.
      if (session.destroyed) return;
      connection.connected = true;
      session.setLocalWindowSize(WINDOW_BYTES);
      connection.startKeepalive(this.options.keepaliveTimeMs, this.options.keepaliveTimeoutMs);
    });
    session.once('close', () => {
      clearTimeout(dialTimer);
      connection.stopKeepalive();
      if (this.current === connection) this.current = undefined;
    });
    const dialTimer = setTimeout(() => {
      if (!connection.connected) session.destroy(new Error(`Failed to connect within ${this.options.dialTimeoutMs} ms`));
    }, this.options.dialTimeoutMs);
    dialTimer.unref();
    session.unref();
    return connection;
  }
}

/** An HTTP/2 session to a member and what is known of it. */
export class Connection {
  connected = false;
  /** Set by a GOAWAY: calls in flight finish, new ones go to a new session. */
  draining = false;
  lastError: Error | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private lastFrame = Date.now();
  private pingOutstanding = false;

  constructor(readonly session: ClientHttp2Session) {}

  /** Called as a call on this session starts and ends (the session is pinged only while some are in flight). */
  active = 0;
  /** Watch calls open on this session (the session keeps the process alive while there are some). */
  watching = 0;

  /** The error for a call that this session could not carry. */
  failure(streamError: Error | undefined): Error {
    // A stream cancelled by its session's failure carries that failure as its cause; the session's own 'error' may come later.
    const cause = this.lastError ?? (streamError?.cause instanceof Error ? streamError.cause : streamError);
    const last = cause !== undefined ? cause.message : 'connection closed';
    return this.connected
      ? grpcError(Status.UNAVAILABLE, `Connection dropped: ${last}`)
      : grpcError(Status.UNAVAILABLE, `No connection established. Last error: ${last}`);
  }

  /** Records that the session carried a frame (any response data counts as liveness). */
  sawFrame(): void {
    this.lastFrame = Date.now();
  }

  startKeepalive(timeMs: number, timeoutMs: number): void {
    this.keepalive = setInterval(() => {
      if (this.active === 0 || this.pingOutstanding || Date.now() - this.lastFrame < timeMs) return;
      this.pingOutstanding = true;
      const timer = setTimeout(() => this.session.destroy(new Error(`keepalive ping not answered within ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
      try {
        this.session.ping((err) => {
          clearTimeout(timer);
          this.pingOutstanding = false;
          if (err === null) this.sawFrame();
        });
      } catch {
        clearTimeout(timer);
        this.pingOutstanding = false;
      }
    }, Math.min(timeMs, 1000));
    this.keepalive.unref();
  }

  stopKeepalive(): void {
    clearInterval(this.keepalive);
  }
}
