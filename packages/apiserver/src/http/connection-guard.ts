/**
 * Limits on the connections themselves, shared by every listener of the process, on top of
 * Node's per-request ones (see main.ts `tune`):
 *
 * - First request: a connection must deliver its first request's headers within the header
 *   timeout of being accepted (for TLS, of its handshake completing; the handshake itself is
 *   bounded the same way), as Go's ReadHeaderTimeout in kube's http.Server bounds reading
 *   the first request. Node times headers only once a request's first byte arrived, so a
 *   socket that never sends anything would otherwise stay open for ever.
 * - A cap on open connections (--max-connections, a kapi extension; kube has none): at the
 *   cap, a new connection closes the connection idle the longest — one with no request in
 *   progress: never sent one, between keep-alive requests, or still sending headers — and is
 *   refused (closed at once) only when every open connection is serving a request. Idle or
 *   slow clients cannot keep others out, and the process never runs out of descriptors for
 *   etcd and its own files.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open connections at most, over all listeners; 0 = no cap. */
  readonly maxConnections: number;
  /** From accept (or TLS handshake done) to the first request's headers; kube's 32 s. */
  readonly firstRequestTimeoutMs: number;
  /** Told when the cap closes an idle connection (`evicted`) or refuses a new one (`refused`). */
  readonly onLimit?: (event: 'evicted' | 'refused') => void;
}

interface TrackedConnection {
  readonly socket: Socket;
  /** Requests in progress (more than one only with pipelining). */
  busy: number;
  timer: NodeJS.Timeout | undefined;
}

/** The TCP socket under a request's socket (a TLS socket wraps it). */
function tcpSocketOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket | null })._parent ?? socket;
}

export class ConnectionGuard {
  private readonly connections = new Map<Socket, TrackedConnection>();
  /** Connections with no request in progress, the one idle the longest first. */
  private readonly idle = new Map<Socket, TrackedConnection>();

  constructor(private readonly limits: ConnectionLimits) {}

  /** Connections open now, over all attached listeners. */
  get open(): number {
    return this.connections.size;
  }

  /** Applies the limits to `server`'s connections (an http or https server). */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.accepted(socket));
    server.on('secureConnection', (socket: Socket) => this.handshakeDone(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.requestStarted(req, res));
  }

  private accepted(socket: Socket): void {
    const { maxConnections } = this.limits;
    if (maxConnections > 0 && this.connections.size >= maxConnections) {
      const [oldest] = this.idle.values();
      if (oldest === undefined) {
        socket.destroy();
        this.limits.onLimit?.('refused');
        return;
      }
      this.forget(oldest);
      oldest.socket.destroy();
      this.limits.onLimit?.('evicted');
    }
    const tracked: TrackedConnection = { socket, busy: 0, timer: undefined };
    this.connections.set(socket, tracked);
    this.idle.set(socket, tracked);
    this.startFirstRequestTimer(tracked);
    socket.once('close', () => this.forget(tracked));
  }

  private handshakeDone(tlsSocket: Socket): void {
    const tracked = this.connections.get(tcpSocketOf(tlsSocket));
    if (tracked !== undefined && tracked.timer !== undefined) this.startFirstRequestTimer(tracked);
  }

  private requestStarted(req: IncomingMessage, res: ServerResponse): void {
    const tracked = this.connections.get(tcpSocketOf(req.socket));
    if (tracked === undefined) return;
    clearTimeout(tracked.timer);
    tracked.timer = undefined;
    tracked.busy++;
    this.idle.delete(tracked.socket);
    res.once('close', () => {
      tracked.busy--;
      if (tracked.busy === 0 && this.connections.has(tracked.socket)) this.idle.set(tracked.socket, tracked);
    });
  }

  private startFirstRequestTimer(tracked: TrackedConnection): void {
    clearTimeout(tracked.timer);
    tracked.timer = setTimeout(() => tracked.socket.destroy(), this.limits.firstRequestTimeoutMs);
    tracked.timer.unref();
  }

  private forget(tracked: TrackedConnection): void {
    clearTimeout(tracked.timer);
    tracked.timer = undefined;
    this.connections.delete(tracked.socket);
    this.idle.delete(tracked.socket);
  }
}

/** Descriptors kept free for everything but client connections (etcd, files, DNS). */
export function reservedDescriptors(openFilesLimit: number): number {
  return Math.min(1024, Math.floor(openFilesLimit / 4));
}

/**
 * The cap in effect: `requested`, lowered so that client connections leave
 * `reservedDescriptors` of the process's open-files limit free. 0 (no cap) stays 0, and an
 * unknown limit leaves `requested` as it is.
 */
export function effectiveConnectionCap(requested: number, openFilesLimit: number | undefined): number {
  if (requested <= 0 || openFilesLimit === undefined || !Number.isFinite(openFilesLimit)) return Math.max(requested, 0);
  return Math.min(requested, Math.max(openFilesLimit - reservedDescriptors(openFilesLimit), 1));
}

/** The process's soft open-files limit (RLIMIT_NOFILE) from /proc/self/limits; undefined where that cannot be read. */
export function readOpenFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}
