/**
 * HTTP/1.1 upgrade requests (`Connection: Upgrade`: WebSocket, SPDY) go through the same
 * handler as every request, with a response written on their connection; the connection
 * itself (and any bytes that came after the request's headers) stays reachable for a handler
 * that tunnels it, as the aggregator's upgrade-aware proxy does. A handler that answers
 * without switching protocols gets its response written and the connection closed (the
 * client cannot send another request on it: Node's HTTP parser has let go of it).
 */
import { ServerResponse, type IncomingMessage, type RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';

export interface UpgradeConnection {
  readonly socket: Duplex;
  /** Bytes the client sent after the request's headers (the upgraded protocol's first bytes). */
  readonly head: Buffer;
}

const connections = new WeakMap<IncomingMessage, UpgradeConnection>();

/** The connection of an upgrade request (undefined for any other request, and on HTTP/2). */
export function upgradeConnectionOf(req: IncomingMessage): UpgradeConnection | undefined {
  return connections.get(req);
}

/** kube's httpstream.IsUpgradeRequest: a Connection header naming `upgrade` (and an Upgrade header). */
export function isUpgradeRequest(req: IncomingMessage): boolean {
  return /(^|,)\s*upgrade\s*(,|$)/i.test(String(req.headers.connection ?? '')) && String(req.headers.upgrade ?? '') !== '';
}

/** Routes `server`'s upgrade requests to `handler`. */
export function handleUpgrades(server: { on(event: 'upgrade', listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown }, handler: RequestListener): void {
  server.on('upgrade', (req, socket, head) => {
    connections.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.on('finish', () => {
      if (res.statusCode !== 101) socket.end();
    });
    socket.on('error', () => socket.destroy());
    // An upgrade request has no body of its own: whatever follows is the new protocol's.
    req.push(null);
    handler(req, res);
  });
}
