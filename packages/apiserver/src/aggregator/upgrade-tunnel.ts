/**
 * The two halves of an upgraded exchange joined: the backend's 101 (its headers as it sent
 * them, hop-by-hop ones included, as the upgrade needs them) written to the client, then every byte copied
 * both ways with backpressure, the bytes either side sent early first. When either side ends
 * or fails, both connections are closed and the response is finished.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UpgradeConnection } from '../http/upgrade.js';

export interface Tunnel {
  /** The client's response (bound to `client.socket`). */
  readonly res: ServerResponse;
  readonly client: UpgradeConnection;
  readonly backendRes: IncomingMessage;
  readonly backendSocket: Duplex;
  readonly backendHead: Buffer;
  /** Called once, when both connections are closed. */
  readonly onClose: () => void;
}

export function tunnel({ res, client, backendRes, backendSocket, backendHead, onClose }: Tunnel): void {
  // The backend's 101 as it wrote it (names, order), as kube passes it on: nothing of this server's (no Date, no Audit-Id).
  const headers: string[] = [];
  for (let i = 0; i + 1 < backendRes.rawHeaders.length; i += 2) headers.push(backendRes.rawHeaders[i]!, backendRes.rawHeaders[i + 1]!);
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.sendDate = false;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    client.socket.destroy();
    backendSocket.destroy();
    if (!res.writableEnded) res.end();
    onClose();
  };
  try {
    res.writeHead(101, backendRes.statusMessage ?? 'Switching Protocols', headers);
    res.flushHeaders();
  } catch {
    close();
    return;
  }
  if (backendHead.length > 0) client.socket.write(backendHead);
  if (client.head.length > 0) backendSocket.write(client.head);
  client.socket.pipe(backendSocket);
  backendSocket.pipe(client.socket);
  for (const side of [client.socket, backendSocket]) {
    side.on('error', close);
    side.on('close', close);
  }
}
