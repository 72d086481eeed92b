/**
 * A unary call's stream on an h2-connection.ts connection: one request message with
 * END_STREAM, and the answer (headers, one message, trailers) reported whole when the server
 * ends the stream, read as unary-call.ts reads node:http2's streams.
 */
import { Buffer } from 'node:buffer';
import { H2Stream } from './h2-stream.js';
import type { HeaderField } from './hpack.js';
import { grpcError, httpStatusCode, resetStatus, Status } from './unary-call.js';

/** RST_STREAM's NO_ERROR. */
const NO_ERROR = 0;

/** How a unary call ends: with its status, message and response body, or with an error. */
export interface UnaryExchange {
  /** The request: a header block (hpack.ts) and one length-prefixed message. */
  readonly headerBlock: Buffer;
  readonly message: Buffer;
  /** Set by the connection: the call's stream (0 while it waits for one). */
  streamId: number;
  /** Called once: `err` for a failure without a gRPC status, else the call's status, grpc-message and body. */
  end(err: Error | undefined, status: number, grpcMessage: string, body: Buffer | undefined): void;
}

/** A unary call's stream: what was received so far, reported whole when it ends. */
export class UnaryStream extends H2Stream {
  single: Buffer | undefined;
  chunks: Buffer[] | undefined;

  constructor(readonly exchange: UnaryExchange) {
    super(exchange.headerBlock, true, false);
    this.unsent = [exchange.message];
    this.endAfterUnsent = true;
  }

  onHeaders(fields: readonly HeaderField[], endStream: boolean): void {
    this.readStatus(fields);
    if (endStream) this.end();
  }

  onData(data: Buffer, endStream: boolean): void {
    if (data.length > 0) {
      if (this.single === undefined) this.single = data;
      else (this.chunks ??= [this.single]).push(data);
    }
    if (endStream) this.end();
  }

  onReset(code: number): void {
    // As unary-call.ts reads node:http2's streams: a gRPC or HTTP status already received
    // stands; a reset without one (and with an error code) is the reset's status.
    if (this.grpcStatus >= 0 || code === NO_ERROR || this.httpError()) this.end();
    else this.exchange.end(grpcError(...resetStatus(code)), 0, '', undefined);
  }

  onFailure(err: Error): void {
    this.exchange.end(err, 0, '', undefined);
  }

  /** Reports the call that the server ended. */
  private end(): void {
    const exchange = this.exchange;
    if (this.grpcStatus < 0) {
      const httpStatus = this.httpStatus;
      if (this.httpError()) exchange.end(grpcError(httpStatusCode(httpStatus), `Received HTTP status code ${httpStatus}`), 0, '', undefined);
      else exchange.end(grpcError(Status.UNKNOWN, 'No status received'), 0, '', undefined);
      return;
    }
    let body = this.chunks !== undefined ? Buffer.concat(this.chunks) : this.single;
    // A one-frame body is a view of a socket read that may hold other calls' answers too, and
    // decoded values are views of the body: copied, so that a kept value keeps only its own answer.
    if (body !== undefined && this.chunks === undefined && body.buffer.byteLength > 2 * body.length) body = Buffer.from(body);
    exchange.end(undefined, this.grpcStatus, this.grpcMessage, body);
  }
}
