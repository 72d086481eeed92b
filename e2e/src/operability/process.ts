/**
 * Operability test support: a `kapi-apiserver` child process whose exit code the test sees
 * (the shared harness hides it), plain HTTP helpers that never throw, and the V8 inspector
 * of the child (forced GC and memory readings).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@kapi/storage/testing';
import { WebSocket } from 'undici';
import { defaultApiserverBinary } from '@kapi/apiserver/testing';

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** Milliseconds from sending to the end of the response. */
  readonly ms: number;
}

export type HttpOutcome = HttpResult | { readonly error: string; readonly ms: number };

export function isResult(outcome: HttpOutcome): outcome is HttpResult {
  return 'status' in outcome;
}

/** One request; resolves with the response or the socket error (never rejects). */
export function http(url: string, options: { method?: string; body?: unknown; agent?: Agent | false; timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<HttpOutcome> {
  const started = Date.now();
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const req = request(url, {
      method: options.method ?? 'GET',
      agent: options.agent ?? false,
      headers: {
        accept: 'application/json',
        ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        ...options.headers,
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started }));
      res.on('error', (err) => resolve({ error: err.message, ms: Date.now() - started }));
    });
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error(`timeout after ${options.timeoutMs ?? 30_000} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, ms: Date.now() - started }));
    req.end(payload);
  });
}

export interface ServerProcess {
  /** `http://127.0.0.1:<insecure-port>`. */
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** SIGKILL if still running; removes the cert dir. */
  cleanup(): Promise<void>;
}

/**
 * Starts the built server on free loopback ports (plain HTTP on `url`, HTTPS on a second
 * port) with `args` appended, and waits for `/readyz` to say ok.
 */
export async function spawnServer(etcdServers: readonly string[], args: readonly string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  const certDir = mkdtempSync(join(tmpdir(), 'kapi-ops-'));
  const insecurePort = await freePort();
  const securePort = await freePort();
  const child = spawn(process.execPath, [
    defaultApiserverBinary,
    `--etcd-servers=${etcdServers.join(',')}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${securePort}`,
    `--cert-dir=${certDir}`,
    `--insecure-port=${insecurePort}`,
    ...args,
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-262_144);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${insecurePort}`;
  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(certDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await cleanup();
      throw new Error(`kapi-apiserver exited early (${child.exitCode}):\n${output}`);
    }
    const res = await http(`${url}/readyz`, { timeoutMs: 2000 });
    if (isResult(res) && res.status === 200) break;
    if (Date.now() > deadline) {
      await cleanup();
      throw new Error(`kapi-apiserver not ready in 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, child, exited, output: () => output, cleanup };
}

/** The V8 inspector of a process started with `--inspect=127.0.0.1:0`. */
export interface Inspector {
  /** A full GC (HeapProfiler.collectGarbage). */
  collectGarbage(): Promise<void>;
  memoryUsage(): Promise<NodeJS.MemoryUsage>;
  close(): void;
}

export async function connectInspector(output: () => string): Promise<Inspector> {
  let url: string | undefined;
  for (let i = 0; i < 100 && url === undefined; i++) {
    url = /Debugger listening on (ws:\/\/\S+)/.exec(output())?.[1];
    if (url === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  if (url === undefined) throw new Error('the server printed no inspector URL');
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error(`inspector ${url}: connection failed`)));
  });
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`inspector ${method}: no answer in 30 s`)), 30_000);
      waiting.set(id, (result) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(result);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async collectGarbage() {
      await call('HeapProfiler.collectGarbage');
    },
    async memoryUsage() {
      const result = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
      return JSON.parse(result.result.value) as NodeJS.MemoryUsage;
    },
    close: () => ws.close(),
  };
}

/** A POST whose body is sent only when `finish` is called (a request in flight across a shutdown). */
export function slowPost(url: string, obj: unknown): { finish(): void; response: Promise<HttpOutcome> } {
  const body = Buffer.from(JSON.stringify(obj));
  const started = Date.now();
  const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } });
  const response = new Promise<HttpOutcome>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ms: Date.now() - started }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, ms: Date.now() - started }));
  });
  req.write(body.subarray(0, 3));
  req.flushHeaders();
  return { finish: () => req.end(body.subarray(3)), response };
}
