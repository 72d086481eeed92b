import type { Pool } from 'undici';
import { authHeaders, poolFor } from './target.js';

/** An HTTP status other than the expected one, with the Status message when there is one. */
export class UnexpectedStatusError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    let message = body.slice(0, 200);
    try {
      const parsed = JSON.parse(body) as { reason?: string; message?: string };
      if (parsed.message !== undefined) message = `${parsed.reason ?? ''}: ${parsed.message}`;
    } catch {
      // not JSON: keep the raw text
    }
    super(`HTTP ${status} ${message}`);
  }
}

/** 1 KiB of ConfigMap data (one key), the object size of scenario S1. */
export const oneKibData: Readonly<Record<string, string>> = Object.freeze({ payload: 'x'.repeat(1024) });

/**
 * A keep-alive HTTP/1.1 client for a kapi server (undici Pool with one connection per
 * concurrent worker, no pipelining). TLS and credentials as registered for the URL (see
 * target.ts); without them TLS verification is off (a load tool against local servers). Methods throw {@link UnexpectedStatusError} on an unexpected
 * status and never retry.
 */
export class KapiClient {
  private readonly pool: Pool;
  private readonly auth: Record<string, string>;

  constructor(baseUrl: string, connections: number) {
    this.pool = poolFor(baseUrl, connections);
    this.auth = authHeaders(baseUrl);
  }

  private async send(method: string, path: string, expected: number, body?: string): Promise<void> {
    const res = await this.pool.request({
      method: method as 'GET',
      path,
      headers: body !== undefined ? { 'content-type': 'application/json', accept: 'application/json', ...this.auth } : { accept: 'application/json', ...this.auth },
      ...(body !== undefined ? { body } : {}),
    });
    if (res.statusCode !== expected) throw new UnexpectedStatusError(res.statusCode, await res.body.text());
    await res.body.dump();
  }

  /** POST /api/v1/namespaces; 409 AlreadyExists is fine (idempotent). */
  async ensureNamespace(name: string): Promise<void> {
    try {
      await this.send('POST', '/api/v1/namespaces', 201, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
    } catch (err) {
      if (!(err instanceof UnexpectedStatusError && err.status === 409)) throw err;
    }
  }

  /** POST a ConfigMap; expects 201. */
  createConfigMap(namespace: string, name: string, data: Readonly<Record<string, string>>): Promise<void> {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });
    return this.send('POST', `/api/v1/namespaces/${namespace}/configmaps`, 201, body);
  }

  /** GET `path` and read the whole body (any size); throws unless 200. Returns the bytes when `keep`, else an empty Buffer. */
  async getBody(path: string, keep = false): Promise<{ bytes: number; body: Buffer }> {
    const res = await this.pool.request({ method: 'GET', path, headers: { accept: 'application/json', ...this.auth } });
    if (res.statusCode !== 200) throw new UnexpectedStatusError(res.statusCode, await res.body.text());
    let bytes = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (keep) chunks.push(chunk);
    }
    return { bytes, body: keep ? Buffer.concat(chunks) : Buffer.alloc(0) };
  }

  /** Sends `method path` with a JSON body (`contentType`), expects `expected`, and returns the parsed response. */
  async json<T>(method: string, path: string, expected: number, body?: unknown, contentType = 'application/json'): Promise<T> {
    const res = await this.pool.request({
      method: method as 'GET',
      path,
      headers: { accept: 'application/json', ...this.auth, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode !== expected) throw new UnexpectedStatusError(res.statusCode, text);
    return JSON.parse(text) as T;
  }

  /** DELETE `path`; 404 is fine. */
  async delete(path: string): Promise<void> {
    try {
      await this.send('DELETE', path, 200);
    } catch (err) {
      if (!(err instanceof UnexpectedStatusError && (err.status === 404 || err.status === 202))) throw err;
    }
  }

  /** GET a ConfigMap (resourceVersion unset: a consistent read); expects 200. */
  getConfigMap(namespace: string, name: string): Promise<void> {
    return this.send('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`, 200);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
