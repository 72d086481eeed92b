import assert from 'node:assert/strict';
/**
 * Test fixture: a real etcd on free ports and an in-process kapi server talking plain HTTP
 * (HTTPS is covered by its own test), plus a small fetch wrapper.
 */
import { createEtcdUnaryClient, startCompactor } from '@kapi/storage';
import { startEtcd, uniquePrefix, type StartEtcdOptions, type TestEtcd } from '@kapi/storage/testing';
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
  /** The server's etcd key prefix (`--etcd-prefix`). */
  readonly etcdPrefix: string;
  readonly server: RunningServer;
  readonly url: string;
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; raw?: string | Buffer }): Promise<Response>;
  /**
   * Compacts etcd at its current revision the way replicas do (two rounds of kube's
   * compact_rev_key protocol), so that the server learns the compacted revision too.
   * Returns the compacted revision: every older revision is gone.
   */
  compact(): Promise<number>;
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<ApiServerOptions> = {}, etcdOptions: StartEtcdOptions = {}): Promise<TestServer> {
  const etcd = await startEtcd(etcdOptions);
  const etcdPrefix = options.etcdPrefix ?? uniquePrefix();
  const server = await startApiServer({
    etcdServers: etcd.endpoints,
    etcdPrefix,
    securePort: null,
    insecurePort: 0,
    logger: silentLogger,
    ...options,
  });
  const url = server.insecureUrl!;
  return {
    etcd,
    etcdPrefix,
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
    async compact() {
      const client = createEtcdUnaryClient(etcd.endpoints);
      const compactor = startCompactor({ client, intervalMs: 0, learnFromOthers: false });
      try {
        const first = await compactor.runOnce();
        const second = await compactor.runOnce();
        if (second.outcome !== 'compacted') throw new Error(`compaction did not happen: ${JSON.stringify([first, second])}`);
        return second.revision;
      } finally {
        await compactor.stop();
        client.close();
      }
    },
    async close() {
      await server.close();
      await etcd.stop();
    },
  };
}

/** Polls `probe` every 50 ms until it returns true or `timeoutMs` passes (then fails with `what`). */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}
