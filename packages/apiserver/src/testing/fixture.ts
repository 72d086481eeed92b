/**
 * Test fixture: a real etcd on free ports and an in-process kapi server talking plain HTTP
 * (HTTPS is covered by its own test), plus a small fetch wrapper.
 */
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { silentLogger } from '../logger.js';
import { startApiServer, type ApiServerOptions, type RunningServer } from '../main.js';

export interface Response {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: Record<string, unknown> & { [key: string]: unknown };
}

export interface TestServer {
  readonly etcd: TestEtcd;
  readonly server: RunningServer;
  readonly url: string;
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; raw?: string | Buffer }): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<ApiServerOptions> = {}): Promise<TestServer> {
  const etcd = await startEtcd();
  const server = await startApiServer({
    etcdServers: etcd.endpoints,
    etcdPrefix: uniquePrefix(),
    securePort: null,
    insecurePort: 0,
    logger: silentLogger,
    ...options,
  });
  const url = server.insecureUrl!;
  return {
    etcd,
    server,
    url,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      let body: string | Buffer | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // not JSON
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    async close() {
      await server.close();
      await etcd.stop();
    },
  };
}
