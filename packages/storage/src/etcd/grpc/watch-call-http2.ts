/**
 * etcd's Watch call over a member's node:http2 session (KAPI_ETCD_WATCH_TRANSPORT=http2; the
 * default is watch-call.ts's, on the member's h2-connection.ts connection): requests
 * (create, cancel, progress) are written as length-prefixed messages on the open request
 * stream, and responses are read as they come, many messages per stream, each decoded by
 * watch-messages.ts and emitted as `data` at once. It has the events and methods of the
 * grpc-js duplex stream that watch-stream.ts drives (`data`, `error`, `end`; `write`, `end`,
 * `cancel`, `pause`, `resume`), and fails with grpc-js shaped errors (see unary-call.ts).
 */
import { EventEmitter } from 'node:events';
import { constants, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { IWatchRequest, IWatchResponse } from 'etcd3';
import type { Connection } from './member.js';
import type { WatchCall } from './watch-call.js';
import { FRAME_HEADER_BYTES, Status, decodeGrpcMessage, grpcError, httpStatusCode, resetStatus } from './unary-call.js';
import { decodeWatchResponse, encodeWatchRequest } from './watch-messages.js';

const WATCH_PATH = '/etcdserverpb.Watch/Watch';

/** One open Watch call on node:http2 (see `WatchCall`). */
export class Http2WatchCall extends EventEmitter implements WatchCall {
  private readonly stream: ClientHttp2Stream | undefined;
  /** The chunks of a message not yet complete, their bytes, and the bytes needed to go on. */
  private pending: Buffer[] | undefined;
  private pendingBytes = 0;
  private pendingNeed = 0;
  private status: number | undefined;
  private message = '';
  private httpStatus = 0;
  private failed: Error | undefined;
  private finished = false;
  private cancelled = false;
  /** Whether `write` may still be called (grpc-js's `writable`). */
  writable = true;

  constructor(
    private readonly connection: Connection,
    metadata: OutgoingHttpHeaders | undefined,
  ) {
    super();
    const headers: OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': WATCH_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...metadata,
    };
    try {
      this.stream = connection.session.request(headers, { endStream: false });
    } catch {
      this.stream = undefined;
      this.writable = false;
      this.finished = true;
      const err = connection.failure(undefined);
      process.nextTick(() => this.emitError(err));
      return;
    }
    connection.active++;
    // An open watch keeps the process alive, as a grpc-js call does (the session is otherwise unref'd).
    if (connection.watching++ === 0) connection.session.ref();
    const stream = this.stream;
    stream.on('response', (fields) => {
      this.httpStatus = Number(fields[':status']);
      this.readStatus(fields);
    });
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('trailers', (fields) => this.readStatus(fields));
    stream.on('error', (err: Error) => {
      this.failed = err;
    });
    stream.on('close', () => this.onClose());
  }

  write(req: IWatchRequest): boolean {
    if (this.stream === undefined || !this.writable) return false;
    const frame = encodeWatchRequest(req, FRAME_HEADER_BYTES);
    frame[0] = 0;
    frame.writeUInt32BE(frame.length - FRAME_HEADER_BYTES, 1);
    return this.stream.write(frame);
  }

  /** Half-closes the call: no more requests. */
  end(): void {
    this.writable = false;
    if (this.stream !== undefined && !this.stream.closed && !this.stream.writableEnded) this.stream.end();
  }

  /** Cancels the call (RST_STREAM CANCEL); it ends with CANCELLED. */
  cancel(): void {
    this.writable = false;
    this.cancelled = true;
    if (this.stream !== undefined && !this.stream.closed && !this.stream.destroyed) this.stream.close(constants.NGHTTP2_CANCEL);
  }

  pause(): void {
    this.stream?.pause();
  }

  resume(): void {
    this.stream?.resume();
  }

  private readStatus(fields: IncomingHttpHeaders): void {
    const value = fields['grpc-status'];
    if (value === undefined) return;
    this.status = Number(value);
    this.message = decodeGrpcMessage(fields['grpc-message']);
  }

  private onData(chunk: Buffer): void {
    this.connection.sawFrame();
    let buf = chunk;
    if (this.pending !== undefined) {
      // A message spread over many chunks (a catch-up response of a megabyte comes in 16 KiB
      // frames) is joined once, when all of it is here, not chunk by chunk.
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < this.pendingNeed) return;
      buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
      this.pending = undefined;
    }
    let pos = 0;
    while (!this.finished) {
      const left = buf.length - pos;
      if (left < FRAME_HEADER_BYTES) {
        if (left > 0) this.keep(buf.subarray(pos), FRAME_HEADER_BYTES);
        return;
      }
      const length = buf.readUInt32BE(pos + 1);
      const end = pos + FRAME_HEADER_BYTES + length;
      if (end > buf.length) {
        this.keep(buf.subarray(pos), FRAME_HEADER_BYTES + length);
        return;
      }
      if (buf[pos] !== 0) {
        this.abort(grpcError(Status.INTERNAL, 'Received a compressed message that was not asked for'));
        return;
      }
      let res: IWatchResponse;
      try {
        res = decodeWatchResponse(buf, pos + FRAME_HEADER_BYTES, end);
      } catch (err) {
        this.abort(grpcError(Status.INTERNAL, `Failed to parse server response: ${(err as Error).message}`));
        return;
      }
      pos = end;
      this.emit('data', res);
    }
  }

  /** Keeps the front of a message until `need` bytes of it are here. */
  private keep(front: Buffer, need: number): void {
    this.pending = [front];
    this.pendingBytes = front.length;
    this.pendingNeed = need;
  }

  /** Ends the call with `err` (a response that cannot be read), cancelling the stream. */
  private abort(err: Error): void {
    this.finish();
    this.stream?.close(constants.NGHTTP2_CANCEL);
    this.emitError(err);
  }

  /** An error for the owner; none is left unheard (a call cancelled before anyone listened ends quietly). */
  private emitError(err: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.writable = false;
    this.pending = undefined;
    this.connection.active--;
    if (--this.connection.watching === 0) this.connection.session.unref();
  }

  private onClose(): void {
    if (this.finished) return;
    this.finish();
    const stream = this.stream!;
    const session = this.connection.session;
    if (this.status === undefined) {
      let err: Error;
      if (this.cancelled) err = grpcError(Status.CANCELLED, 'Cancelled on client');
      else if (session.destroyed || session.closed) err = this.connection.failure(this.failed);
      else if (this.httpStatus !== 0 && this.httpStatus !== 200) err = grpcError(httpStatusCode(this.httpStatus), `Received HTTP status code ${this.httpStatus}`);
      else if (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR) err = grpcError(...resetStatus(stream.rstCode));
      else err = this.failed !== undefined ? this.connection.failure(this.failed) : grpcError(Status.UNKNOWN, 'No status received');
      this.emitError(err);
      return;
    }
    if (this.status !== Status.OK) {
      this.emitError(grpcError(this.status, this.message));
      return;
    }
    this.emit('end');
  }
}
