/**
 * How the load generator reaches a server: TLS trust, client certificates and bearer tokens
 * per origin (from a kubeconfig), used by every HTTP client of the bench (undici pools, the
 * raw-socket watcher pool). Servers the suite starts itself are plain HTTP and need nothing.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve as resolvePath, dirname } from 'node:path';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Pool } from 'undici';
import { parse as parseYaml } from 'yaml';

/** Credentials and trust for one server origin. */
export interface TargetAuth {
  /** CA bundle (PEM) to verify the server with; system CAs when absent. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  /** Skip server certificate verification (kubeconfig `insecure-skip-tls-verify`). */
  insecure?: boolean;
  /** SNI / name to verify (kubeconfig `tls-server-name`). */
  serverName?: string;
}

const auths = new Map<string, TargetAuth>();
const http2Origins = new Set<string>();

/** Requests to `url`'s origin through {@link poolFor} go over HTTP/2 (ALPN h2). */
export function useHttp2(url: string): void {
  http2Origins.add(new URL(url).origin);
}

/** Registers `auth` for every request to `url`'s origin. */
export function registerAuth(url: string, auth: TargetAuth): void {
  auths.set(new URL(url).origin, auth);
}

/** The auth registered for `url`'s origin, if any. */
export function authFor(url: string): TargetAuth | undefined {
  return auths.get(new URL(url).origin);
}

/** Request headers every request to `url` carries (Authorization for a token). */
export function authHeaders(url: string): Record<string, string> {
  const token = authFor(url)?.token;
  return token !== undefined ? { authorization: `Bearer ${token}` } : {};
}

/**
 * An undici pool for `url` with the registered TLS settings. Without registered auth, TLS
 * verification is off (a load tool against local servers with self-signed certificates).
 */
export function poolFor(url: string, connections: number): Pool {
  const auth = authFor(url);
  const connect = auth
    ? {
        rejectUnauthorized: auth.insecure !== true,
        ...(auth.ca ? { ca: auth.ca } : {}),
        ...(auth.cert ? { cert: auth.cert } : {}),
        ...(auth.key ? { key: auth.key } : {}),
        ...(auth.serverName ? { servername: auth.serverName } : {}),
      }
    : { rejectUnauthorized: false };
  if (http2Origins.has(new URL(url).origin)) {
    // One HTTP/2 connection carries the concurrent requests (as client-go's transport does).
    return new Pool(url, { connections: 1, allowH2: true, maxConcurrentStreams: Math.max(connections, 100), keepAliveTimeout: 60_000, connect });
  }
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000, connect });
}

/**
 * A raw TCP (http:) or TLS (https:) connection to `url`'s host with the registered settings.
 * `onRead` gets the bytes of each read (for plain TCP from one shared buffer: valid only
 * during the call).
 */
export function rawConnect(url: URL, sharedBuffer: Buffer, onRead: (bytes: Buffer) => void): Socket {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (url.protocol === 'https:') {
    const auth = authFor(url.href);
    const socket = tlsConnect({
      host: url.hostname,
      port,
      rejectUnauthorized: auth !== undefined && auth.insecure !== true,
      ...(auth?.ca ? { ca: auth.ca } : {}),
      ...(auth?.cert ? { cert: auth.cert } : {}),
      ...(auth?.key ? { key: auth.key } : {}),
      servername: auth?.serverName ?? url.hostname,
    });
    socket.on('data', (chunk: Buffer) => onRead(chunk));
    return socket;
  }
  return netConnect({
    port,
    host: url.hostname,
    onread: {
      buffer: sharedBuffer,
      callback: (n) => {
        onRead(sharedBuffer.subarray(0, n));
        return true;
      },
    },
  });
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: { name: string; context?: { cluster?: string; user?: string; namespace?: string } }[];
  clusters?: { name: string; cluster?: Record<string, unknown> }[];
  users?: { name: string; user?: Record<string, unknown> }[];
}

/** What a kubeconfig context resolves to. */
export interface KubeconfigTarget {
  server: string;
  context: string;
  auth: TargetAuth;
}

/**
 * Reads the server URL and credentials of `context` (default: current-context) from the
 * kubeconfig at `path` (`~` expanded): certificate-authority(-data),
 * client-certificate(-data), client-key(-data), token, tokenFile, insecure-skip-tls-verify,
 * tls-server-name; relative file paths are relative to the kubeconfig. Throws an Error with
 * a one-line message for anything missing or unsupported (exec and auth-provider plugins).
 */
export function loadKubeconfig(path: string, contextName?: string): KubeconfigTarget {
  const file = resolvePath(path.replace(/^~(?=$|\/)/, homedir()));
  let config: KubeconfigFile;
  try {
    config = (parseYaml(readFileSync(file, 'utf8')) ?? {}) as KubeconfigFile;
  } catch (err) {
    throw new Error(`kubeconfig ${file}: ${(err as Error).message}`);
  }
  const name = contextName ?? config['current-context'];
  if (name === undefined || name === '') throw new Error(`kubeconfig ${file}: no current-context; pass --context`);
  const context = config.contexts?.find((c) => c.name === name)?.context;
  if (context === undefined) throw new Error(`kubeconfig ${file}: context ${name} not found`);
  const cluster = config.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (cluster === undefined) throw new Error(`kubeconfig ${file}: cluster ${context.cluster ?? '(none)'} of context ${name} not found`);
  const user = (context.user !== undefined ? config.users?.find((u) => u.name === context.user)?.user : undefined) ?? {};
  const server = cluster['server'];
  if (typeof server !== 'string' || !/^https?:\/\//.test(server)) throw new Error(`kubeconfig ${file}: cluster ${context.cluster} has no http(s) server`);
  const base = dirname(file);
  const bytes = (dataKey: string, fileKey: string, from: Record<string, unknown>): Buffer | undefined => {
    const data = from[dataKey];
    if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
    const path = from[fileKey];
    if (typeof path === 'string' && path !== '') return readFileSync(resolvePath(base, path));
    return undefined;
  };
  if (user['exec'] !== undefined || user['auth-provider'] !== undefined) throw new Error(`kubeconfig ${file}: user ${context.user} uses an exec/auth-provider plugin, which kapi-bench does not run; use a token or client certificate`);
  const auth: TargetAuth = {};
  const ca = bytes('certificate-authority-data', 'certificate-authority', cluster);
  const cert = bytes('client-certificate-data', 'client-certificate', user);
  const key = bytes('client-key-data', 'client-key', user);
  if (ca) auth.ca = ca;
  if (cert) auth.cert = cert;
  if (key) auth.key = key;
  const token = typeof user['token'] === 'string' ? user['token'] : typeof user['tokenFile'] === 'string' ? readFileSync(resolvePath(base, user['tokenFile']), 'utf8').trim() : undefined;
  if (token) auth.token = token;
  if (cluster['insecure-skip-tls-verify'] === true) auth.insecure = true;
  if (typeof cluster['tls-server-name'] === 'string') auth.serverName = cluster['tls-server-name'];
  return { server: server.replace(/\/+$/, ''), context: name, auth };
}
