/**
 * One unary gRPC call over h2-connection.ts: the same contract as unary-call.ts's `unaryCall`
 * (grpc-js shaped errors, DEADLINE_EXCEEDED with the stream cancelled, the connection's
 * failure when it fails under the call), with one object and one promise per call.
 */
import { Buffer } from 'node:buffer';
import type { H2Connection, UnaryExchange } from './h2-connection.js';
import type { MessageDecoder } from './kv-messages.js';
import { FRAME_HEADER_BYTES, Status, decodeGrpcMessage, decodeResponseMessage, grpcError } from './unary-call.js';

class FramedCall<Res> implements UnaryExchange {
  streamId = 0;
  readonly timer: NodeJS.Timeout;

  constructor(
    readonly connection: H2Connection,
    readonly headerBlock: Buffer,
    readonly message: Buffer,
    private readonly decode: MessageDecoder<Res>,
    private readonly resolve: (res: Res) => void,
    readonly reject: (err: Error) => void,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(onDeadline, timeoutMs, this);
  }

  end(err: Error | undefined, status: number, grpcMessage: string, body: Buffer | undefined): void {
    clearTimeout(this.timer);
    if (err !== undefined) {
      this.reject(err);
      return;
    }
    if (status !== Status.OK) {
      this.reject(grpcError(status, decodeGrpcMessage(grpcMessage)));
      return;
    }
    const [failure, res] = decodeResponseMessage(body, this.decode);
    if (failure !== undefined) this.reject(failure);
    else this.resolve(res!);
  }
}

function onDeadline(call: UnaryExchange & { readonly connection: H2Connection; readonly reject: (err: Error) => void }): void {
  if (call.connection.cancel(call)) call.reject(grpcError(Status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
}

/**
 * Sends `frame` (a message with FRAME_HEADER_BYTES free in front, filled here) with the request
 * header block `headerBlock` on `connection`, and resolves with the response decoded by
 * `decode`; rejects as `unaryCall` does.
 */
export function framedUnaryCall<Res>(connection: H2Connection, headerBlock: Buffer, frame: Buffer, decode: MessageDecoder<Res>, timeoutMs: number): Promise<Res> {
  frame[0] = 0;
  frame.writeUInt32BE(frame.length - FRAME_HEADER_BYTES, 1);
  return new Promise<Res>((resolve, reject) => {
    connection.start(new FramedCall(connection, headerBlock, frame, decode, resolve, reject, timeoutMs));
  });
}
