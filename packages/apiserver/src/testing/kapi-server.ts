import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshPort } from '@kapi/storage/testing';

/** This package's built server program (dist/bin.js). */
export const defaultApiserverBinary = fileURLToPath(new URL('../bin.js', import.meta.url));

/** The same server from its bundle with a code cache (dist/bundled.js; it falls back to dist/bin.js when not bundled). */
export const bundledApiserverBinary = fileURLToPath(new URL('../bundled.js', import.meta.url));

/** File names the server writes into `--cert-dir` when it generates its self-signed pair. */
export const generatedCertFileName = 'apiserver.crt';

export interface StartKapiServerOptions {
  /** `--etcd-servers`, e.g. the endpoints of `startEtcd()`. */
  etcdServers: string[];
  /** `--etcd-prefix`; the server's default (`/registry`) when omitted. */
  etcdPrefix?: string;
  /** Also serve plain HTTP on a free 127.0.0.1 port (`--insecure-port`). Default false. */
  insecure?: boolean;
  /** More flags, appended last. */
  extraArgs?: string[];
  /** The server entry point; default `$KAPI_APISERVER_BIN` or {@link defaultApiserverBinary}. */
  binary?: string;
  /** How long to wait for `/readyz` to answer `ok`; default 30000 ms. */
  startTimeoutMs?: number;
  /** Copy the server's output to this process's stderr (default false; `KAPI_SERVER_VERBOSE=1` too). */
  verbose?: boolean;
  /** A bearer token for the `/readyz` probe (when anonymous requests are refused, e.g. with AlwaysAllow and a token file). */
  readyzToken?: string;
  /** Extra environment variables of the server process (e.g. `NODE_OPTIONS`), over this process's environment. */
  env?: Record<string, string>;
}

/** A `kapi-apiserver` child process on free loopback ports, with its own `--cert-dir`. */
export interface KapiServer {
  /** `https://127.0.0.1:<secure-port>`. Stable across `kill`/`restart`. */
  readonly url: string;
  /** `http://127.0.0.1:<insecure-port>` when started with `insecure: true`. */
  readonly insecureUrl: string | undefined;
  /** The temporary `--cert-dir` (removed by `stop`). */
  readonly certDir: string;
  /** The generated serving certificate (usable as the CA of a kubeconfig). */
  readonly caFile: string;
  /** The current process id, or undefined when it is not running. */
  pid(): number | undefined;
  running(): boolean;
  /** The last 64 KiB of the server's stdout and stderr, for failure messages. */
  output(): string;
  /** Sends `signal` (default SIGKILL) and waits for the exit; `restart()` brings it back. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops the server if running (SIGTERM) and starts it again on the same ports and cert dir. */
  restart(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s), then deletes the cert dir. Idempotent. */
  stop(): Promise<void>;
}

const liveChildren = new Set<ChildProcess>();
let exitHandlerInstalled = false;

function installExitHandler(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const child of liveChildren) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** GET `url` ignoring TLS verification; resolves `{status, body}` or rejects on a socket error. */
export function insecureGet(url: string, timeoutMs = 2000, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const send = url.startsWith('https:') ? request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', rejectUnauthorized: false, timeout: timeoutMs, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spawns `node <binary>` with kube-apiserver flags on free 127.0.0.1 ports and resolves once
 * `GET /readyz` answers 200 `ok`. Retries with new ports (up to 3 times) when a port was taken. Rejects (after killing the child) when the process exits
 * early or is not ready within `startTimeoutMs`; the message carries the server's output.
 * The child is SIGKILLed when this process exits.
 */
export async function startKapiServer(options: StartKapiServerOptions): Promise<KapiServer> {
  installExitHandler();
  const binary = options.binary ?? process.env.KAPI_APISERVER_BIN ?? defaultApiserverBinary;
  if (!existsSync(binary)) throw new Error(`kapi-apiserver not built: ${binary} is missing (run \`make build\`)`);
  const verbose = options.verbose ?? process.env.KAPI_SERVER_VERBOSE === '1';
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const certDir = mkdtempSync(join(tmpdir(), 'kapi-certs-'));
  let securePort = 0;
  let insecurePort = 0;
  const args = (): string[] => [
    binary,
    `--etcd-servers=${options.etcdServers.join(',')}`,
    ...(options.etcdPrefix !== undefined ? [`--etcd-prefix=${options.etcdPrefix}`] : []),
    '--bind-address=127.0.0.1',
    `--secure-port=${securePort}`,
    `--cert-dir=${certDir}`,
    ...(options.insecure ? [`--insecure-port=${insecurePort}`, '--insecure-bind-address=127.0.0.1'] : []),
    ...(options.extraArgs ?? []),
  ];
  const url = (): string => `https://127.0.0.1:${securePort}`;

  let child: ChildProcess | undefined;
  let output = '';
  let stopped = false;

  const launch = async (): Promise<void> => {
    const current = spawn(process.execPath, args(), {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    child = current;
    liveChildren.add(current);
    current.once('exit', () => liveChildren.delete(current));
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-65536);
      if (verbose) process.stderr.write(chunk);
    };
    current.stdout?.on('data', collect);
    current.stderr?.on('data', collect);
    let spawnError: Error | undefined;
    current.once('error', (err) => (spawnError = err));
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (spawnError) throw new Error(`could not start kapi-apiserver: ${spawnError.message}`);
      if (exited(current)) {
        throw new Error(`kapi-apiserver exited early (code ${current.exitCode}, signal ${current.signalCode}):\n${output}`);
      }
      try {
        const res = await insecureGet(`${url()}/readyz`, 2000, options.readyzToken !== undefined ? { authorization: `Bearer ${options.readyzToken}` } : {});
        if (res.status === 200 && res.body.trim() === 'ok') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        current.kill('SIGKILL');
        await waitForExit(current);
        throw new Error(`kapi-apiserver was not ready within ${startTimeoutMs} ms:\n${output}`);
      }
      await sleep(50);
    }
  };

  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    const current = child;
    if (!current || exited(current)) return;
    current.kill(signal);
    const timer = setTimeout(() => current.kill('SIGKILL'), 5000);
    await waitForExit(current);
    clearTimeout(timer);
  };

  // A port that was free a moment ago may be taken before the server binds it: retry with new ones.
  for (let attempt = 1; ; attempt++) {
    securePort = await freshPort();
    if (options.insecure) insecurePort = await freshPort();
    try {
      await launch();
      break;
    } catch (err) {
      await terminate('SIGKILL');
      if (attempt < 3 && output.includes('EADDRINUSE')) continue;
      rmSync(certDir, { recursive: true, force: true });
      throw err;
    }
  }

  return {
    url: url(),
    insecureUrl: options.insecure ? `http://127.0.0.1:${insecurePort}` : undefined,
    certDir,
    caFile: join(certDir, generatedCertFileName),
    pid: () => (child && !exited(child) ? child.pid : undefined),
    running: () => child !== undefined && !exited(child),
    output: () => output,
    kill: (signal: NodeJS.Signals = 'SIGKILL') => terminate(signal),
    async restart() {
      if (stopped) throw new Error('kapi-apiserver was stopped; start a new one');
      await terminate('SIGTERM');
      await launch();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate('SIGTERM');
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
