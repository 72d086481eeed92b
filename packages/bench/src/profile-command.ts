/**
 * `kapi-bench profile`: where a server's CPU goes per request. One etcd and one server (kapi, or
 * kube-apiserver for its CPU per op only), then the client-go program (packages/bench/go) runs
 * each variant — create or GET, protobuf or JSON, HTTP/2 or HTTP/1.1 — in turn, `--rounds`
 * times in the same order, so every variant sees the same warm server and the same machine load.
 * Each run reports the server's CPU time per operation (/proc, over the measured window only).
 * With `--cpu-profile` a further run of each variant is sampled by V8's profiler through the
 * inspector (kapi only), written as a `.cpuprofile` (Chrome DevTools, speedscope) and split by
 * stage (see {@link stageOf}).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEtcd } from '@kapi/storage/testing';
import { clientGoBinary, onJsonLines } from './client-go-scenario.js';
import { connectInspector, inspectorUrl, type InspectorSession } from './inspector.js';
import { kubeApiserverBinary, startComparedKapi, startKubeApiserver, type ComparedServer } from './kube-server.js';
import { monitorProcess } from './process-stats.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './profile-stages.js';

export const profileUsage = `kapi-bench profile [options]
  --server kapi|kube-apiserver   server under test (default kapi; profiles need kapi)
  --variants LIST          comma-separated MODE/CODEC/HTTP, e.g. create/protobuf/h2,get/json/h1
                           (default create/protobuf/h2,create/json/h1,create/json/h2,create/protobuf/h1)
  --concurrency N          client goroutines (default 16)
  --duration S             measured seconds per run (default 10)
  --warmup S               unmeasured seconds before each run (default 3); the first run of all
                           is preceded by --first-warmup S (default 20) to get past V8's warm-up
  --rounds N               runs of every variant, same order each round (default 2)
  --clients N              independent client-go clientsets, each its own connection, the requests
                           spread over them (default 1: one HTTP/2 connection, as one program holds)
  --workers N              kapi's --workers (default 1); the server CPU counts every worker
  --cpu-profile            one more run of each variant under V8's CPU profiler (kapi only)
  --out DIR                where .cpuprofile files and the summary go (default bench/results/profile-<time>)
`;

export interface ProfileVariant {
  mode: 'create' | 'get';
  codec: 'protobuf' | 'json';
  http: 'h1' | 'h2';
}

export interface ProfileOptions {
  server: 'kapi' | 'kube-apiserver';
  variants: ProfileVariant[];
  concurrency: number;
  durationS: number;
  warmupS: number;
  firstWarmupS: number;
  rounds: number;
  clients: number;
  workers: number;
  cpuProfile: boolean;
  outDir: string;
}

export function variantName(v: ProfileVariant): string {
  return `${v.mode}/${v.codec}/${v.http}`;
}

export function parseProfileOptions(argv: string[], defaultOutDir: string): ProfileOptions {
  const options: ProfileOptions = {
    server: 'kapi',
    variants: parseVariants('create/protobuf/h2,create/json/h1,create/json/h2,create/protobuf/h1'),
    concurrency: 16,
    durationS: 10,
    warmupS: 3,
    firstWarmupS: 20,
    rounds: 2,
    clients: 1,
    workers: 1,
    cpuProfile: false,
    outDir: join(defaultOutDir, `profile-${new Date().toISOString().replace(/[:.]/g, '-')}`),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const positive = (): number => {
      const v = Number(value());
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} must be a positive number`);
      return v;
    };
    switch (flag) {
      case '--server': {
        const v = value();
        if (v !== 'kapi' && v !== 'kube-apiserver') throw new Error(`--server must be kapi or kube-apiserver, not ${v}`);
        options.server = v;
        break;
      }
      case '--variants':
        options.variants = parseVariants(value());
        break;
      case '--concurrency':
        options.concurrency = Math.round(positive());
        break;
      case '--duration':
        options.durationS = positive();
        break;
      case '--warmup':
        options.warmupS = Number(value());
        break;
      case '--first-warmup':
        options.firstWarmupS = Number(value());
        break;
      case '--rounds':
        options.rounds = Math.round(positive());
        break;
      case '--clients':
        options.clients = Math.round(positive());
        break;
      case '--workers':
        options.workers = Math.round(positive());
        break;
      case '--cpu-profile':
        options.cpuProfile = true;
        break;
      case '--out':
        options.outDir = value();
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  if (options.cpuProfile && options.server !== 'kapi') throw new Error('--cpu-profile needs --server kapi');
  if (options.cpuProfile && options.workers !== 1) throw new Error('--cpu-profile needs --workers 1 (one inspector)');
  if (options.workers !== 1 && options.server !== 'kapi') throw new Error('--workers is for --server kapi');
  return options;
}

function parseVariants(text: string): ProfileVariant[] {
  return text.split(',').map((item) => {
    const [mode, codec, http] = item.trim().split('/');
    if ((mode !== 'create' && mode !== 'get') || (codec !== 'protobuf' && codec !== 'json') || (http !== 'h1' && http !== 'h2')) {
      throw new Error(`--variants: ${item} is not MODE/CODEC/HTTP (create|get / protobuf|json / h1|h2)`);
    }
    return { mode, codec, http };
  });
}

export interface ProfileRun {
  variant: string;
  round: number;
  ops: number;
  opsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  serverCpuMsPerOp: number;
}

export interface ProfileResult {
  options: ProfileOptions;
  runs: ProfileRun[];
  profiles: { variant: string; file: string; ops: number; summary: ProfileSummary }[];
}

/**
 * Runs the client-go program once; `onMeasuring` runs when it starts its measured window and
 * `onResult` when it ends it (both awaited before the next line is read).
 */
function runClient(binary: string, server: ComparedServer, v: ProfileVariant, args: string[], hooks: { onMeasuring(): Promise<void>; onResult(): Promise<void> }): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [`--server=${server.url}`, `--token=${server.token}`, `--mode=${v.mode}`, `--codec=${v.codec}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GODEBUG: v.http === 'h1' ? 'http2client=0' : '' },
    });
    let stderr = '';
    let result: Record<string, unknown> | undefined;
    let chain = Promise.resolve();
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4096)));
    onJsonLines(child.stdout, (parsed) => {
      if (parsed['event'] === 'measuring') chain = chain.then(hooks.onMeasuring);
      if (parsed['event'] === 'result') {
        result = parsed;
        chain = chain.then(hooks.onResult);
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      chain.then(
        () => (result ? resolve(result) : reject(new Error(`kapi-bench-client ${variantName(v)} exited ${code} without a result: ${stderr.trim()}`))),
        reject,
      );
    });
  });
}

export async function runProfile(options: ProfileOptions, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<ProfileResult> {
  const binary = await clientGoBinary();
  const etcd = await startEtcd();
  let server: ComparedServer | undefined;
  let inspector: InspectorSession | undefined;
  const result: ProfileResult = { options, runs: [], profiles: [] };
  try {
    server =
      options.server === 'kapi'
        ? await startComparedKapi({ etcdServers: etcd.endpoints, workers: options.workers, ...(options.cpuProfile ? { env: { NODE_OPTIONS: '--inspect=127.0.0.1:0' } } : {}) })
        : await startKubeApiserver({ binary: kubeApiserverBinary(), etcdServers: etcd.endpoints });
    const pid = server.pid();
    if (pid === undefined) throw new Error(`${options.server} is not running`);
    if (options.cpuProfile) {
      const url = inspectorUrl(server.output());
      if (url === undefined) throw new Error('kapi did not print its inspector URL');
      inspector = await connectInspector(url);
    }
    const base = [`--concurrency=${options.concurrency}`, `--duration=${options.durationS}s`, '--objects=1000', `--clients=${options.clients}`];
    let first = true;
    const measured = async (v: ProfileVariant, round: number, profile: boolean): Promise<void> => {
      const warmup = first ? options.firstWarmupS : options.warmupS;
      first = false;
      let monitor: ReturnType<typeof monitorProcess> | undefined;
      let cpuSeconds = Number.NaN;
      let cpuProfile: CpuProfile | undefined;
      const line = await runClient(binary, server!, v, [...base, `--warmup=${warmup}s`], {
        async onMeasuring() {
          monitor = monitorProcess(pid);
          if (profile) await inspector!.startProfiling(250);
        },
        async onResult() {
          if (profile) cpuProfile = (await inspector!.stopProfiling()) as CpuProfile;
          cpuSeconds = monitor?.finish()?.cpuSeconds ?? Number.NaN;
        },
      });
      const num = (k: string) => (typeof line[k] === 'number' ? line[k] : Number.NaN);
      const ops = num('ops') + num('errors');
      const run: ProfileRun = { variant: variantName(v), round, ops: num('ops'), opsPerSecond: num('opsPerSecond'), p50: num('p50'), p99: num('p99'), errors: num('errors'), serverCpuMsPerOp: (cpuSeconds * 1000) / ops };
      if (cpuProfile) {
        mkdirSync(options.outDir, { recursive: true });
        const file = join(options.outDir, `${variantName(v).replace(/\//g, '-')}.cpuprofile`);
        writeFileSync(file, JSON.stringify(cpuProfile));
        result.profiles.push({ variant: run.variant, file, ops, summary: summarizeProfile(cpuProfile) });
        log(`profile ${run.variant}: ${run.ops} ops (${run.serverCpuMsPerOp.toFixed(3)} ms/op with the profiler on) → ${file}`);
      } else {
        result.runs.push(run);
        log(`${run.variant} round ${round}: ${run.opsPerSecond.toFixed(0)}/s p50 ${run.p50.toFixed(1)} ms p99 ${run.p99.toFixed(1)} ms, errors ${run.errors}, server ${run.serverCpuMsPerOp.toFixed(3)} ms/op`);
      }
    };
    for (let round = 1; round <= options.rounds; round++) for (const v of options.variants) await measured(v, round, false);
    if (options.cpuProfile) for (const v of options.variants) await measured(v, 0, true);
  } finally {
    inspector?.close();
    await server?.stop();
    await etcd.stop();
  }
  return result;
}

/** Markdown: CPU per op by variant (min–max over rounds), then each profile's stages in ms per op. */
export function profileReport(result: ProfileResult): string {
  const lines: string[] = [];
  const o = result.options;
  lines.push(`# kapi-bench profile ${new Date().toISOString()}`, '');
  lines.push(`- ${o.server}${o.workers !== 1 ? ` --workers=${o.workers}` : ''}, client-go ${o.concurrency} goroutines over ${o.clients} connection${o.clients === 1 ? '' : 's'}, ${o.rounds} rounds of ${o.durationS} s per variant (warm-up ${o.firstWarmupS} s first, then ${o.warmupS} s)`, '');
  lines.push('| variant | ops/s | p50 ms | p99 ms | server CPU ms/op |', '|---|---|---|---|---|');
  const range = (xs: number[], d: number) => (xs.length === 0 ? '—' : `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`);
  for (const v of o.variants) {
    const runs = result.runs.filter((r) => r.variant === variantName(v));
    lines.push(`| ${variantName(v)} | ${range(runs.map((r) => r.opsPerSecond), 0)} | ${range(runs.map((r) => r.p50), 1)} | ${range(runs.map((r) => r.p99), 1)} | ${range(runs.map((r) => r.serverCpuMsPerOp), 3)} |`);
  }
  if (result.profiles.length > 0) {
    const stages = [...new Set(result.profiles.flatMap((p) => p.summary.stages.map((s) => s.stage)))];
    const share = (p: ProfileResult['profiles'][number], stage: string) => {
      const s = p.summary.stages.find((x) => x.stage === stage);
      return s === undefined ? '—' : ((s.ms / p.ops)).toFixed(3);
    };
    lines.push('', '## Profiled CPU by stage (ms per op; sampled with the profiler on, idle excluded)', '');
    lines.push(`| stage | ${result.profiles.map((p) => p.variant).join(' | ')} |`, `|---|${result.profiles.map(() => '---|').join('')}`);
    for (const stage of stages) lines.push(`| ${stage} | ${result.profiles.map((p) => share(p, stage)).join(' | ')} |`);
    lines.push(`| **total** | ${result.profiles.map((p) => (p.summary.busyMs / p.ops).toFixed(3)).join(' | ')} |`);
    for (const p of result.profiles) {
      lines.push('', `### ${p.variant}: top functions by self time (ms per op)`, '', '| function | where | ms/op |', '|---|---|---|');
      for (const f of p.summary.topFunctions.slice(0, 25)) lines.push(`| ${f.name} | ${f.where} | ${(f.ms / p.ops).toFixed(4)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
