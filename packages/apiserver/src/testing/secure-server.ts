/**
 * Test fixture for authentication and authorization: a real etcd, kapi over HTTPS with a test
 * CA for client certificates, a token file, HTTPS requests as a given identity, and kubectl
 * with a kubeconfig for that identity.
 */
import { execFile } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { silentLogger } from '../logger.js';
import { startApiServer, type ApiServerOptions, type RunningServer } from '../main.js';
import { createTestCa, type Pem, type TestCa } from './client-certs.js';

/** Who a request or kubectl runs as: a client certificate, a bearer token, or nothing. */
export type Identity = { readonly cert: Pem } | { readonly token: string } | 'anonymous';

export interface SecureResponse {
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown>;
  readonly headers: IncomingHttpHeaders;
  /** The body as received (binary responses, e.g. profiles). */
  readonly body: Buffer;
}

export interface SecureServer {
  readonly etcd: TestEtcd;
  readonly server: RunningServer;
  readonly ca: TestCa;
  /** A client certificate in system:masters. */
  readonly admin: Pem;
  request(identity: Identity, method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<SecureResponse>;
  /** Runs kubectl as `identity`; resolves with its exit code, stdout and stderr. */
  kubectl(identity: Identity, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** `tokens`: CSV lines of the --token-auth-file (token,user,uid,"groups"). */
export async function startSecureServer(options: Partial<ApiServerOptions> & { tokens?: readonly string[] } = {}): Promise<SecureServer> {
  const ca = createTestCa();
  const admin = ca.client('kapi-admin', ['system:masters']);
  const { tokens, ...serverOptions } = options;
  const tokenFile = join(ca.dir, 'tokens.csv');
  writeFileSync(tokenFile, (tokens ?? []).map((line) => `${line}\n`).join(''));
  const etcd = await startEtcd();
  let server: RunningServer;
  try {
    server = await startApiServer({
      etcdServers: etcd.endpoints,
      etcdPrefix: uniquePrefix(),
      securePort: 0,
      bindAddress: '127.0.0.1',
      certDir: ca.dir,
      clientCaFile: ca.certFile,
      ...(tokens !== undefined ? { tokenAuthFile: tokenFile } : {}),
      logger: silentLogger,
      ...serverOptions,
    });
  } catch (err) {
    await etcd.stop();
    ca.remove();
    throw err;
  }
  const url = server.url!;
  let kubeconfigs = 0;
  const kubeconfigFor = (identity: Identity): string => {
    const file = join(ca.dir, `kubeconfig-${++kubeconfigs}`);
    // Without any credential kubectl prompts for one; a basic-auth pair is sent as a header kapi (like kube) ignores.
    const user = identity === 'anonymous' ? '{"username":"nobody","password":"none"}' : 'token' in identity ? JSON.stringify({ token: identity.token }) : JSON.stringify({ 'client-certificate': identity.cert.certFile, 'client-key': identity.cert.keyFile });
    writeFileSync(file, JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kapi', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: JSON.parse(user) as unknown }],
      contexts: [{ name: 'kapi', context: { cluster: 'kapi', user: 'u' } }],
      'current-context': 'kapi',
    }));
    return file;
  };
  return {
    etcd,
    server,
    ca,
    admin,
    request(identity, method, path, opts = {}) {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { ...opts.headers };
        if (identity !== 'anonymous' && 'token' in identity) headers['authorization'] = `Bearer ${identity.token}`;
        const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
        if (body !== undefined) headers['content-type'] ??= 'application/json';
        const cert = identity !== 'anonymous' && 'cert' in identity ? { cert: identity.cert.cert, key: identity.cert.key } : {};
        // A fresh connection per request: the client certificate belongs to the TLS session.
        const req = httpsRequest(url + path, { method, headers, rejectUnauthorized: false, agent: false, ...cert }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const text = bytes.toString('utf8');
            let json: Record<string, unknown> = {};
            try {
              json = JSON.parse(text) as Record<string, unknown>;
            } catch {
              // not JSON
            }
            resolve({ status: res.statusCode ?? 0, text, json, headers: res.headers, body: bytes });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    kubectl(identity, args) {
      const kubeconfig = kubeconfigFor(identity);
      return new Promise((resolve) => {
        // stdin closed: kubectl without credentials would otherwise prompt for a username.
        const child = execFile('kubectl', [...args], { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: ca.dir }, timeout: 60_000 }, (err, stdout, stderr) => {
          const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1;
          resolve({ code, stdout, stderr });
        });
        child.stdin?.end();
      });
    },
    async close() {
      await server.close();
      await etcd.stop();
      ca.remove();
    },
  };
}

/** Polls `check` every 100 ms until it gives a value (an RBAC change reaching the authorizer's cache); fails after 20 s. */
export async function eventuallyValue<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 20_000; ; ) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
