import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundledApiserverBinary, startKapiServer, type KapiServer } from '@kapi/apiserver/testing';
import { runClosedLoop, type LoadResult, type Operation } from './load.js';
import { pin } from './pinning.js';
import { monitorProcess, readProcess, type ProcessUsage } from './process-stats.js';

/** A bare baseline process (dist/bare-server.js). */
export interface BareServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * What every scenario gets from the suite: the server under test, its etcd, the CPU the
 * servers are pinned to, and helpers that start more servers there (stopped by the suite).
 */
export interface BenchContext {
  /** The kapi server under test (plain HTTP when the suite started it). */
  readonly url: string;
  /** The same server's HTTPS URL, when known (the suite's own server, or an https target): HTTP/2 variants run there. */
  readonly secureUrl: string | undefined;
  readonly kapiPid: number | undefined;
  /** Which server is under test ("kapi", "kube-apiserver"), for log lines. */
  readonly serverName: string;
  readonly etcdPid: number | undefined;
  /** etcd of the server under test, when known (needed to start more servers on it). */
  readonly serverEtcd: string[] | undefined;
  /** The CPU list servers are pinned to, or undefined when not pinning. */
  readonly serverCpus: string | undefined;
  readonly quick: boolean;
  readonly warmupMs: number;
  log(message: string): void;
  /** Starts another kapi-apiserver on {@link serverEtcd} (plain HTTP), pinned with the servers. */
  startServer(options: { extraArgs?: string[]; env?: Record<string, string>; etcdPrefix?: string }): Promise<KapiServer>;
  /** Starts `bare-server.js <mode> <file>`, pinned with the servers. */
  startBare(mode: 'list' | 'fanout', file: string): Promise<BareServer>;
}

const bareServerScript = fileURLToPath(new URL('./bare-server.js', import.meta.url));

/** Bare servers still running; killed when this process exits. */
const bareChildren = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of bareChildren) child.kill('SIGKILL');
});

/** Starts a bare baseline process and waits for its port line; pins it to `cpus` when given. */
export async function startBareServer(mode: 'list' | 'fanout', file: string, cpus: string | undefined): Promise<BareServer> {
  const child: ChildProcess = spawn(process.execPath, [bareServerScript, mode, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bare-server ${mode} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  if (cpus !== undefined) pin(child.pid!, cpus);
  bareChildren.add(child);
  child.once('exit', () => bareChildren.delete(child));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The kapi-apiserver program the bench starts: $KAPI_APISERVER_BIN, else the bundled server
 * with its code cache (dist/bundled.js), as `make run` and the image start it.
 */
export function kapiApiserverBinary(): string {
  return process.env.KAPI_APISERVER_BIN ?? bundledApiserverBinary;
}

/** Starts a kapi-apiserver for a scenario (plain HTTP) and pins it to `cpus` when given. */
export async function startExtraServer(
  etcd: string[],
  cpus: string | undefined,
  options: { extraArgs?: string[]; env?: Record<string, string>; etcdPrefix?: string },
): Promise<KapiServer> {
  const server = await startKapiServer({
    binary: kapiApiserverBinary(),
    etcdServers: etcd,
    insecure: true,
    startTimeoutMs: 120_000,
    ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.etcdPrefix ? { etcdPrefix: options.etcdPrefix } : {}),
  });
  const pid = server.pid();
  if (cpus !== undefined && pid !== undefined) pin(pid, cpus);
  return server;
}

/** A measured closed-loop run plus the CPU and RSS of the watched processes and of this process. */
export interface MeasuredRun extends LoadResult {
  usage: Record<string, ProcessUsage | undefined>;
  /** RSS of each process before the warm-up (bytes), to show what the step's load added. */
  rssBeforeBytes?: Record<string, number | undefined>;
  loadGeneratorCpuSeconds: number;
}

/**
 * Warms up (`warmupMs`, results discarded), then runs `op` in a closed loop for `durationMs`
 * while sampling the processes in `pids` (by label) once a second.
 */
export async function measureClosedLoop(
  op: Operation,
  options: { concurrency: number; durationMs: number; warmupMs: number; pids: Record<string, number | undefined>; firstSeq?: number; maxOps?: number },
): Promise<MeasuredRun> {
  let seq = options.firstSeq ?? 0;
  const rssBeforeBytes = Object.fromEntries(Object.entries(options.pids).map(([label, pid]) => [label, pid !== undefined ? readProcess(pid)?.rssBytes : undefined]));
  if (options.warmupMs > 0) seq = (await runClosedLoop(op, { concurrency: options.concurrency, durationMs: options.warmupMs, firstSeq: seq })).nextSeq;
  const monitors = Object.entries(options.pids).map(([label, pid]) => [label, pid !== undefined ? monitorProcess(pid) : undefined] as const);
  const cpuBefore = process.cpuUsage();
  const result = await runClosedLoop(op, { concurrency: options.concurrency, durationMs: options.durationMs, firstSeq: seq, ...(options.maxOps !== undefined ? { maxOps: options.maxOps } : {}) });
  const cpu = process.cpuUsage(cpuBefore);
  const usage: Record<string, ProcessUsage | undefined> = {};
  for (const [label, monitor] of monitors) usage[label] = monitor?.finish();
  return { ...result, usage, rssBeforeBytes, loadGeneratorCpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/** A run that could not take place (setup failed): one error, no samples — reported, not hidden. */
export function failedRun(concurrency: number, err: unknown): MeasuredRun {
  const nan = Number.NaN;
  return {
    concurrency,
    ops: 0,
    errors: 1,
    errorSamples: [err instanceof Error ? err.message : String(err)],
    elapsedSeconds: 0,
    opsPerSecond: 0,
    latency: { count: 0, p50: nan, p90: nan, p99: nan, max: nan, mean: nan },
    nextSeq: 0,
    usage: {},
    loadGeneratorCpuSeconds: 0,
  };
}
