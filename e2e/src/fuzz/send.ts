/**
 * Sends a fuzz request exactly as built (method, path, headers, body bytes) over keep-alive
 * TLS connections to a loopback server. A watch is read for a moment and then closed. Never
 * rejects: socket errors and time-outs are part of the response.
 */
import type { Socket } from 'node:net';
import { Agent, request } from 'node:https';
import type { FuzzRequest } from './requests.js';
import { asksForWatch } from './query.js';

export interface FuzzResponse {
  /** 0 when no response came (see `error`). */
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The first 64 KiB of the body. */
  readonly body: Buffer;
  /** A socket error or time-out before the response ended. */
  readonly error?: string;
  /** A watch stream, closed by the fuzzer after its first moment. */
  readonly stream: boolean;
  readonly ms: number;
  /** The request sent before this one on the same keep-alive connection (for failures that depend on the connection's history). */
  readonly previousOnConnection?: FuzzRequest;
  /** How long that connection had been idle when this request was sent on it. */
  readonly idleMs?: number;
  /**
   * For an error on a reused connection, what the socket saw: who ended it (the server's FIN,
   * or this client destroying it for another request) and when, from this request's send.
   */
  readonly connection?: string;
}

export interface SenderOptions {
  readonly baseUrl: string;
  /** No response headers within this time is a hang (default 20 s). */
  readonly timeoutMs?: number;
  /** How long a watch stream is read before the fuzzer closes it (default 200 ms). */
  readonly watchMs?: number;
  readonly maxSockets?: number;
}

const BODY_LIMIT = 64 * 1024;

export class Sender {
  private readonly agent: Agent;
  private readonly lastOnSocket = new WeakMap<Socket, { request: FuzzRequest; endedAt?: number }>();
  /** Sockets this client destroyed itself (a watch read for a moment, a time-out), with the request it did it for. */
  private readonly destroyedFor = new WeakMap<Socket, { request: FuzzRequest; at: number }>();
  /** When each socket's peer ended it (FIN). */
  private readonly endedByPeer = new WeakMap<Socket, number>();

  constructor(private readonly options: SenderOptions) {
    this.agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 8, rejectUnauthorized: false });
  }

  send(req: FuzzRequest): Promise<FuzzResponse> {
    const started = performance.now();
    const timeoutMs = this.options.timeoutMs ?? 20_000;
    const watch = asksForWatch(req.path);
    return new Promise((resolve) => {
      let settled = false;
      let previous: { request: FuzzRequest; endedAt?: number } | undefined;
      let idleMs: number | undefined;
      let mine: { request: FuzzRequest; endedAt?: number } | undefined;
      let socketOf: Socket | undefined;
      const cut = (socket: Socket | null | undefined) => {
        if (socket) this.destroyedFor.set(socket, { request: req, at: performance.now() });
      };
      const connectionFacts = (): string | undefined => {
        if (socketOf === undefined || previous === undefined) return undefined;
        const since = (t: number | undefined) => (t === undefined || Number.isNaN(t) ? 'never' : `${(t - started).toFixed(0)} ms after this request was sent`);
        const destroyed = this.destroyedFor.get(socketOf);
        const byClient = destroyed === undefined ? 'no' : destroyed.request === req ? 'for this request' : `for another request (${destroyed.request.method} ${destroyed.request.path.slice(0, 200)}), ${since(destroyed.at)}`;
        return `server FIN: ${since(this.endedByPeer.get(socketOf))}; destroyed by this client: ${byClient}; bytes written ${socketOf.bytesWritten}, read ${socketOf.bytesRead}`;
      };
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (status: number, headers: FuzzResponse['headers'], error: string | undefined, stream = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (mine) mine.endedAt = performance.now();
        const facts = error !== undefined ? connectionFacts() : undefined;
        resolve({
          status,
          headers,
          body: Buffer.concat(chunks),
          stream,
          ms: performance.now() - started,
          ...(error !== undefined ? { error } : {}),
          ...(facts !== undefined ? { connection: facts } : {}),
          ...(previous ? { previousOnConnection: previous.request } : {}),
          ...(idleMs !== undefined ? { idleMs } : {}),
        });
      };
      let client: ReturnType<typeof request>;
      try {
        client = request(`${this.options.baseUrl}${req.path}`, { method: req.method, headers: req.headers, agent: this.agent }, (res) => {
          const status = res.statusCode ?? 0;
          const contentType = String(res.headers['content-type'] ?? '');
          const streaming = watch || contentType.includes('stream=watch');
          if (streaming) {
            setTimeout(() => {
              if (!res.complete) cut(res.socket);
              res.destroy();
              done(status, res.headers, undefined, true);
            }, this.options.watchMs ?? 200);
          }
          res.on('data', (c: Buffer) => {
            if (size < BODY_LIMIT) chunks.push(c.subarray(0, BODY_LIMIT - size));
            size += c.length;
          });
          res.on('end', () => done(status, res.headers, undefined, streaming));
          res.on('error', (err) => done(status, res.headers, streaming ? undefined : `response: ${err.message}`, streaming));
          res.on('close', () => done(status, res.headers, res.complete || streaming ? undefined : 'response closed before its end', streaming));
        });
      } catch (err) {
        // Node refuses some requests itself (e.g. a path with characters it will not send).
        resolve({ status: -1, headers: {}, body: Buffer.from(err instanceof Error ? err.message : String(err)), stream: false, ms: 0 });
        return;
      }
      const timer = setTimeout(() => {
        cut(client.socket);
        client.destroy(new Error(`no response within ${timeoutMs} ms`));
      }, timeoutMs);
      client.on('socket', (socket: Socket) => {
        socketOf = socket;
        if (!this.endedByPeer.has(socket)) {
          this.endedByPeer.set(socket, NaN);
          socket.once('end', () => this.endedByPeer.set(socket, performance.now()));
        }
        previous = this.lastOnSocket.get(socket);
        if (previous?.endedAt !== undefined) idleMs = performance.now() - previous.endedAt;
        mine = { request: req };
        this.lastOnSocket.set(socket, mine);
      });
      client.on('error', (err) => done(0, {}, err.message));
      client.end(req.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
