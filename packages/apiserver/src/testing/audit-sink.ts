/**
 * A real HTTPS audit webhook receiver for tests: its own CA and serving certificate for
 * 127.0.0.1, optionally requiring a client certificate from a given CA. It records every POST
 * (path, headers, the client certificate's CN, the decoded EventList) and answers as told:
 * 200, an error status, or never.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { serverCertificate } from './webhook-server.js';

export interface SinkCall {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The client certificate's CN, '' without one. */
  readonly clientCn: string;
  readonly body: { kind: string; apiVersion: string; metadata: unknown; items: Record<string, unknown>[] };
}

export interface AuditSink {
  readonly port: number;
  /** The sink's CA (PEM), also written to `caFile`. */
  readonly ca: string;
  readonly caFile: string;
  readonly calls: SinkCall[];
  /** How the next requests are answered: 200, another status, or 'hang'. */
  answer: number | 'hang';
  /** How long an answer waits (ms). */
  delayMs: number;
  /** Every event received, in order. */
  events(): Record<string, unknown>[];
  /** Ends the hanging requests and stops listening. */
  close(): Promise<void>;
}

/** Starts a sink on a free port; `dir` receives its CA file. */
export async function startAuditSink(dir: string, clientCa?: string): Promise<AuditSink> {
  const { ca, cert, key } = serverCertificate([]);
  const caFile = join(dir, 'sink-ca.crt');
  writeFileSync(caFile, ca);
  const hanging = new Set<ServerResponse>();
  const sink: AuditSink = {
    port: 0,
    ca,
    caFile,
    calls: [],
    answer: 200,
    delayMs: 0,
    events: () => sink.calls.flatMap((c) => c.body.items),
    close: () => Promise.resolve(),
  };
  const server: Server = createServer({ cert, key, ...(clientCa !== undefined ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      sink.calls.push({ path: req.url ?? '', headers: req.headers, clientCn: typeof peer?.subject?.CN === 'string' ? peer.subject.CN : '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as SinkCall['body'] });
      if (sink.answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const status = sink.answer;
      const answer = () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? '' : 'sink is failing');
      if (sink.delayMs > 0) setTimeout(answer, sink.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(sink, {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Writes a kubeconfig for the sink (relative CA file name; `user` fields as given) and returns its path. */
export function writeSinkKubeconfig(dir: string, sink: AuditSink, user: Record<string, unknown>, path = '/audit/events'): string {
  const file = join(dir, 'audit-webhook.kubeconfig');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'sink', cluster: { server: `https://127.0.0.1:${sink.port}${path}`, 'certificate-authority': 'sink-ca.crt' } }],
    users: [{ name: 'kapi', user }],
    contexts: [{ name: 'audit', context: { cluster: 'sink', user: 'kapi' } }],
    'current-context': 'audit',
  }));
  return file;
}
