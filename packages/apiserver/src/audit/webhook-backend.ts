/**
 * The audit webhook (--audit-webhook-config-file), as kube's webhook plugin: each set of
 * events is one POST of an audit.k8s.io/v1 EventList (JSON) to the kubeconfig's server, with
 * its TLS, client certificate and token. Any failure — no connection, a TLS error, a non-2xx
 * answer, no answer within 30s — is retried with kube's backoff: 5 attempts, waiting
 * --audit-webhook-initial-backoff, then 1.5 times longer each time (plus up to 20% jitter).
 * Events still not delivered are counted under plugin `webhook` and the call reports false.
 * Once the backend closes, failed sends are no longer retried.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { genericServerResponse, goNetworkError } from '../admission/webhook/client.js';
import type { AuditBackend, AuditEvent, PluginErrorHandler } from './backend.js';
import type { WebhookTarget } from './webhook-kubeconfig.js';

/** kube's audit webhook client timeout (sent as `?timeout=30s`). */
const REQUEST_TIMEOUT_MS = 30_000;
/** kube's DefaultRetryBackoffWithInitialDelay: attempts, factor, jitter. */
const ATTEMPTS = 5;
const FACTOR = 1.5;
const JITTER = 0.2;

export interface WebhookBackendOptions {
  readonly target: WebhookTarget;
  /** --audit-webhook-initial-backoff in ms. */
  readonly initialBackoffMs: number;
  readonly onPluginError: PluginErrorHandler;
}

/** The EventList body: the events without their own kind and apiVersion, as kube encodes list items. */
export function eventListJson(events: readonly AuditEvent[]): string {
  const items = events.map((e) => {
    const { kind: _kind, apiVersion: _apiVersion, ...rest } = e.object;
    return JSON.stringify(rest);
  });
  return `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${items.join(',')}]}`;
}

export function webhookBackend(options: WebhookBackendOptions): AuditBackend {
  const { target } = options;
  const https = target.url.protocol === 'https:';
  const agent = https
    ? new HttpsAgent({
        keepAlive: true,
        rejectUnauthorized: !target.insecureSkipTLSVerify,
        ...(target.ca !== undefined ? { ca: target.ca } : {}),
        ...(target.serverName !== undefined ? { servername: target.serverName } : {}),
        ...(target.cert !== undefined && target.key !== undefined ? { cert: target.cert, key: target.key } : {}),
      })
    : new HttpAgent({ keepAlive: true });
  const host = target.url.hostname.startsWith('[') ? target.url.hostname.slice(1, -1) : target.url.hostname;
  const port = target.url.port !== '' ? Number(target.url.port) : https ? 443 : 80;
  const path = `${target.url.pathname}?timeout=30s`;
  const display = `${target.url.protocol}//${target.url.host}${path}`;
  const goTarget = { display, host, port, path, servername: target.serverName };
  let closing = false;
  const pending = new Set<Promise<boolean>>();
  const wakeSleepers = new Set<() => void>();

  const post = (body: Buffer): Promise<void> => new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== undefined) reject(err);
      else resolve();
    };
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (chunks.length < 64) chunks.push(chunk);
      });
      res.on('error', (err) => settle(err));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status <= 299) return settle();
        const text = Buffer.concat(chunks).toString('utf8');
        let message: string | undefined;
        try {
          const parsed = JSON.parse(text) as { kind?: unknown; message?: unknown };
          if (parsed.kind === 'Status' && typeof parsed.message === 'string') message = parsed.message;
        } catch {
          // not a Status
        }
        settle(new Error(message ?? genericServerResponse(status, res.headers['content-type'], text)));
      });
    };
    const request = https ? httpsRequest : httpRequest;
    const req = request({
      host,
      port,
      path,
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, */*',
        'content-length': body.length,
        // What kube-apiserver's audit webhook client sends.
        'user-agent': 'Go-http-client/1.1',
        ...(target.authorization !== undefined ? { authorization: target.authorization } : {}),
      },
    }, onResponse);
    const timer = setTimeout(() => {
      settle(new Error(`Post ${JSON.stringify(display)}: context deadline exceeded`));
      req.destroy();
    }, REQUEST_TIMEOUT_MS);
    req.on('error', (err) => settle(new Error(`Post ${JSON.stringify(display)}: ${goNetworkError(err, goTarget)}`)));
    req.end(body);
  });

  const sleep = (ms: number): Promise<void> => new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wakeSleepers.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    wakeSleepers.add(done);
  });

  const send = async (events: readonly AuditEvent[]): Promise<boolean> => {
    const body = Buffer.from(eventListJson(events));
    let delay = options.initialBackoffMs;
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await post(body);
        return true;
      } catch (err) {
        lastError = err;
      }
      if (attempt === ATTEMPTS || closing) break;
      await sleep(delay + Math.random() * JITTER * delay);
      delay *= FACTOR;
      if (closing) break;
    }
    options.onPluginError('webhook', events.length, lastError);
    return false;
  };

  return {
    processEvents(events) {
      const sent = send(events);
      pending.add(sent);
      void sent.finally(() => pending.delete(sent));
      return sent;
    },
    async close() {
      closing = true;
      for (const wake of [...wakeSleepers]) wake();
      await Promise.all(pending);
      agent.destroy();
    },
  };
}
