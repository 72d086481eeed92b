import type { Socket } from 'node:net';
import { authHeaders, rawConnect } from './target.js';

const resourceVersionKey = Buffer.from('"resourceVersion":"');
const typeKey = Buffer.from('{"type":"');
const bookmark = Buffer.from('BOOKMARK');
const headerEnd = Buffer.from('\r\n\r\n');
/** Every watch connection reads into this buffer; each read is scanned before the next one. */
const sharedReadBuffer = Buffer.alloc(256 * 1024);

/**
 * The resourceVersion of one JSON watch event line: the first `"resourceVersion":"<digits>"`
 * (the object's metadata comes before anything else that could carry one). NaN when absent.
 */
export function eventResourceVersion(line: Buffer): number {
  const at = line.indexOf(resourceVersionKey);
  if (at < 0) return Number.NaN;
  let value = 0;
  let i = at + resourceVersionKey.length;
  for (; i < line.length; i++) {
    const c = line[i]!;
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
  }
  return i === at + resourceVersionKey.length ? Number.NaN : value;
}

/** Where a connection's scan is between reads. */
export interface ScanState {
  /** Inside an event line whose resourceVersion was taken: skip to its end (the next newline). */
  afterEvent: boolean;
}

/**
 * Finds every complete event in `data` (raw bytes of a chunked JSON watch body, framing
 * included): an event starts at `{"type":"` and its resourceVersion is the first
 * `"resourceVersion":"<digits>"` after that. Calls `onEvent(rv)` for non-bookmark events and
 * returns the offset from which bytes must be kept for the next read (an event whose
 * resourceVersion is not complete yet). With a `state` kept across reads, the rest of an
 * event whose resourceVersion was read is skipped to the next newline (one byte search, which
 * is much cheaper than searching the object for the next `{"type":"`; JSON lines hold no raw
 * newline, so the first one is the line's end, or chunk framing inside it, after which the
 * plain search takes over).
 */
export function scanEvents(data: Buffer, onEvent: (resourceVersion: number) => void, state: ScanState = { afterEvent: false }): number {
  let from = 0;
  for (;;) {
    if (state.afterEvent) {
      const newline = data.indexOf(0x0a, from);
      if (newline < 0) return data.length;
      state.afterEvent = false;
      from = newline + 1;
    }
    const start = data.indexOf(typeKey, from);
    if (start < 0) return Math.max(from, data.length - typeKey.length);
    const rvAt = data.indexOf(resourceVersionKey, start + typeKey.length);
    if (rvAt < 0) return start;
    let value = 0;
    let i = rvAt + resourceVersionKey.length;
    for (; i < data.length; i++) {
      const c = data[i]!;
      if (c < 0x30 || c > 0x39) break;
      value = value * 10 + (c - 0x30);
    }
    if (i >= data.length) return start;
    const isBookmark = data.compare(bookmark, 0, bookmark.length, start + typeKey.length, start + typeKey.length + bookmark.length) === 0;
    if (!isBookmark) onEvent(value);
    from = i;
    state.afterEvent = true;
  }
}

/**
 * Takes the HTTP/1.1 chunked framing off a response body, read by read: `decode` returns the
 * payload bytes of one read (a view of it when they are contiguous). Servers may split one
 * watch event over several chunks (kube-apiserver does when several events fill its 4 KiB
 * write buffer before a flush), so the framing must go before events are scanned.
 */
export class ChunkedDecoder {
  private state: 'size' | 'data' | 'crlf' | 'end' = 'size';
  private remaining = 0;
  private sizeLine = '';

  decode(input: Buffer): Buffer {
    const parts: Buffer[] = [];
    let i = 0;
    while (i < input.length && this.state !== 'end') {
      if (this.state === 'data') {
        const n = Math.min(this.remaining, input.length - i);
        parts.push(input.subarray(i, i + n));
        i += n;
        this.remaining -= n;
        if (this.remaining === 0) {
          this.state = 'crlf';
          this.remaining = 2;
        }
      } else if (this.state === 'crlf') {
        i++;
        if (--this.remaining === 0) this.state = 'size';
      } else {
        const newline = input.indexOf(0x0a, i);
        if (newline < 0) {
          this.sizeLine += input.toString('latin1', i);
          break;
        }
        this.sizeLine += input.toString('latin1', i, newline);
        i = newline + 1;
        const size = Number.parseInt(this.sizeLine.split(';')[0]!.trim(), 16);
        this.sizeLine = '';
        if (!(size > 0)) this.state = 'end';
        else {
          this.state = 'data';
          this.remaining = size;
        }
      }
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }
}

/**
 * `count` HTTP/1.1 chunked watch connections to one URL (TCP or TLS), read off raw sockets (no
 * HTTP client: at 100,000 events a second the load generator's own parsing would be the
 * bottleneck). For every non-bookmark event it calls `onEvent(resourceVersion, arrival)` with
 * `performance.now()` taken when the bytes arrived. Connections that end while the pool is
 * open count as terminated (the requests say `Connection: close`, so a server that ends a
 * watch response — e.g. closing a watcher that fell behind — closes the connection too).
 */
export class WatcherPool {
  private readonly sockets: Socket[] = [];
  private closing = false;
  /** Watch connections that ended or broke while the pool was open. */
  terminated = 0;
  /** The first event of the first connection, as raw body bytes (a template for the bare baseline). */
  firstEvent: Buffer | undefined;

  constructor(
    private readonly url: string,
    private readonly onEvent: (resourceVersion: number, arrival: number) => void,
  ) {}

  /** Opens `count` watches, `parallel` at a time; resolves once every one answered 200; rejects otherwise. */
  async open(count: number, parallel = 50): Promise<void> {
    const u = new URL(this.url);
    const extra = Object.entries(authHeaders(this.url)).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const requestBytes = Buffer.from(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\nUser-Agent: kapi-bench\r\nConnection: close\r\n${extra}\r\n`);
    let next = 0;
    const openOne = (): Promise<void> =>
      new Promise((resolve, reject) => {
        let head: Buffer | undefined = Buffer.alloc(0);
        let pending: Buffer | undefined;
        let decoder: ChunkedDecoder | undefined;
        const scan: ScanState = { afterEvent: false };
        let ended = false;
        const end = (err?: Error) => {
          if (ended) return;
          ended = true;
          if (head !== undefined) reject(err ?? new Error(`watch ${this.url}: connection closed before the response`));
          else if (!this.closing) this.terminated++;
        };
        const onBytes = (chunk: Buffer) => {
          const arrival = performance.now();
          let body: Buffer = chunk;
          if (head !== undefined) {
            head = Buffer.concat([head, chunk]);
            const at = head.indexOf(headerEnd);
            if (at < 0) return;
            const status = head.subarray(0, head.indexOf('\r\n')).toString();
            if (!/^HTTP\/1\.1 200 /.test(status)) {
              reject(new Error(`watch ${this.url}: ${status} ${head.subarray(at + 4, at + 304).toString()}`));
              socket.destroy();
              return;
            }
            body = head.subarray(at + 4);
            if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head.subarray(0, at + 2).toString('latin1'))) decoder = new ChunkedDecoder();
            head = undefined;
            resolve();
          }
          if (decoder !== undefined) body = decoder.decode(body);
          if (body.length === 0) return;
          const data = pending ? Buffer.concat([pending, body]) : body;
          const keepFrom = scanEvents(
            data,
            (rv) => {
              if (this.firstEvent === undefined) this.captureFirst(data);
              this.onEvent(rv, arrival);
            },
            scan,
          );
          // `data` may be the shared read buffer: keep a copy of the unfinished tail.
          pending = keepFrom < data.length ? Buffer.from(data.subarray(keepFrom)) : undefined;
        };
        // Plain TCP reads land in one shared buffer and are scanned at once: no allocation per read.
        const socket = rawConnect(u, sharedReadBuffer, onBytes);
        this.sockets.push(socket);
        socket.setNoDelay(true);
        socket.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(requestBytes));
        socket.on('error', (err) => end(err));
        socket.on('close', () => end());
      });
    const worker = async (): Promise<void> => {
      while (next < count) {
        next++;
        await openOne();
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  }

  /** Keeps the first complete event line (from `{"type":"` to its newline) of `data`. */
  private captureFirst(data: Buffer): void {
    const start = data.indexOf(typeKey);
    const end = data.indexOf(0x0a, start);
    if (start >= 0 && end > start) this.firstEvent = Buffer.from(data.subarray(start, end));
  }

  /** Closes every connection (not counted as terminations). */
  close(): void {
    this.closing = true;
    for (const s of this.sockets) s.destroy();
  }
}
