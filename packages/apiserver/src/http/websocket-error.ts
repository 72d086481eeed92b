/**
 * A WebSocket that carries only a failure: the upgrade kube-apiserver accepts for a v5
 * exec/attach stream, empty frames opening the requested channels, the Status (without
 * kind and apiVersion, as kube writes it) on the error channel, then a normal close. No
 * frame is read from the client.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Status } from '@kapi/machinery';

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** One unmasked server frame: FIN + opcode, the length in kube's (RFC 6455) encoding, the payload. */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) header = Buffer.from([0x80 | opcode, length]);
  else if (length < 65536) header = Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]);
  else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

const BINARY = 0x2;
const CLOSE = 0x8;
/** Close code 1000: normal closure. */
const NORMAL_CLOSURE = Buffer.from([0x03, 0xe8]);

/** JSON as Go's encoding/json writes it: `<`, `>` and `&` escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

export function writeWebSocketError(
  req: IncomingMessage,
  res: ServerResponse,
  answer: { protocol: string; openChannels: readonly number[]; errorChannel: number; status: Status },
): void {
  const key = String(req.headers['sec-websocket-key'] ?? '');
  const accept = createHash('sha1').update(key + WEBSOCKET_GUID).digest('base64');
  res.writeHead(101, { Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Accept': accept, 'Sec-WebSocket-Protocol': answer.protocol });
  res.flushHeaders();
  const socket = res.socket;
  if (socket === null) return;
  const { kind: _kind, apiVersion: _apiVersion, ...status } = answer.status;
  const frames = [
    ...answer.openChannels.map((channel) => frame(BINARY, Buffer.from([channel]))),
    frame(BINARY, Buffer.concat([Buffer.from([answer.errorChannel]), Buffer.from(goJson(status))])),
    frame(CLOSE, NORMAL_CLOSURE),
  ];
  socket.end(Buffer.concat(frames));
  res.end();
}
