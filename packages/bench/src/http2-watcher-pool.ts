/**
 * The HTTP/2 counterpart of {@link WatcherPool}: `count` JSON watches to one https URL as
 * streams multiplexed over as few connections as the server allows — a connection takes
 * streams up to the server's SETTINGS_MAX_CONCURRENT_STREAMS, then the next one is opened,
 * as Go's client (client-go) does. Receive windows are Go's too: 4 MiB per stream, 1 GiB per
 * connection (Node's default stream window, 64 KiB, is not what client-go announces and
 * makes a server wait on WINDOW_UPDATEs that Go's client never lets it run short of). Events are found in each stream's bytes as in the
 * HTTP/1.1 pool (HTTP/2 DATA carries the lines without chunk framing).
 */
import { connect, type ClientHttp2Session } from 'node:http2';
import { isIP } from 'node:net';
import { authFor, authHeaders } from './target.js';
import { scanEvents, type ScanState } from './watcher-pool.js';

const typeKey = Buffer.from('{"type":"');
/** Go's http2 Transport stream receive window (transportDefaultStreamFlow), as client-go announces it. */
const GO_STREAM_WINDOW = 4 << 20;

export class Http2WatcherPool {
  private readonly sessions: ClientHttp2Session[] = [];
  private closing = false;
  /** Watch streams that ended or broke while the pool was open. */
  terminated = 0;
  /** The first event of the first stream, as raw body bytes. */
  firstEvent: Buffer | undefined;

  constructor(
    private readonly url: string,
    private readonly onEvent: (resourceVersion: number, arrival: number) => void,
  ) {}

  /** Connections opened. */
  get connections(): number {
    return this.sessions.length;
  }

  /** Opens `count` watch streams, `parallel` at a time; resolves once every one answered 200; rejects otherwise. */
  async open(count: number, parallel = 50): Promise<void> {
    const u = new URL(this.url);
    const path = `${u.pathname}${u.search}`;
    const headers = { accept: 'application/json', 'user-agent': 'kapi-bench', ...authHeaders(this.url) };
    // The connection streams are being added to; its limit is known once its settings arrived
    // (until then kube's default, 100, is assumed).
    let current: { session: Promise<ClientHttp2Session>; streams: number; limit: number } | undefined;
    const sessionWithRoom = (): Promise<ClientHttp2Session> => {
      if (current === undefined || current.streams >= current.limit) {
        const slot = { session: this.connect(u), streams: 0, limit: 100 };
        void slot.session.then((s) => (slot.limit = s.remoteSettings.maxConcurrentStreams ?? 100), () => undefined);
        current = slot;
      }
      current.streams++;
      return current.session;
    };
    const openOne = async (): Promise<void> => {
      const session = await sessionWithRoom();
      await new Promise<void>((resolve, reject) => {
        const stream = session.request({ ':path': path, ...headers });
        const scan: ScanState = { afterEvent: false };
        let pending: Buffer | undefined;
        let started = false;
        stream.once('response', (h) => {
          const status = Number(h[':status']);
          if (status !== 200) {
            stream.close();
            reject(new Error(`watch ${this.url}: HTTP/2 ${status}`));
            return;
          }
          started = true;
          resolve();
        });
        stream.on('data', (chunk: Buffer) => {
          const arrival = performance.now();
          const data = pending ? Buffer.concat([pending, chunk]) : chunk;
          const keepFrom = scanEvents(
            data,
            (rv) => {
              if (this.firstEvent === undefined) this.captureFirst(data);
              this.onEvent(rv, arrival);
            },
            scan,
          );
          pending = keepFrom < data.length ? Buffer.from(data.subarray(keepFrom)) : undefined;
        });
        stream.on('error', (err) => {
          if (!started) reject(err);
        });
        stream.on('close', () => {
          if (!started) reject(new Error(`watch ${this.url}: stream closed before the response`));
          else if (!this.closing) this.terminated++;
        });
      });
    };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        next++;
        await openOne();
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  }

  private connect(u: URL): Promise<ClientHttp2Session> {
    const auth = authFor(u.href);
    return new Promise((resolve, reject) => {
      const session = connect(u.origin, {
        settings: { initialWindowSize: GO_STREAM_WINDOW },
        rejectUnauthorized: auth !== undefined && auth.insecure !== true,
        ...(auth?.ca ? { ca: auth.ca } : {}),
        ...(auth?.cert ? { cert: auth.cert } : {}),
        ...(auth?.key ? { key: auth.key } : {}),
        ...(auth?.serverName !== undefined ? { servername: auth.serverName } : isIP(u.hostname) === 0 ? { servername: u.hostname } : {}),
      });
      this.sessions.push(session);
      session.on('error', () => {});
      session.once('remoteSettings', () => {
        session.setLocalWindowSize(1 << 30);
        resolve(session);
      });
      session.once('close', () => reject(new Error(`${u.origin}: HTTP/2 connection closed before its settings`)));
      session.once('connect', () => {
        if (session.alpnProtocol !== 'h2') reject(new Error(`${u.origin}: the server did not negotiate h2 (${String(session.alpnProtocol)})`));
      });
    });
  }

  private captureFirst(data: Buffer): void {
    const start = data.indexOf(typeKey);
    const end = data.indexOf(0x0a, start);
    if (start >= 0 && end > start) this.firstEvent = Buffer.from(data.subarray(start, end));
  }

  /** Closes every connection (not counted as terminations). */
  close(): void {
    this.closing = true;
    for (const s of this.sessions) s.destroy();
  }
}
