import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** A decoded JSON response: the status code, the parsed body (undefined when not JSON) and the raw text. */
export interface RestResponse<T = unknown> {
  status: number;
  headers: IncomingMessage['headers'];
  body: T;
  text: string;
}

/** The object metadata the tests read. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

export interface KubeList<T = KubeObject> {
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/**
 * A small JSON client for one server URL (http or https; TLS verification off: these are
 * loopback test servers with self-signed certificates). Keep-alive connections, at most
 * `maxSockets` at a time. Never throws for an HTTP status: callers assert on `status`.
 * Rejects on socket errors and after `timeoutMs` (default 30 s) without a response.
 */
export class RestClient {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;

  constructor(
    readonly baseUrl: string,
    private readonly options: { maxSockets?: number; timeoutMs?: number; headers?: Record<string, string>; clientCertificate?: { cert: string; key: string } } = {},
  ) {
    const https = baseUrl.startsWith('https:');
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
    this.agent = https ? new HttpsAgent({ ...agentOptions, rejectUnauthorized: false, ...options.clientCertificate }) : new HttpAgent(agentOptions);
    this.send = https ? httpsRequest : httpRequest;
  }

  request<T = unknown>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RestResponse<T>> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req: ClientRequest = this.send(
        `${this.baseUrl}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            ...this.options.headers,
            accept: 'application/json',
            ...(payload !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed as T, text });
          });
        },
      );
      req.setTimeout(this.options.timeoutMs ?? 30_000, () => req.destroy(new Error(`${method} ${path}: no response within ${this.options.timeoutMs ?? 30_000} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Like {@link request} but rejects unless the status is `expected` (the message carries the body). */
  async expect<T = KubeObject>(expected: number, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.request<T>(method, path, body, contentType);
    if (res.status !== expected) throw new Error(`${method} ${path}: HTTP ${res.status} (want ${expected}): ${res.text.slice(0, 500)}`);
    return res.body;
  }

  /** Destroys the pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** POSTs a Namespace; 409 AlreadyExists is fine. */
export async function ensureNamespace(client: RestClient, name: string): Promise<void> {
  const res = await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (res.status !== 201 && res.status !== 409) throw new Error(`create namespace ${name}: HTTP ${res.status}: ${res.text}`);
}

/**
 * Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; rejects with the
 * first failure (after the tasks in flight settle).
 */
export async function forEachConcurrently(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < count) {
      const i = next++;
      try {
        await task(i);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
}
