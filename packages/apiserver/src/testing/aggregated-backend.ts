/**
 * A small aggregated API server for tests: HTTPS, serves one group-version's discovery
 * (`flunders`), an OpenAPI v2 document the test sets (with an ETag, honouring If-None-Match),
 * and an upgraded connection at any `.../exec` path that echoes every byte back. Requests must
 * present a client certificate signed by `proxyCa` (the front-proxy certificate); each request
 * and upgrade is recorded with its identity headers.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface BackendRequest {
  readonly method: string;
  readonly path: string;
  readonly clientCn: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly upgrade: boolean;
}

export interface AggregatedBackend {
  readonly port: number;
  readonly seen: BackendRequest[];
  /** The document served at /openapi/v2 (undefined: 404). */
  swagger: Record<string, unknown> | undefined;
  close(): Promise<void>;
}

export async function startAggregatedBackend(options: { cert: string; key: string; proxyCa: string; group: string; version: string; host?: string }): Promise<AggregatedBackend> {
  const gv = `${options.group}/${options.version}`;
  const seen: BackendRequest[] = [];
  const sockets = new Set<Socket>();
  const record = (req: IncomingMessage, upgrade: boolean) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const clientCn = socket.authorized && peer.subject !== undefined ? String(peer.subject.CN) : undefined;
    seen.push({ method: req.method ?? '', path: req.url ?? '/', clientCn, headers: req.headers, upgrade });
    return clientCn;
  };
  const backend: AggregatedBackend = {
    port: 0,
    seen,
    swagger: undefined,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer({ cert: options.cert, key: options.key, ca: options.proxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const cn = record(req, false);
    const send = (code: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    if (cn === undefined) return send(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 401 });
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === `/apis/${gv}`) {
      return send(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] }] });
    }
    if (path === '/openapi/v2' && backend.swagger !== undefined) {
      const text = JSON.stringify(backend.swagger);
      const etag = `"${createHash('sha256').update(text).digest('hex')}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { ETag: etag });
        res.end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', ETag: etag, 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const cn = record(req, true);
    if (cn === undefined || !(req.url ?? '').split('?')[0]!.endsWith('/exec')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const protocol = String(req.headers['upgrade'] ?? '');
    const subprotocol = req.headers['x-stream-protocol-version'];
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${protocol}\r\n${typeof subprotocol === 'string' ? `X-Stream-Protocol-Version: ${subprotocol.split(',')[0]!.trim()}\r\n` : ''}\r\n`);
    if (head.length > 0) socket.write(head);
    // Echo: every byte comes back, upper-cased so the test knows it went through the backend.
    socket.on('data', (chunk: Buffer) => socket.write(Buffer.from(chunk.toString('latin1').toUpperCase(), 'latin1')));
    socket.on('end', () => socket.end());
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  (backend as { port: number }).port = (server.address() as AddressInfo).port;
  return backend;
}
