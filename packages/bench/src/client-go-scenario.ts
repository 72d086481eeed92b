/**
 * The neutral client: creates, GETs, LISTs and watch delivery measured by a client-go program
 * (packages/bench/go, typed clientset, protobuf both ways) instead of kapi-bench's own client,
 * so that a side-by-side figure does not depend on how kapi-bench talks HTTP. The server's CPU
 * and RSS are sampled over the measured part only (the program says when it starts).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchContext } from './context.js';
import { monitorProcess, type ProcessUsage } from './process-stats.js';
import { authFor } from './target.js';

/** Calls `onLine` with each line of `input` that is a JSON object (the Go client's events); other lines are skipped. */
function onJsonLines(input: NodeJS.ReadableStream, onLine: (parsed: Record<string, unknown>) => void): void {
  createInterface({ input }).on('line', (text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) onLine(parsed as Record<string, unknown>);
  });
}

/** What runMeasured does at a Go program's window lines (each awaited before the next line). */
export interface MeasuredHooks {
  /** At `{"event":"measuring"}`: the measured window starts. */
  onMeasuring?(): void | Promise<void>;
  /** At `{"event":"result",...}`: the window has ended; `line` is the result. */
  onResult?(line: Record<string, unknown>): void | Promise<void>;
}

/**
 * Runs one of packages/bench/go's programs, which print `{"event":"measuring"}` when their
 * measured window starts and `{"event":"result",...}` when it ends; resolves with the result
 * line once the hooks have run. Rejects when the program exits without a result line (`name`
 * and the last lines of its standard error in the message) or, with `timeoutMs`, is killed for
 * running past it.
 */
export function runMeasured(binary: string, args: string[], name: string, hooks: MeasuredHooks, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env !== undefined ? { env: options.env } : {}) });
    let stderr = '';
    let result: Record<string, unknown> | undefined;
    let chain = Promise.resolve();
    const timer = options.timeoutMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8192)));
    onJsonLines(child.stdout, (parsed) => {
      if (parsed['event'] === 'measuring' && hooks.onMeasuring !== undefined) chain = chain.then(hooks.onMeasuring);
      if (parsed['event'] === 'result') {
        result = parsed;
        if (hooks.onResult !== undefined) chain = chain.then(() => hooks.onResult!(parsed));
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      chain.then(
        () => (result !== undefined ? resolve(result) : reject(new Error(`${name} exited (${code ?? signal}) without a result: ${stderr.trim().split('\n').slice(-3).join(' | ')}`))),
        reject,
      );
    });
  });
}

/** packages/bench/go: the Go module of the client-go load program. */
export const goModuleDir = fileURLToPath(new URL('../go', import.meta.url));
/** packages/bench/.cache/bin: the built program (git-ignored). */
const cacheDir = fileURLToPath(new URL('../.cache', import.meta.url));

export interface ClientGoStep {
  mode: 'create' | 'get' | 'list' | 'watch';
  /** What was measured, for the report. */
  request: string;
  /** Goroutines (create, get, list) or watches (watch). */
  concurrency: number;
  ops: number;
  errors: number;
  errorSamples: string[];
  seconds: number;
  opsPerSecond: number;
  /** Request latency (create, get, list) or delivery latency from the write's acknowledgement (watch), ms. */
  p50: number;
  p99: number;
  max: number;
  /**
   * list: the items the last LIST returned. The namespace also holds every ConfigMap the create
   * steps made, so this is more than the 5000 asked for, and differs between runs and servers.
   */
  items?: number;
  expectedDeliveries?: number;
  deliveries?: number;
  /** Server CPU ms per operation (watch: per write, with its deliveries). */
  serverCpuMsPerOp?: number;
  usage?: ProcessUsage;
}

export interface ClientGoScenarioResult {
  steps: ClientGoStep[];
  errors: string[];
}

export interface ClientGoScenarioOptions {
  binary: string;
  concurrency: readonly number[];
  durationMs: number;
  warmupMs: number;
  listObjects: number;
  watchers: number;
  rate: number;
}

/**
 * Builds a program of packages/bench/go/cmd (default the client-go one) into
 * packages/bench/.cache/bin with the machine's `go` (`$GO` overrides); incremental after the
 * first build. Rejects with go's output when it fails or go is missing.
 */
export function buildClientGo(timeoutMs = 20 * 60_000, command = 'kapi-bench-client'): Promise<string> {
  const binDir = join(cacheDir, 'bin');
  mkdirSync(binDir, { recursive: true });
  writeFileSync(join(cacheDir, '.gitignore'), '*\n');
  const binary = join(binDir, command);
  return new Promise((resolve, reject) => {
    execFile(process.env.GO ?? 'go', ['build', '-buildvcs=false', '-o', binary, `./cmd/${command}`], { cwd: goModuleDir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`go build of packages/bench/go/cmd/${command} failed (is Go ≥ 1.23 installed?): ${error.message.split('\n')[0]}\n${stdout}${stderr}`.trim()));
      else resolve(binary);
    });
  });
}

let built: Promise<string> | undefined;

/** {@link buildClientGo} once per process. */
export function clientGoBinary(): Promise<string> {
  built ??= buildClientGo();
  return built;
}

/** Runs the program once; samples the server between its "measuring" and "result" lines. */
function runOne(ctx: BenchContext, binary: string, args: string[], timeoutMs: number): Promise<{ line: Record<string, unknown>; usage: ProcessUsage | undefined }> {
  let monitor: ReturnType<typeof monitorProcess> | undefined;
  let usage: ProcessUsage | undefined;
  const name = `kapi-bench-client ${args.filter((a) => a.startsWith('--mode')).join(' ')}`;
  return runMeasured(binary, args, name, {
    onMeasuring: () => {
      monitor = ctx.kapiPid !== undefined ? monitorProcess(ctx.kapiPid) : undefined;
    },
    onResult: () => {
      usage = monitor?.finish();
    },
  }, { timeoutMs }).then((line) => ({ line, usage }));
}

export async function runClientGoScenario(ctx: BenchContext, options: ClientGoScenarioOptions): Promise<ClientGoScenarioResult> {
  const token = authFor(ctx.url)?.token;
  const base = [`--server=${ctx.url}`, ...(token !== undefined ? [`--token=${token}`] : []), `--duration=${options.durationMs}ms`, `--warmup=${options.warmupMs}ms`];
  const listObjects = Math.min(options.listObjects, 5000);
  const watchers = Math.min(options.watchers, 200);
  const plan: { mode: ClientGoStep['mode']; request: string; concurrency: number; args: string[] }[] = [
    ...options.concurrency.map((c) => ({ mode: 'create' as const, request: 'create ConfigMap 1 KiB', concurrency: c, args: [`--concurrency=${c}`] })),
    ...options.concurrency.map((c) => ({ mode: 'get' as const, request: 'GET ConfigMap 1 KiB', concurrency: c, args: [`--concurrency=${c}`, '--objects=1000'] })),
    { mode: 'list', request: `LIST ${listObjects} ConfigMaps, RV unset`, concurrency: 1, args: ['--concurrency=1', `--objects=${listObjects}`] },
    { mode: 'list', request: `LIST ${listObjects} ConfigMaps, RV=0`, concurrency: 1, args: ['--concurrency=1', `--objects=${listObjects}`, '--rv=0'] },
    { mode: 'watch', request: `${watchers} watches, ${options.rate} updates/s: delivery`, concurrency: watchers, args: [`--watchers=${watchers}`, `--rate=${options.rate}`] },
  ];
  const steps: ClientGoStep[] = [];
  const errors: string[] = [];
  for (const p of plan) {
    try {
      const { line, usage } = await runOne(ctx, options.binary, [...base, `--mode=${p.mode}`, ...p.args], 10 * 60_000);
      const num = (k: string) => (typeof line[k] === 'number' ? (line[k] as number) : Number.NaN);
      const ops = num('ops');
      const errs = num('errors');
      const step: ClientGoStep = {
        mode: p.mode,
        request: p.request,
        concurrency: p.concurrency,
        ops,
        errors: errs,
        errorSamples: Array.isArray(line['errorSamples']) ? (line['errorSamples'] as string[]) : [],
        seconds: num('seconds'),
        opsPerSecond: num('opsPerSecond'),
        p50: num('p50'),
        p99: num('p99'),
        max: num('max'),
        ...(p.mode === 'list' && Number.isFinite(num('items')) ? { items: num('items') } : {}),
        ...(p.mode === 'watch' ? { expectedDeliveries: num('expectedDeliveries'), deliveries: num('deliveries') } : {}),
        ...(usage ? { usage, ...(ops > 0 ? { serverCpuMsPerOp: (usage.cpuSeconds * 1000) / (p.mode === 'watch' ? ops : ops + errs) } : {}) } : {}),
      };
      steps.push(step);
      ctx.log(`client-go ${p.request}${step.items !== undefined ? ` (${step.items} items)` : ''} c=${p.concurrency}: ${step.opsPerSecond.toFixed(0)}/s p50 ${step.p50.toFixed(1)} ms p99 ${step.p99.toFixed(1)} ms, errors ${errs}${step.serverCpuMsPerOp !== undefined ? `, server ${step.serverCpuMsPerOp.toFixed(2)} ms/op` : ''}`);
    } catch (err) {
      errors.push(`client-go ${p.request}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { steps, errors };
}

/** The scenario's own table. */
export function clientGoRows(r: ClientGoScenarioResult): string[][] {
  const f = (n: number | undefined, d: number) => (n === undefined || !Number.isFinite(n) || n < 0 ? '—' : n.toFixed(d));
  return [
    ['request', 'conc', 'ops/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'server cpu ms/op', 'server RSS MiB'],
    ...r.steps.map((s) => [s.request, String(s.concurrency), f(s.opsPerSecond, 0), f(s.p50, 2), f(s.p99, 2), f(s.max, 1), String(s.errors), f(s.serverCpuMsPerOp, 3), f(s.usage ? s.usage.peakRssBytes / 2 ** 20 : undefined, 0)]),
  ];
}
