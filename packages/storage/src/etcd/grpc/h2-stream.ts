/**
 * One stream of an h2-connection.ts connection, as the connection sees it: its send side
 * (kept by the connection: the peer's window, DATA held back by flow control, whether
 * END_STREAM follows it) and the hooks through which the connection hands it what arrives.
 * Two kinds exist: a unary call (h2-connection.ts's UnaryStream: one request, the whole answer
 * at its end) and a bidirectional message stream (h2-message-stream.ts: gRPC messages both
 * ways, for as long as it is open).
 *
 * The connection calls `onReset` or `onFailure` at most once, after it has removed the stream,
 * and nothing after it; `onHeaders` / `onData` with `endStream` say the peer ended its side
 * (the stream is removed then when ours had ended, else it stays: see `remoteEnded`).
 */
import type { Buffer } from 'node:buffer';
import type { HeaderField } from './hpack.js';

export abstract class H2Stream {
  /** The stream's id, set when the connection opens it (0 while it waits for a stream slot). */
  id = 0;
  /** What the peer lets us send on this stream (its window). */
  sendWindow = 0;
  /** DATA not sent yet (held back by flow control, or written before the stream opened), in order. */
  unsent: Buffer[] | undefined;
  /** Whether END_STREAM follows the unsent DATA (or goes with the HEADERS when there is none). */
  endAfterUnsent = false;
  /**
   * The peer ended its side (END_STREAM) while ours is open: the stream stays until ours ends
   * too (`H2Connection.endStream`) or either side resets it, as node:http2 keeps it.
   */
  remoteEnded = false;
  /** Bytes received and consumed since the stream's last WINDOW_UPDATE. */
  receivedSinceUpdate = 0;
  /** The response's HTTP status (0 before its headers), and gRPC's status (-1 while none came) and message. */
  httpStatus = 0;
  grpcStatus = -1;
  grpcMessage = '';
  private sawHeaders = false;

  /**
   * The request's header block (hpack.ts). `creditsOnReceipt`: DATA is counted as consumed as
   * it arrives (a unary answer is wanted whole); else only as the owner reports it consumed
   * (`H2Connection.consumed`), so that a stream whose reader stops holds its sender back.
   * `keepsAlive`: the connection keeps the process alive while the stream is open.
   */
  constructor(
    readonly headerBlock: Buffer,
    readonly creditsOnReceipt: boolean,
    readonly keepsAlive: boolean,
  ) {}

  /** A header block: the response headers (the first) or trailers. */
  abstract onHeaders(fields: readonly HeaderField[], endStream: boolean): void;
  /** Reads the statuses a header block carries: `:status` from the first, grpc-status and grpc-message from any. */
  protected readStatus(fields: readonly HeaderField[]): void {
    const first = !this.sawHeaders;
    this.sawHeaders = true;
    for (const [name, value] of fields) {
      if (name === 'grpc-status') this.grpcStatus = Number(value);
      else if (name === 'grpc-message') this.grpcMessage = value;
      else if (first && name === ':status') this.httpStatus = Number(value);
    }
  }
  /** Whether the response's HTTP status is one gRPC does not answer with (not 200). */
  protected httpError(): boolean {
    return this.httpStatus !== 0 && this.httpStatus !== 200;
  }
  /** DATA (padding removed; may be empty when it only ends the stream). */
  abstract onData(data: Buffer, endStream: boolean): void;
  /** The peer reset the stream with `code`. */
  abstract onReset(code: number): void;
  /** The connection could not carry the stream: `err` is UNAVAILABLE, as h2-connection.ts says. */
  abstract onFailure(err: Error): void;
}
