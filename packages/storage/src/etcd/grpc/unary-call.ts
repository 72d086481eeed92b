/**
 * One unary gRPC call over an HTTP/2 session (gRPC over HTTP/2, PROTOCOL-HTTP2.md): the request
 * is one length-prefixed message (a 0 compression flag and a 4-byte big-endian length), sent
 * as POST with `content-type: application/grpc`, `te: trailers` and the deadline as
 * `grpc-timeout`; the answer is response headers, one length-prefixed message and trailers
 * with `grpc-status` and `grpc-message` — or, for a failure, a trailers-only response whose
 * headers carry the status.
 *
 * Failures are errors shaped as @grpc/grpc-js makes them (`<code> <NAME>: <details>`, with
 * `code` and `details`), so that etcd3's `castGrpcError` and errors.ts classify them exactly
 * as they classify grpc-js's own.
 */
import { constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
// Not from etcd3's index, which loads @grpc/grpc-js (see client.ts).
import { castGrpcError } from 'etcd3/lib/errors.js';
import type { MessageDecoder } from './kv-messages.js';

/** gRPC status codes (grpc/status.proto). */
export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

const statusNames: string[] = [];
for (const [name, code] of Object.entries(Status)) statusNames[code] = name;

/** The length-prefix of a gRPC message. */
export const FRAME_HEADER_BYTES = 5;

/**
 * A gRPC failure as grpc-js reports it, cast by etcd3 to its typed errors (GRPCUnavailableError,
 * EtcdError for an `etcdserver:` message, ...).
 */
export function grpcError(code: number, details: string): Error {
  const err = new Error(`${code} ${statusNames[code] ?? 'UNKNOWN'}: ${details}`) as Error & { code: number; details: string };
  err.code = code;
  err.details = details;
  return castGrpcError(err);
}

/** grpc-message is percent-encoded (RFC 3986 unreserved characters and most printable ASCII pass as is). */
export function decodeGrpcMessage(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  const text = Array.isArray(value) ? value.join(',') : value;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The status grpc-js gives a stream reset by the server with `code` (before any status). */
export function resetStatus(code: number): [number, string] {
  switch (code) {
    case constants.NGHTTP2_REFUSED_STREAM:
      return [Status.UNAVAILABLE, 'Stream refused by server'];
    case constants.NGHTTP2_CANCEL:
      return [Status.CANCELLED, 'Call cancelled'];
    case constants.NGHTTP2_ENHANCE_YOUR_CALM:
      return [Status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded'];
    case constants.NGHTTP2_INADEQUATE_SECURITY:
      return [Status.PERMISSION_DENIED, 'Protocol not secure enough'];
    default:
      return [Status.INTERNAL, `Received RST_STREAM with code ${code}`];
  }
}

/** What a unary call needs of its connection (member.ts's Connection). */
export interface UnaryCallConnection {
  readonly session: ClientHttp2Session;
  /** Calls in flight on the session (it is pinged only while there are some). */
  active: number;
  /** Records that the session carried a frame. */
  sawFrame(): void;
  /** What a connection failure of this session is reported as (see member.ts). */
  failure(streamError: Error | undefined): Error;
}

/**
 * Sends `frame` (a message with FRAME_HEADER_BYTES free in front, filled here) with request
 * headers `headers` (from `requestHeaders`) on `connection`'s session, and resolves with the
 * response decoded by `decode`. Rejects with a grpc-js shaped error (see `grpcError`): the
 * call's status when it is not OK, DEADLINE_EXCEEDED when `timeoutMs` passes first (the stream
 * is then cancelled), or `connection.failure()` when the session fails under it. Counts the
 * call in `connection.active` while it runs, and calls `connection.sawFrame()` as it ends.
 *
 * Per call it makes one stream, one promise, one timer and the stream's listeners, nothing
 * more: node:http2's own per-stream cost is most of a call's CPU (scripts/bench-etcd-client.mjs).
 */
export function unaryCall<Res>(
  connection: UnaryCallConnection,
  headers: OutgoingHttpHeaders,
  frame: Buffer,
  decode: MessageDecoder<Res>,
  timeoutMs: number,
): Promise<Res> {
  frame[0] = 0;
  frame.writeUInt32BE(frame.length - FRAME_HEADER_BYTES, 1);
  return new Promise<Res>((resolve, reject) => {
    let stream: ClientHttp2Stream;
    try {
      stream = connection.session.request(headers, STREAM_OPTIONS);
    } catch {
      reject(connection.failure(undefined));
      return;
    }
    connection.active++;
    let chunks: Buffer[] | undefined;
    let single: Buffer | undefined;
    let status: number | undefined;
    let message = '';
    let httpStatus = 0;
    let failed: Error | undefined;
    let done = false;
    const timer = setTimeout(() => {
      finish(grpcError(Status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
      stream.close(constants.NGHTTP2_CANCEL);
    }, timeoutMs);
    const finish = (err: Error | undefined, res?: Res): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      connection.active--;
      connection.sawFrame();
      if (err !== undefined) reject(err);
      else resolve(res!);
    };
    const readStatus = (fields: IncomingHttpHeaders): void => {
      const value = fields['grpc-status'];
      if (value === undefined) return;
      status = Number(value);
      message = decodeGrpcMessage(fields['grpc-message']);
    };
    stream.on('response', (fields) => {
      httpStatus = Number(fields[':status']);
      readStatus(fields); // a trailers-only response
    });
    stream.on('data', (chunk: Buffer) => {
      if (single === undefined) single = chunk;
      else (chunks ??= [single]).push(chunk);
    });
    stream.on('trailers', readStatus);
    stream.on('error', (err: Error) => {
      failed = err;
    });
    stream.on('close', () => {
      if (done) return;
      if (status === undefined) {
        const session = connection.session;
        if (session.destroyed || session.closed) finish(connection.failure(failed));
        else if (httpStatus !== 0 && httpStatus !== 200) finish(grpcError(httpStatusCode(httpStatus), `Received HTTP status code ${httpStatus}`));
        else if (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR) finish(grpcError(...resetStatus(stream.rstCode)));
        else finish(failed !== undefined ? connection.failure(failed) : grpcError(Status.UNKNOWN, 'No status received'));
        return;
      }
      if (status !== Status.OK) {
        finish(grpcError(status, message));
        return;
      }
      const body = chunks !== undefined ? Buffer.concat(chunks) : single;
      const [err, res] = decodeResponseMessage(body, decode);
      finish(err, res);
    });
    stream.end(frame);
  });
}

const STREAM_OPTIONS = { endStream: false } as const;

/**
 * The request headers of a unary call to `path` with deadline `timeoutMs` and extra
 * `metadata` (gRPC metadata, e.g. etcd's `hasleader`). node:http2 copies them on each request,
 * so one object serves every call with the same path and deadline.
 */
export function requestHeaders(path: string, timeoutMs: number, metadata?: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return {
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-timeout': grpcTimeout(timeoutMs),
    ...metadata,
  };
}

/**
 * The response message of an OK call (its body: one length-prefixed message) decoded by
 * `decode`, or the INTERNAL error for a missing, compressed, truncated or unparsable one.
 */
export function decodeResponseMessage<Res>(body: Buffer | undefined, decode: MessageDecoder<Res>): [Error, undefined] | [undefined, Res] {
  if (body === undefined || body.length < FRAME_HEADER_BYTES) return [grpcError(Status.INTERNAL, 'Server sent no response message'), undefined];
  if (body[0] !== 0) return [grpcError(Status.INTERNAL, 'Received a compressed message that was not asked for'), undefined];
  const length = body.readUInt32BE(1);
  if (FRAME_HEADER_BYTES + length > body.length) return [grpcError(Status.INTERNAL, 'Received a truncated message'), undefined];
  try {
    return [undefined, decode(body, FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length)];
  } catch (err) {
    return [grpcError(Status.INTERNAL, `Failed to parse server response: ${(err as Error).message}`), undefined];
  }
}

/** A grpc-timeout value: at most 8 digits, in milliseconds while they fit, else in seconds (then hours). */
export function grpcTimeout(ms: number): string {
  const millis = Math.max(1, Math.ceil(ms));
  if (millis < 1e8) return `${millis}m`;
  const seconds = Math.ceil(millis / 1000);
  return seconds < 1e8 ? `${seconds}S` : `${Math.min(99_999_999, Math.ceil(seconds / 3600))}H`;
}

/** The gRPC status for a non-200 HTTP status (grpc's http-grpc-status-mapping.md). */
export function httpStatusCode(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
      return Status.INTERNAL;
    case 401:
      return Status.UNAUTHENTICATED;
    case 403:
      return Status.PERMISSION_DENIED;
    case 404:
      return Status.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return Status.UNAVAILABLE;
    default:
      return Status.UNKNOWN;
  }
}
