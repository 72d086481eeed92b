/**
 * A real HTTPS admission webhook server for tests: a fresh CA (openssl CLI), a serving
 * certificate for 127.0.0.1 (and any DNS names given, e.g. `<svc>.<ns>.svc`), and a handler
 * per path that answers AdmissionReviews. Every review received is recorded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Json = Record<string, unknown>;

/** What a handler answers: the response part of the review, 'hang' (never answer), or a raw HTTP answer. */
export type WebhookAnswer = Json | 'hang' | { readonly raw: { readonly status: number; readonly body: string } };

export interface WebhookServer {
  readonly port: number;
  /** base64 of the CA's PEM, for clientConfig.caBundle. */
  readonly caBundle: string;
  /** `https://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Sets the handler of `path`; `review.request` is the AdmissionRequest. */
  handle(path: string, handler: (request: Json) => WebhookAnswer): void;
  /** Every request received on `path`, in order. */
  calls(path: string): Json[];
  close(): Promise<void>;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function serverCertificate(dnsNames: readonly string[]): { ca: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-webhook-'));
  try {
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=webhook-test-ca'], dir);
    openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=webhook'], dir);
    const alt = ['IP:127.0.0.1', ...dnsNames.map((n) => `DNS:${n}`)].join(',');
    writeFileSync(join(dir, 'server.ext'), `subjectAltName=${alt}\nextendedKeyUsage=serverAuth\n`);
    openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'server.ext'], dir);
    return { ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), cert: readFileSync(join(dir, 'server.crt'), 'utf8'), key: readFileSync(join(dir, 'server.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts a webhook server on a free port of `host` (127.0.0.1; '0.0.0.0' to be reachable at
 * the machine's other addresses too, e.g. through Endpoints).
 */
export async function startWebhookServer(dnsNames: readonly string[] = [], host = '127.0.0.1'): Promise<WebhookServer> {
  const { ca, cert, key } = serverCertificate(dnsNames);
  const handlers = new Map<string, (request: Json) => WebhookAnswer>();
  const received = new Map<string, Json[]>();
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let review: Json;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      } catch {
        res.writeHead(400).end('bad json');
        return;
      }
      const request = (review['request'] ?? {}) as Json;
      received.set(path, [...(received.get(path) ?? []), { ...request, timeoutParam: new URL(req.url ?? '/', 'https://x').searchParams.get('timeout') }]);
      const handler = handlers.get(path);
      const answer: WebhookAnswer = handler === undefined ? { allowed: true } : handler(request);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if ('raw' in answer) {
        res.writeHead((answer.raw as { status: number }).status, { 'content-type': 'application/json' }).end((answer.raw as { body: string }).body);
        return;
      }
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: request['uid'], ...answer } });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(ca).toString('base64'),
    url: (path) => `https://127.0.0.1:${port}${path}`,
    handle: (path, handler) => handlers.set(path, handler),
    calls: (path) => received.get(path) ?? [],
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
