/**
 * A bidirectional gRPC stream on an h2-connection.ts connection (a streaming call such as
 * etcd's Watch): length-prefixed messages written as the owner sends them, and the messages
 * received handed over one by one as they complete (one may span DATA frames, a frame may hold
 * several), then the call's outcome once.
 *
 * Back-pressure: the stream's receive window is given back to the server only for messages
 * handed over. `pause()` stops the handing over at the next message boundary; what arrives
 * meanwhile is held (at most the stream's window, 16 MiB, after which HTTP/2 flow control
 * holds etcd back), and `resume()` hands it over from the next tick. The connection's window
 * is given back on receipt (h2-connection.ts), so a paused stream never holds up the other
 * streams of the connection.
 *
 * The outcome is reported as watch-call-http2.ts reports node:http2's streams, with grpc-js
 * shaped errors (unary-call.ts): the trailers' status (after the messages before them are
 * handed over, paused or not), else an HTTP status, a reset's status, or the connection's
 * failure (UNAVAILABLE "Connection dropped: …"), dropping what was held, as node:http2 drops a
 * destroyed stream's buffer.
 */
import { Buffer } from 'node:buffer';
import type { H2Connection } from './h2-connection.js';
import { H2Stream } from './h2-stream.js';
import type { HeaderField } from './hpack.js';
import { FRAME_HEADER_BYTES, Status, decodeGrpcMessage, grpcError, httpStatusCode, resetStatus } from './unary-call.js';

/** What a message stream reports to its owner. */
export interface MessageReceiver {
  /**
   * One message received: `buf[start, end)` (without its length prefix). The bytes are the
   * owner's to keep (never a view of a buffer shared with other messages' bytes of any size).
   */
  onMessage(buf: Buffer, start: number, end: number): void;
  /** The call ended: `err` undefined for grpc-status OK, else a grpc-js shaped error. Called once. */
  onClose(err: Error | undefined): void;
}

/** A view of a larger buffer than this (its message's size times two, plus) is copied before it is handed over. */
const COPY_SLACK_BYTES = 8192;

export class MessageStream extends H2Stream {
  /** Received bytes not handed over yet (the front of the first may be a partial message), and their sum. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private paused = false;
  private drainScheduled = false;
  /** The server ended its side (trailers, or END_STREAM without them). */
  private serverEnded = false;
  /** The stream is closed (both sides ended, or reset): its outcome is known once what came before is handed over. */
  private closed = false;
  /** The outcome was reported (or the owner cancelled): nothing more is handed over. */
  private done = false;
  private readonly drainNow = (): void => {
    this.drainScheduled = false;
    this.drain();
  };

  constructor(
    private readonly connection: H2Connection,
    headerBlock: Buffer,
    private readonly receiver: MessageReceiver,
  ) {
    super(headerBlock, false, true);
    connection.openStream(this);
  }

  /** Sends one message (a gRPC length prefix is written into its first FRAME_HEADER_BYTES). */
  send(frame: Buffer): void {
    if (this.done) return;
    frame[0] = 0;
    frame.writeUInt32BE(frame.length - FRAME_HEADER_BYTES, 1);
    this.connection.sendData(this, frame);
  }

  /** Half-closes the stream: no more messages from this side. */
  end(): void {
    if (this.done) return;
    this.connection.endStream(this);
    if (this.serverEnded) this.close();
  }

  /** Cancels the call (RST_STREAM CANCEL); `onClose` gets CANCELLED on the next tick, unless it was reported already. */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.dropHeld();
    this.connection.resetStream(this);
    process.nextTick(() => this.receiver.onClose(grpcError(Status.CANCELLED, 'Cancelled on client')));
  }

  /** Ends the call with `err` (a message that cannot be read): RST_STREAM CANCEL, and `err` reported now. */
  abort(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.dropHeld();
    this.connection.resetStream(this);
    this.receiver.onClose(err);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if ((this.heldBytes > 0 || this.closed) && !this.drainScheduled) {
      this.drainScheduled = true;
      process.nextTick(this.drainNow);
    }
  }

  /** Bytes received and not handed over yet (what a paused stream holds). */
  get bufferedBytes(): number {
    return this.heldBytes;
  }

  onHeaders(fields: readonly HeaderField[], endStream: boolean): void {
    this.readStatus(fields);
    if (endStream) this.endRemote();
  }

  onData(data: Buffer, endStream: boolean): void {
    if (this.done) return;
    if (data.length > 0) {
      this.held.push(data);
      this.heldBytes += data.length;
      if (!this.paused) this.drain();
    }
    if (endStream) this.endRemote();
  }

  onReset(code: number): void {
    // As node:http2's streams are read (watch-call-http2.ts): a status already received stands.
    if (this.grpcStatus >= 0 || code === 0 || this.httpError()) {
      this.serverEnded = true;
      this.close();
    } else this.report(grpcError(...resetStatus(code)));
  }

  onFailure(err: Error): void {
    this.report(err);
  }

  /** Hands over the complete messages held, in order, until paused. */
  private drain(): void {
    const held = this.held;
    while (!this.paused && !this.done && held.length > 0) {
      let buf = held[0]!;
      if (buf.length < FRAME_HEADER_BYTES) {
        if (this.heldBytes < FRAME_HEADER_BYTES) break;
        buf = this.join(FRAME_HEADER_BYTES);
      }
      const total = FRAME_HEADER_BYTES + buf.readUInt32BE(1);
      if (buf.length < total) {
        // A message spread over many frames (a catch-up response of a megabyte comes in 16 KiB
        // frames) is joined once, when all of it is here, not frame by frame.
        if (this.heldBytes < total) break;
        buf = this.join(total);
      }
      if (buf[0] !== 0) {
        this.abort(grpcError(Status.INTERNAL, 'Received a compressed message that was not asked for'));
        return;
      }
      if (buf.length === total) held.shift();
      else held[0] = buf.subarray(total);
      this.heldBytes -= total;
      // A message in a socket read keeps the whole read alive, and decoded values are views of it.
      let message = buf;
      let start = FRAME_HEADER_BYTES;
      if (buf.buffer.byteLength > 2 * total + COPY_SLACK_BYTES) {
        message = Buffer.from(buf.subarray(FRAME_HEADER_BYTES, total));
        start = 0;
      }
      this.connection.consumed(this, total);
      this.receiver.onMessage(message, start, start + total - FRAME_HEADER_BYTES);
    }
    // Not paused and not done: what is left (if anything) is not a whole message.
    if (this.closed && !this.paused && !this.done) this.finish();
  }

  /** Joins the held buffers into one of at least `bytes` (they are there), in front of the rest. */
  private join(bytes: number): Buffer {
    const held = this.held;
    let count = 0;
    let sum = 0;
    while (sum < bytes) sum += held[count++]!.length;
    const joined = Buffer.concat(held.slice(0, count), sum);
    held.splice(0, count, joined);
    return joined;
  }

  /**
   * The server ended its side. With a status (or an HTTP error) the call is over, and this side
   * is ended too (the stream closes); without, the outcome waits for the server's RST_STREAM or
   * for this side's end, as with node:http2 (an END_STREAM then a reset is the reset's status).
   */
  private endRemote(): void {
    this.serverEnded = true;
    if (this.grpcStatus >= 0 || this.httpError()) {
      this.connection.endStream(this);
      this.close();
    }
  }

  /** The stream is closed: its outcome is reported once the messages before it are handed over. */
  private close(): void {
    this.closed = true;
    if (!this.paused) this.drain();
  }

  /** Reports the outcome the server ended the stream with. */
  private finish(): void {
    if (this.grpcStatus < 0) {
      const httpStatus = this.httpStatus;
      if (this.httpError()) this.report(grpcError(httpStatusCode(httpStatus), `Received HTTP status code ${httpStatus}`));
      else this.report(grpcError(Status.UNKNOWN, 'No status received'));
      return;
    }
    this.report(this.grpcStatus === Status.OK ? undefined : grpcError(this.grpcStatus, decodeGrpcMessage(this.grpcMessage)));
  }

  private report(err: Error | undefined): void {
    if (this.done) return;
    this.done = true;
    this.dropHeld();
    this.receiver.onClose(err);
  }

  private dropHeld(): void {
    this.held = [];
    this.heldBytes = 0;
  }
}
