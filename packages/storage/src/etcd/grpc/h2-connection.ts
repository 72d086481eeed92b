/**
 * A minimal HTTP/2 client connection (RFC 9113) for gRPC, on a plain TCP or TLS socket: the
 * one connection to an etcd member, for its unary calls and its Watch streams.
 *
 * A unary call is one HEADERS frame (a header block encoded once per method, hpack.ts) and its
 * DATA, written together with the other calls of the same loop turn; the answer is read from
 * the frames as they are parsed, with no stream object, event emitter or header object per
 * call. node:http2 spends most of a unary call's CPU on exactly those
 * (scripts/bench-etcd-client.mjs). A bidirectional stream (h2-message-stream.ts) opens with
 * HEADERS alone, sends DATA as its owner writes (within the peer's windows; what they do not
 * take waits for WINDOW_UPDATE) and gives its receive window back as its owner consumes what
 * arrived; the connection's own window is given back as DATA arrives, so one stream whose
 * reader stopped holds back only its own sender. An open stream keeps the process alive.
 *
 * etcd's answers need little of HTTP/2: SETTINGS, WINDOW_UPDATE (both directions), PING,
 * GOAWAY and RST_STREAM are handled; PUSH_PROMISE is refused (push is disabled), PRIORITY and
 * unknown frames are ignored.
 *
 * Failures are reported as member.ts's Connection reports them for node:http2, so that the
 * client's failover sees the same errors: before the connection is made "No connection
 * established. Last error: …", after "Connection dropped: …" (both UNAVAILABLE).
 */
import { Buffer } from 'node:buffer';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { HpackDecoder, HpackError, type HeaderField } from './hpack.js';
import type { H2Stream } from './h2-stream.js';
import { UnaryStream, type UnaryExchange } from './h2-unary-stream.js';
import { grpcError, Status } from './unary-call.js';

export type { UnaryExchange } from './h2-unary-stream.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER = 9;

const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;

const SETTINGS_HEADER_TABLE_SIZE = 0x1;
const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;

const NO_ERROR = 0x0;
const PROTOCOL_ERROR = 0x1;
const FLOW_CONTROL_ERROR = 0x3;
const FRAME_SIZE_ERROR = 0x6;
const CANCEL = 0x8;
const COMPRESSION_ERROR = 0x9;

const DEFAULT_WINDOW = 65_535;
const MAX_STREAM_ID = 0x7fff_ffff;
/** Our receive windows (stream and connection): large, so that a long list is not paced by window updates. */
const WINDOW_BYTES = 16 * 1024 * 1024;
/** The largest frame we accept (SETTINGS_MAX_FRAME_SIZE is not sent, so the default). */
const MAX_FRAME_IN = 16_384;
/** The reused read buffer of a plain TCP connection: 64 KiB, as much as Node reads at once by default. */
const READ_BUFFER_BYTES = 64 * 1024;

export interface H2ConnectionOptions {
  /** TLS material (PEM), for an https endpoint. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly dialTimeoutMs: number;
  /** Idle time on a busy connection before it is pinged, and how long the ping may take. */
  readonly keepaliveTimeMs: number;
  readonly keepaliveTimeoutMs: number;
}

export class H2Connection {
  connected = false;
  /** Set by a GOAWAY or when stream ids run out: calls in flight finish, new ones go to a new connection. */
  draining = false;
  closed = false;
  lastError: Error | undefined;
  /** Streams open or waiting (the connection is pinged only while there are some). */
  active = 0;

  private readonly socket: Socket;
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, H2Stream>();
  /** Streams waiting for the server's stream limit. */
  private readonly waiting: H2Stream[] = [];
  /** Open streams that keep the process alive (the socket is ref'd while there are some). */
  private holding = 0;
  private nextStreamId = 1;
  private maxConcurrentStreams = Infinity;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = 16_384;
  private connectionSendWindow = DEFAULT_WINDOW;
  private connectionReceivedSinceUpdate = 0;
  /** Open streams with DATA held back by flow control (those whose `unsent` is set), in order. */
  private readonly blocked: H2Stream[] = [];
  private out: Buffer[] = [];
  private outBytes = 0;
  private flushScheduled = false;
  private readBuffer: Buffer | undefined;
  /** A header block being continued (CONTINUATION): its stream, END_STREAM flag and fragments. */
  private continuing: { streamId: number; endStream: boolean; fragments: Buffer[] } | undefined;
  private lastFrame = Date.now();
  private pingOutstanding = false;
  private keepalive: NodeJS.Timeout | undefined;
  private readonly dialTimer: NodeJS.Timeout;
  private readonly flushNow = (): void => this.flush();

  constructor(endpoint: URL, private readonly options: H2ConnectionOptions) {
    const host = endpoint.hostname.replace(/^\[|\]$/g, '');
    const port = Number(endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80));
    if (endpoint.protocol === 'https:') {
      this.socket = connectTls({
        host,
        port,
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ALPNProtocols: ['h2'],
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.cert !== undefined ? { cert: options.cert, key: options.key } : {}),
      });
      this.socket.once('secureConnect', () => this.onConnect((this.socket as unknown as { alpnProtocol: string | false }).alpnProtocol));
    } else {
      // Reads land in one reused buffer and go straight to onRead, without the stream's
      // push/'data' machinery per read (a unary answer and a watch event are a read each).
      const readInto = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
      this.socket = connectTcp({ host, port, onread: { buffer: readInto, callback: (bytes: number) => this.onRead(readInto, bytes) } });
      this.socket.once('connect', () => this.onConnect('h2'));
    }
    this.socket.setNoDelay(true);
    this.socket.unref();
    if (endpoint.protocol === 'https:') this.socket.on('data', (chunk: Buffer) => this.onChunk(chunk));
    this.socket.on('error', (err: Error) => {
      this.lastError ??= err;
    });
    this.socket.on('close', () => this.onClose());
    this.dialTimer = setTimeout(() => {
      if (!this.connected) this.destroy(new Error(`Failed to connect within ${options.dialTimeoutMs} ms`));
    }, options.dialTimeoutMs);
    this.dialTimer.unref();
    // The preface, our SETTINGS and the connection window go out as soon as the socket connects.
    const settings = frameHeader(18, SETTINGS, 0, 0);
    const payload = Buffer.allocUnsafe(18);
    payload.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    payload.writeUInt32BE(0, 2);
    payload.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    payload.writeUInt32BE(WINDOW_BYTES, 8);
    payload.writeUInt16BE(SETTINGS_HEADER_TABLE_SIZE, 12);
    payload.writeUInt32BE(4096, 14);
    this.queue(PREFACE);
    this.queue(settings);
    this.queue(payload);
    this.queue(windowUpdate(0, WINDOW_BYTES - DEFAULT_WINDOW));
  }

  /** Whether new calls may start here. */
  get usable(): boolean {
    return !this.closed && !this.draining;
  }

  /** Starts a unary call (or queues it behind the server's stream limit). */
  start(exchange: UnaryExchange): void {
    if (this.closed) {
      exchange.end(this.failure(), 0, '', undefined);
      return;
    }
    this.begin(new UnaryStream(exchange));
  }

  /**
   * Opens `stream` (a bidirectional stream: its HEADERS go without END_STREAM unless it was
   * ended already), or queues it behind the server's stream limit. On a closed connection the
   * stream's `onFailure` is called on the next tick.
   */
  openStream(stream: H2Stream): void {
    if (this.closed) {
      const err = this.failure();
      process.nextTick(() => stream.onFailure(err));
      return;
    }
    this.begin(stream);
  }

  /**
   * Sends `data` on `stream` (written before the stream opens, it follows its HEADERS), as
   * flow control allows: what the windows do not take now is held, in order, until the
   * server's WINDOW_UPDATEs. Nothing is sent on a stream that ended or was ended.
   */
  sendData(stream: H2Stream, data: Buffer): void {
    if (!this.carries(stream) || stream.endAfterUnsent || data.length === 0) return;
    if (stream.id !== 0 && stream.unsent === undefined && data.length <= this.peerMaxFrame && data.length <= stream.sendWindow && data.length <= this.connectionSendWindow) {
      stream.sendWindow -= data.length;
      this.connectionSendWindow -= data.length;
      this.queue(frameHeader(data.length, DATA, 0, stream.id));
      this.queue(data);
      return;
    }
    if (stream.unsent !== undefined) {
      stream.unsent.push(data);
      return;
    }
    stream.unsent = [data];
    if (stream.id !== 0) {
      this.blocked.push(stream);
      this.sendBlocked();
    }
  }

  /** Half-closes `stream`: END_STREAM after what was written (at once when the peer ended its side: the stream closes). */
  endStream(stream: H2Stream): void {
    if (!this.carries(stream) || stream.endAfterUnsent) return;
    stream.endAfterUnsent = true;
    if (stream.remoteEnded) {
      // Both sides ended: the stream is closed (what was not sent yet never will be).
      this.queue(frameHeader(0, DATA, FLAG_END_STREAM, stream.id));
      this.removeStream(stream);
    } else if (stream.id !== 0 && stream.unsent === undefined) this.queue(frameHeader(0, DATA, FLAG_END_STREAM, stream.id));
  }

  /**
   * Counts `bytes` of `stream`'s DATA as consumed by its owner (a stream that does not credit
   * on receipt): its window is given back to the server once half of it is used.
   */
  consumed(stream: H2Stream, bytes: number): void {
    if (stream.id !== 0 && this.streams.get(stream.id) === stream) this.credit(stream, bytes);
  }

  private credit(stream: H2Stream, bytes: number): void {
    stream.receivedSinceUpdate += bytes;
    if (stream.receivedSinceUpdate >= WINDOW_BYTES / 2) {
      this.queue(windowUpdate(stream.id, stream.receivedSinceUpdate));
      stream.receivedSinceUpdate = 0;
    }
  }

  /**
   * Resets `stream` with CANCEL (RST_STREAM; a waiting one just leaves the queue); none of its
   * hooks is called afterwards. Returns false when it had already ended.
   */
  resetStream(stream: H2Stream): boolean {
    const queued = this.waiting.indexOf(stream);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.active--;
      return true;
    }
    if (stream.id === 0 || this.streams.get(stream.id) !== stream) return false;
    this.removeStream(stream);
    this.queue(rstStream(stream.id, CANCEL));
    return true;
  }

  /**
   * Cancels the call of `exchange` (its deadline passed): RST_STREAM CANCEL, and nothing more is
   * reported to it. Returns false when it had already ended.
   */
  cancel(exchange: UnaryExchange): boolean {
    const stream = exchange.streamId !== 0 ? this.streams.get(exchange.streamId) : this.waiting.find((s) => s instanceof UnaryStream && s.exchange === exchange);
    if (!(stream instanceof UnaryStream) || stream.exchange !== exchange) return false;
    return this.resetStream(stream);
  }

  /** Closes the connection at once; calls in flight fail with `err` as the connection's failure. */
  destroy(err?: Error): void {
    if (err !== undefined) this.lastError ??= err;
    this.socket.destroy();
    this.onClose();
  }

  /** The error for a call that this connection could not carry. */
  failure(): Error {
    const last = this.lastError !== undefined ? this.lastError.message : 'connection closed';
    return this.connected
      ? grpcError(Status.UNAVAILABLE, `Connection dropped: ${last}`)
      : grpcError(Status.UNAVAILABLE, `No connection established. Last error: ${last}`);
  }

  /** Whether `stream` is open or waiting here. */
  private carries(stream: H2Stream): boolean {
    return stream.id !== 0 ? this.streams.get(stream.id) === stream : this.waiting.includes(stream);
  }

  private begin(stream: H2Stream): void {
    this.active++;
    if (this.streams.size >= this.maxConcurrentStreams) {
      this.waiting.push(stream);
      return;
    }
    this.open(stream);
  }

  private open(stream: H2Stream): void {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    if (this.nextStreamId > MAX_STREAM_ID) this.draining = true;
    stream.id = id;
    if (stream instanceof UnaryStream) stream.exchange.streamId = id;
    stream.sendWindow = this.peerInitialWindow;
    this.streams.set(id, stream);
    if (stream.keepsAlive && this.holding++ === 0) this.socket.ref();
    const block = stream.headerBlock;
    const unsent = stream.unsent;
    if (unsent === undefined) {
      const head = Buffer.allocUnsafe(FRAME_HEADER + block.length);
      writeFrameHeader(head, 0, block.length, HEADERS, FLAG_END_HEADERS | (stream.endAfterUnsent ? FLAG_END_STREAM : 0), id);
      block.copy(head, FRAME_HEADER);
      this.queue(head);
      return;
    }
    // One buffer for the HEADERS frame and, when the message fits the windows and one frame, the DATA frame's header.
    const message = unsent[0]!;
    const whole = unsent.length === 1 && message.length <= this.peerMaxFrame && message.length <= stream.sendWindow && message.length <= this.connectionSendWindow;
    const head = Buffer.allocUnsafe(FRAME_HEADER + block.length + (whole ? FRAME_HEADER : 0));
    writeFrameHeader(head, 0, block.length, HEADERS, FLAG_END_HEADERS, id);
    block.copy(head, FRAME_HEADER);
    if (whole) {
      writeFrameHeader(head, FRAME_HEADER + block.length, message.length, DATA, stream.endAfterUnsent ? FLAG_END_STREAM : 0, id);
      stream.sendWindow -= message.length;
      this.connectionSendWindow -= message.length;
      stream.unsent = undefined;
      this.queue(head);
      this.queue(message);
    } else {
      this.queue(head);
      this.blocked.push(stream);
      this.sendBlocked();
    }
  }

  /** Sends what flow control allows of the held-back DATA, in stream order. */
  private sendBlocked(): void {
    while (this.blocked.length > 0 && this.connectionSendWindow > 0) {
      const stream = this.blocked[0]!;
      const unsent = stream.unsent!;
      while (unsent.length > 0 && stream.sendWindow > 0 && this.connectionSendWindow > 0) {
        const buf = unsent[0]!;
        const size = Math.min(buf.length, this.peerMaxFrame, stream.sendWindow, this.connectionSendWindow);
        const whole = size === buf.length;
        const last = whole && unsent.length === 1 && stream.endAfterUnsent;
        this.queue(frameHeader(size, DATA, last ? FLAG_END_STREAM : 0, stream.id));
        this.queue(whole ? buf : buf.subarray(0, size));
        if (whole) unsent.shift();
        else unsent[0] = buf.subarray(size);
        stream.sendWindow -= size;
        this.connectionSendWindow -= size;
      }
      if (unsent.length > 0) {
        if (stream.sendWindow <= 0) {
          // This stream waits for its own window; others may still send.
          this.blocked.push(this.blocked.shift()!);
          if (this.blocked.every((s) => s.sendWindow <= 0)) return;
        }
        continue;
      }
      stream.unsent = undefined;
      this.blocked.shift();
    }
  }

  private queue(buf: Buffer): void {
    this.out.push(buf);
    this.outBytes += buf.length;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // After the loop's I/O phase, not the tick: node:http2 runs each request it reads in a
      // callback of its own, draining the tick queue after each, so a tick holds one call. The
      // check phase gathers every call the phase's reads started into one socket write (on
      // loopback a write also runs etcd's receive path, ~40-80 µs of this thread's CPU).
      setImmediate(this.flushNow);
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closed || this.out.length === 0) return;
    const out = this.out;
    this.out = [];
    if (out.length === 1) this.socket.write(out[0]!);
    else if (this.outBytes <= 65_536) this.socket.write(Buffer.concat(out, this.outBytes));
    else {
      this.socket.cork();
      for (const buf of out) this.socket.write(buf);
      this.socket.uncork();
    }
    this.outBytes = 0;
  }

  private onConnect(protocol: string | false): void {
    clearTimeout(this.dialTimer);
    if (this.closed) return;
    if (protocol !== 'h2') {
      this.destroy(new Error('protocol error: the server did not negotiate h2'));
      return;
    }
    this.connected = true;
    this.startKeepalive();
  }

  /**
   * `bytes` read into `readInto` (a plain TCP socket's reused buffer): copied out to a buffer of
   * their own first, since frames, unary answers and watch messages keep views of what was read.
   */
  private onRead(readInto: Buffer, bytes: number): true {
    const chunk = Buffer.allocUnsafeSlow(bytes);
    readInto.copy(chunk, 0, 0, bytes);
    this.onChunk(chunk);
    return true;
  }

  /** One read from the socket. */
  private onChunk(chunk: Buffer): void {
    // Any bytes from the server count as liveness (keepalive pings wait for silence).
    this.lastFrame = Date.now();
    try {
      this.onData(chunk);
    } catch (err) {
      // A defect here must not take the process down: the connection fails, its calls with it.
      this.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private onData(chunk: Buffer): void {
    let buf = chunk;
    if (this.readBuffer !== undefined) {
      buf = Buffer.concat([this.readBuffer, chunk]);
      this.readBuffer = undefined;
    }
    let pos = 0;
    while (!this.closed && buf.length - pos >= FRAME_HEADER) {
      const length = (buf[pos]! << 16) | (buf[pos + 1]! << 8) | buf[pos + 2]!;
      if (length > MAX_FRAME_IN) {
        this.connectionError(FRAME_SIZE_ERROR, `frame of ${length} bytes`);
        return;
      }
      if (buf.length - pos < FRAME_HEADER + length) break;
      const type = buf[pos + 3]!;
      const flags = buf[pos + 4]!;
      const streamId = buf.readUInt32BE(pos + 5) & MAX_STREAM_ID;
      const payload = buf.subarray(pos + FRAME_HEADER, pos + FRAME_HEADER + length);
      pos += FRAME_HEADER + length;
      this.onFrame(type, flags, streamId, payload);
    }
    if (pos < buf.length && !this.closed) this.readBuffer = buf.subarray(pos);
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.continuing !== undefined && (type !== CONTINUATION || streamId !== this.continuing.streamId)) {
      this.connectionError(PROTOCOL_ERROR, 'expected CONTINUATION');
      return;
    }
    switch (type) {
      case DATA:
        this.onDataFrame(flags, streamId, payload);
        return;
      case HEADERS: {
        let start = 0;
        let end = payload.length;
        if ((flags & FLAG_PADDED) !== 0) {
          end -= payload[0]!;
          start = 1;
        }
        if ((flags & FLAG_PRIORITY) !== 0) start += 5;
        if (start > end) {
          this.connectionError(PROTOCOL_ERROR, 'bad HEADERS padding');
          return;
        }
        const fragment = payload.subarray(start, end);
        const endStream = (flags & FLAG_END_STREAM) !== 0;
        if ((flags & FLAG_END_HEADERS) !== 0) this.onHeaderBlock(streamId, endStream, fragment);
        else this.continuing = { streamId, endStream, fragments: [Buffer.from(fragment)] };
        return;
      }
      case CONTINUATION: {
        const continuing = this.continuing;
        if (continuing === undefined) {
          this.connectionError(PROTOCOL_ERROR, 'unexpected CONTINUATION');
          return;
        }
        continuing.fragments.push(Buffer.from(payload));
        if ((flags & FLAG_END_HEADERS) !== 0) {
          this.continuing = undefined;
          this.onHeaderBlock(continuing.streamId, continuing.endStream, Buffer.concat(continuing.fragments));
        }
        return;
      }
      case RST_STREAM: {
        const stream = this.streams.get(streamId);
        if (stream === undefined || payload.length !== 4) return;
        this.removeStream(stream);
        stream.onReset(payload.readUInt32BE(0));
        return;
      }
      case SETTINGS:
        if ((flags & FLAG_ACK) === 0) this.onSettings(payload);
        return;
      case PUSH_PROMISE:
        this.connectionError(PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled');
        return;
      case PING:
        if ((flags & FLAG_ACK) === 0) {
          this.queue(frameHeader(8, PING, FLAG_ACK, 0));
          this.queue(Buffer.from(payload));
        } else {
          this.pingOutstanding = false;
        }
        return;
      case GOAWAY:
        this.onGoaway(payload);
        return;
      case WINDOW_UPDATE: {
        const increment = payload.readUInt32BE(0) & 0x7fff_ffff;
        if (streamId === 0) this.connectionSendWindow += increment;
        else {
          const stream = this.streams.get(streamId);
          if (stream === undefined) return;
          stream.sendWindow += increment;
        }
        if (this.blocked.length > 0) this.sendBlocked();
        return;
      }
      default:
        return; // PRIORITY and unknown frame types
    }
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    // Flow control counts the whole payload, padding included, also for streams already gone;
    // the connection's window is given back as DATA arrives, so that a stream whose reader
    // stopped (its own window closing) never holds up the others.
    this.connectionReceivedSinceUpdate += payload.length;
    if (this.connectionReceivedSinceUpdate >= WINDOW_BYTES / 2) {
      this.queue(windowUpdate(0, this.connectionReceivedSinceUpdate));
      this.connectionReceivedSinceUpdate = 0;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    let data = payload;
    if ((flags & FLAG_PADDED) !== 0) {
      const padding = payload[0]!;
      if (padding >= payload.length) {
        this.connectionError(PROTOCOL_ERROR, 'bad DATA padding');
        return;
      }
      data = payload.subarray(1, payload.length - padding);
    }
    if (stream.remoteEnded) return; // DATA after END_STREAM: not ours to read
    const endStream = (flags & FLAG_END_STREAM) !== 0;
    if (endStream) this.remoteEnd(stream);
    else this.credit(stream, stream.creditsOnReceipt ? payload.length : payload.length - data.length);
    stream.onData(data, endStream);
  }

  private onHeaderBlock(streamId: number, endStream: boolean, block: Buffer): void {
    let fields: HeaderField[];
    try {
      // Every block is decoded, also a late one for a cancelled stream: the dynamic table depends on it.
      fields = this.decoder.decode(block);
    } catch (err) {
      if (!(err instanceof HpackError)) throw err;
      this.connectionError(COMPRESSION_ERROR, err.message);
      return;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined || stream.remoteEnded) return;
    if (endStream) this.remoteEnd(stream);
    stream.onHeaders(fields, endStream);
  }

  /** The peer ended `stream`'s side: closed when ours had ended too (always so for a unary call). */
  private remoteEnd(stream: H2Stream): void {
    if (stream.endAfterUnsent) this.removeStream(stream);
    else stream.remoteEnded = true;
  }

  private removeStream(stream: H2Stream): void {
    this.streams.delete(stream.id);
    this.active--;
    if (stream.keepsAlive && --this.holding === 0) this.socket.unref();
    if (stream.unsent !== undefined) {
      stream.unsent = undefined;
      const i = this.blocked.indexOf(stream);
      if (i >= 0) this.blocked.splice(i, 1);
    }
    if (this.waiting.length > 0 && !this.closed && this.streams.size < this.maxConcurrentStreams) this.open(this.waiting.shift()!);
    if (this.draining && this.streams.size === 0 && this.waiting.length === 0) this.close();
  }

  private onSettings(payload: Buffer): void {
    if (payload.length % 6 !== 0) {
      this.connectionError(FRAME_SIZE_ERROR, 'SETTINGS of a bad length');
      return;
    }
    for (let pos = 0; pos < payload.length; pos += 6) {
      const id = payload.readUInt16BE(pos);
      const value = payload.readUInt32BE(pos + 2);
      if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_STREAM_ID) {
          this.connectionError(FLOW_CONTROL_ERROR, 'initial window too large');
          return;
        }
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      } else if (id === SETTINGS_MAX_FRAME_SIZE) {
        this.peerMaxFrame = value;
      } else if (id === SETTINGS_MAX_CONCURRENT_STREAMS) {
        this.maxConcurrentStreams = value;
      }
      // HEADER_TABLE_SIZE bounds the table of the server's decoder, which our literals never use.
    }
    this.queue(frameHeader(0, SETTINGS, FLAG_ACK, 0));
    if (this.blocked.length > 0) this.sendBlocked();
    while (this.waiting.length > 0 && this.streams.size < this.maxConcurrentStreams) this.open(this.waiting.shift()!);
  }

  private onGoaway(payload: Buffer): void {
    const lastStreamId = payload.readUInt32BE(0) & MAX_STREAM_ID;
    const code = payload.readUInt32BE(4);
    this.draining = true;
    if (code !== NO_ERROR) {
      // As node:http2: a GOAWAY with an error ends the session (and its calls) at once.
      this.destroy(new Error(`Session closed with error code ${code}`));
      return;
    }
    for (const stream of [...this.streams.values()]) {
      if (stream.id <= lastStreamId) continue;
      this.removeStream(stream);
      stream.onFailure(grpcError(Status.UNAVAILABLE, 'Stream refused by server'));
    }
    for (const stream of this.waiting.splice(0)) {
      this.active--;
      stream.onFailure(grpcError(Status.UNAVAILABLE, 'Stream refused by server'));
    }
    if (this.streams.size === 0) this.close();
  }

  /** A connection error: GOAWAY with `code`, then the connection is closed and its calls fail. */
  private connectionError(code: number, reason: string): void {
    const payload = Buffer.allocUnsafe(8);
    payload.writeUInt32BE(0, 0); // the last stream the server started: none
    payload.writeUInt32BE(code, 4);
    this.queue(frameHeader(8, GOAWAY, 0, 0));
    this.queue(payload);
    this.flush();
    this.destroy(new Error(`Protocol error: ${reason}`));
  }

  /** Ends the connection once nothing is in flight (a drained one). */
  private close(): void {
    this.flush();
    this.socket.end();
    this.onClose();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.dialTimer);
    clearInterval(this.keepalive);
    const streams = [...this.streams.values()];
    this.streams.clear();
    const waiting = this.waiting.splice(0);
    this.blocked.length = 0;
    this.active = 0;
    if (this.holding > 0) this.socket.unref();
    this.holding = 0;
    for (const stream of streams) stream.onFailure(this.failure());
    for (const stream of waiting) stream.onFailure(this.failure());
  }

  private startKeepalive(): void {
    const { keepaliveTimeMs: timeMs, keepaliveTimeoutMs: timeoutMs } = this.options;
    this.keepalive = setInterval(() => {
      if (this.active === 0 || this.pingOutstanding || Date.now() - this.lastFrame < timeMs) return;
      this.pingOutstanding = true;
      const timer = setTimeout(() => {
        if (this.pingOutstanding && !this.closed) this.destroy(new Error(`keepalive ping not answered within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.queue(frameHeader(8, PING, 0, 0));
      this.queue(Buffer.alloc(8));
    }, Math.min(timeMs, 1000));
    this.keepalive.unref();
  }
}

function writeFrameHeader(buf: Buffer, at: number, length: number, type: number, flags: number, streamId: number): void {
  buf[at] = length >>> 16;
  buf[at + 1] = (length >>> 8) & 0xff;
  buf[at + 2] = length & 0xff;
  buf[at + 3] = type;
  buf[at + 4] = flags;
  buf.writeUInt32BE(streamId, at + 5);
}

function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER);
  writeFrameHeader(buf, 0, length, type, flags, streamId);
  return buf;
}

function windowUpdate(streamId: number, increment: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(buf, 0, 4, WINDOW_UPDATE, 0, streamId);
  buf.writeUInt32BE(increment, FRAME_HEADER);
  return buf;
}

function rstStream(streamId: number, code: number): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(buf, 0, 4, RST_STREAM, 0, streamId);
  buf.writeUInt32BE(code, FRAME_HEADER);
  return buf;
}
