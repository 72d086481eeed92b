/**
 * etcd's Watch call — one bidirectional gRPC stream — on a member's h2-connection.ts
 * connection, the one its unary calls use (h2-message-stream.ts): requests (create, cancel,
 * progress) are sent as messages on the open stream, and each response is decoded by
 * watch-messages.ts and emitted as `data` as soon as it is complete. watch-call-http2.ts does
 * the same over node:http2 (KAPI_ETCD_WATCH_TRANSPORT=http2), with the same events and errors.
 */
import { EventEmitter } from 'node:events';
import type { IWatchRequest, IWatchResponse } from 'etcd3';
import type { H2Connection } from './h2-connection.js';
import { MessageStream, type MessageReceiver } from './h2-message-stream.js';
import { FRAME_HEADER_BYTES, Status, grpcError } from './unary-call.js';
import { decodeWatchResponse, encodeWatchRequest } from './watch-messages.js';

export const WATCH_PATH = '/etcdserverpb.Watch/Watch';

/**
 * One open Watch call, with the events and methods of the grpc-js duplex stream that
 * watch-stream.ts drives. Emits `data` (IWatchResponse), then either `end` (the server closed
 * it with OK) or `error` once, a grpc-js shaped error (unary-call.ts): the call's status, a
 * reset's, CANCELLED after `cancel`, or UNAVAILABLE "Connection dropped: …" / "No connection
 * established. …" when its connection fails. An error nobody listens to is dropped. An open
 * call keeps the process alive.
 */
export interface WatchCall extends EventEmitter {
  /** Whether `write` may still be called (grpc-js's `writable`). */
  readonly writable: boolean;
  /** Sends a request. */
  write(req: IWatchRequest): boolean;
  /** Half-closes the call: no more requests. */
  end(): void;
  /** Cancels the call (RST_STREAM CANCEL); it ends with CANCELLED. */
  cancel(): void;
  /** Stops emitting `data` (at once; HTTP/2 flow control then holds etcd back); `resume` goes on from the next tick. */
  pause(): void;
  resume(): void;
}

/** A Watch call on an h2-connection.ts connection. */
export class FramedWatchCall extends EventEmitter implements WatchCall, MessageReceiver {
  private readonly stream: MessageStream;
  writable = true;

  /** Opens the call on `connection` with `headerBlock` (the Watch path's, without a deadline: see member.ts). */
  constructor(connection: H2Connection, headerBlock: Buffer) {
    super();
    this.stream = new MessageStream(connection, headerBlock, this);
  }

  write(req: IWatchRequest): boolean {
    if (!this.writable) return false;
    this.stream.send(encodeWatchRequest(req, FRAME_HEADER_BYTES));
    return true;
  }

  end(): void {
    this.writable = false;
    this.stream.end();
  }

  cancel(): void {
    this.writable = false;
    this.stream.cancel();
  }

  pause(): void {
    this.stream.pause();
  }

  resume(): void {
    this.stream.resume();
  }

  /** Bytes received and not emitted yet (what a paused call holds back). */
  get bufferedBytes(): number {
    return this.stream.bufferedBytes;
  }

  onMessage(buf: Buffer, start: number, end: number): void {
    let res: IWatchResponse;
    try {
      res = decodeWatchResponse(buf, start, end);
    } catch (err) {
      this.stream.abort(grpcError(Status.INTERNAL, `Failed to parse server response: ${(err as Error).message}`));
      return;
    }
    this.emit('data', res);
  }

  onClose(err: Error | undefined): void {
    this.writable = false;
    if (err === undefined) this.emit('end');
    else if (this.listenerCount('error') > 0) this.emit('error', err);
  }
}
