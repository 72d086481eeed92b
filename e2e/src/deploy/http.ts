/** A small HTTPS/HTTP client for the deployment tests: any method, JSON bodies, optional CA. */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

export interface HttpResult {
  status: number;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * Sends `method url` with `body` (JSON-encoded when not a string). TLS verification is off
 * unless `ca` is given; `cert`/`key` are a client certificate (etcd's client-cert-auth). Rejects on socket errors and after `timeoutMs` (default 10 s).
 */
export function httpRequestJson(
  method: string,
  url: string,
  options: { body?: unknown; ca?: string; cert?: string; key?: string; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method,
        agent: false,
        timeout: timeoutMs,
        rejectUnauthorized: options.ca !== undefined,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.cert !== undefined && options.key !== undefined ? { cert: options.cert, key: options.key } : {}),
        headers: {
          accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
