/**
 * `kapi-bench profile`: where a server's CPU goes per request. Each server under test (kapi,
 * kube-apiserver or both) gets an etcd of its own; then the client-go program (packages/bench/go)
 * runs each variant — create or GET, protobuf or JSON, HTTP/2 or HTTP/1.1 — against each server
 * in turn, `--rounds` times in the same order, so every variant sees the same warm servers and
 * the same machine load. Each run reports the server's CPU time per operation (/proc, over the
 * measured window only). With `--cpu-profile` a further run of each variant is sampled over
 * that window, each server fetched the same way: `/debug/pprof/profile` (written as
 * `.pprof.gz`; kapi's holds V8's samples, kube-apiserver's Go's); with `--kapi-profiler
 * inspector`, kapi is sampled through V8's inspector instead (a `.cpuprofile` for DevTools'
 * timeline). Both are split into the same stages ({@link summarizeKapiPprof},
 * {@link summarizeProfile}, {@link summarizeGoProfile}) and drawn as SVG flame graphs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@kapi/storage/testing';
import { defaultApiserverBinary } from '@kapi/apiserver/testing';
import { clientGoBinary, runMeasured } from './client-go-scenario.js';
import { connectInspector, inspectorUrl, type InspectorSession } from './inspector.js';
import { kubeApiserverBinary, startComparedKapi, startKubeApiserver, type ComparedServer, type ServerName } from './kube-server.js';
import { monitorProcess } from './process-stats.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './profile-stages.js';
import { cpuProfileFlameStacks, renderFlameGraph, type FlameStack } from './flame-graph.js';
import { goFlameStacks, summarizeGoProfile } from './go-profile-stages.js';
import { decodePprof } from '@kapi/machinery';
import { fetchCpuProfile } from './kube-pprof.js';
import { kapiPprofFlameStacks, summarizeKapiPprof } from './kapi-pprof-stages.js';

export const profileUsage = `kapi-bench profile [options]
  --server LIST            servers under test, kapi and/or kube-apiserver, comma-separated
                           (default kapi); each runs on an etcd of its own, runs alternate
  --variants LIST          comma-separated MODE/CODEC/HTTP (MODE create, get or update: PUTs of one
                           ConfigMap per goroutine), e.g. create/protobuf/h2,get/json/h1
                           (default create/protobuf/h2,create/json/h1,create/json/h2,create/protobuf/h1)
  --concurrency N          client goroutines (default 16)
  --duration S             measured seconds per run (default 10)
  --warmup S               unmeasured seconds before each run (default 3); the first run on each server
                           is preceded by --first-warmup S (default 20) to get past V8's warm-up
  --rounds N               runs of every variant, same order each round (default 2)
  --clients N              independent client-go clientsets, each its own connection, the requests
                           spread over them (default 1: one HTTP/2 connection, as one program holds)
  --workers N              kapi's --workers (default 1); the server CPU counts every worker
  --cpu-profile            one more run of each variant and server under its CPU profiler, fetched
                           from /debug/pprof/profile (kapi: V8's; kube-apiserver: Go's), split by
                           stage and drawn as SVG flame graphs
  --kapi-profiler WHICH    pprof (default: kapi's /debug/pprof/profile) or inspector (V8's
                           inspector, written as a .cpuprofile with its timeline)
  --out DIR                where profiles, flame graphs and the summary go (default bench/results/profile-<time>)
`;

export interface ProfileVariant {
  mode: 'create' | 'get' | 'update';
  codec: 'protobuf' | 'json';
  http: 'h1' | 'h2';
}

export interface ProfileOptions {
  servers: ServerName[];
  variants: ProfileVariant[];
  concurrency: number;
  durationS: number;
  warmupS: number;
  firstWarmupS: number;
  rounds: number;
  clients: number;
  workers: number;
  cpuProfile: boolean;
  /** How kapi's CPU profile is taken: its /debug/pprof/profile, or V8's inspector. */
  kapiProfiler: 'pprof' | 'inspector';
  outDir: string;
}

export function variantName(v: ProfileVariant): string {
  return `${v.mode}/${v.codec}/${v.http}`;
}

export function parseProfileOptions(argv: string[], defaultOutDir: string): ProfileOptions {
  const options: ProfileOptions = {
    servers: ['kapi'],
    variants: parseVariants('create/protobuf/h2,create/json/h1,create/json/h2,create/protobuf/h1'),
    concurrency: 16,
    durationS: 10,
    warmupS: 3,
    firstWarmupS: 20,
    rounds: 2,
    clients: 1,
    workers: 1,
    cpuProfile: false,
    kapiProfiler: 'pprof',
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
        const names = value().split(',').map((v) => v.trim());
        for (const v of names) if (v !== 'kapi' && v !== 'kube-apiserver') throw new Error(`--server takes kapi and/or kube-apiserver, not ${v}`);
        options.servers = [...new Set(names as ServerName[])];
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
      case '--kapi-profiler': {
        const which = value();
        if (which !== 'pprof' && which !== 'inspector') throw new Error(`--kapi-profiler takes pprof or inspector, not ${which}`);
        options.kapiProfiler = which;
        break;
      }
      case '--out':
        options.outDir = value();
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  const kapi = options.servers.includes('kapi');
  // Either profiler samples one process: with more workers, the ops would be the instance's and the profile one worker's.
  if (options.cpuProfile && kapi && options.workers !== 1) throw new Error('--cpu-profile needs --workers 1 (a profile is of one worker)');
  if (options.workers !== 1 && !kapi) throw new Error('--workers is for --server kapi');
  return options;
}

function parseVariants(text: string): ProfileVariant[] {
  return text.split(',').map((item) => {
    const [mode, codec, http] = item.trim().split('/');
    if ((mode !== 'create' && mode !== 'get' && mode !== 'update') || (codec !== 'protobuf' && codec !== 'json') || (http !== 'h1' && http !== 'h2')) {
      throw new Error(`--variants: ${item} is not MODE/CODEC/HTTP (create|get|update / protobuf|json / h1|h2)`);
    }
    return { mode, codec, http };
  });
}

export interface ProfileRun {
  server: ServerName;
  variant: string;
  round: number;
  ops: number;
  opsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  serverCpuMsPerOp: number;
}

/** One profiled run: where its files are and its stages. */
export interface ProfiledRun {
  server: ServerName;
  variant: string;
  /** The profile as written (`.cpuprofile` or `.pprof.gz`). */
  file: string;
  /** Its flame graph (`.svg`). */
  flameGraph: string;
  /** Operations in the profiled window. */
  ops: number;
  summary: ProfileSummary;
}

export interface ProfileResult {
  options: ProfileOptions;
  runs: ProfileRun[];
  profiles: ProfiledRun[];
  /** The 1-minute load average after each run. */
  loadAverages: number[];
}

/**
 * Runs the client-go program once; `onMeasuring` runs when it starts its measured window and
 * `onResult` when it ends it (both awaited before the next line is read).
 */
function runClient(binary: string, server: ComparedServer, v: ProfileVariant, args: string[], hooks: { onMeasuring(): Promise<void>; onResult(): Promise<void> }): Promise<Record<string, unknown>> {
  const all = [`--server=${server.url}`, `--token=${server.token}`, `--mode=${v.mode}`, `--codec=${v.codec}`, ...args];
  return runMeasured(binary, all, `kapi-bench-client ${variantName(v)}`, hooks, { env: { ...process.env, GODEBUG: v.http === 'h1' ? 'http2client=0' : '' } });
}

/** A server under test with its etcd and, for kapi's profiles, its inspector. */
interface Target {
  name: ServerName;
  server: ComparedServer;
  pid: number;
  stopEtcd(): Promise<void>;
  inspector?: InspectorSession;
  /** Whether its first run (with the long warm-up) is still to come. */
  first: boolean;
}

async function startTarget(name: ServerName, options: { cpuProfile: boolean; workers: number; kapiProfiler: 'pprof' | 'inspector' }): Promise<Target> {
  const cpuProfile = options.cpuProfile && options.kapiProfiler === 'inspector';
  const etcd = await startEtcd();
  try {
    const server =
      name === 'kapi'
        ? // dist/bin.js, not the bundle: the profile's stages are told apart by the modules' URLs.
          // $KAPI_PROFILE_APISERVER_BIN: another tree's dist/bin.js (a before/after pair with one client).
          await startComparedKapi({ etcdServers: etcd.endpoints, workers: options.workers, binary: process.env['KAPI_PROFILE_APISERVER_BIN'] ?? defaultApiserverBinary, ...(cpuProfile ? { env: { NODE_OPTIONS: '--inspect=127.0.0.1:0' } } : {}) })
        : await startKubeApiserver({ binary: kubeApiserverBinary(), etcdServers: etcd.endpoints });
    const target: Target = { name, server, pid: 0, stopEtcd: () => etcd.stop(), first: true };
    try {
      const pid = server.pid();
      if (pid === undefined) throw new Error(`${name} is not running`);
      target.pid = pid;
      if (cpuProfile && name === 'kapi') {
        const url = inspectorUrl(server.output());
        if (url === undefined) throw new Error('kapi did not print its inspector URL');
        target.inspector = await connectInspector(url);
      }
      return target;
    } catch (err) {
      await server.stop();
      throw err;
    }
  } catch (err) {
    await etcd.stop();
    throw err;
  }
}

async function stopTarget(target: Target): Promise<void> {
  target.inspector?.close();
  await target.server.stop();
  await target.stopEtcd();
}

/** Starts a profiler on `target` at the start of the measured window; `stop` ends it and returns its stacks. */
function startProfiler(target: Target, durationS: number): { ready: Promise<void>; stop(): Promise<{ bytes: Buffer; extension: string; summary: ProfileSummary; stacks: FlameStack[]; seconds?: number }> } {
  if (target.inspector !== undefined) {
    const inspector = target.inspector;
    return {
      ready: inspector.startProfiling(250),
      async stop() {
        const profile = (await inspector.stopProfiling()) as CpuProfile;
        return { bytes: Buffer.from(JSON.stringify(profile)), extension: 'cpuprofile', summary: summarizeProfile(profile), stacks: cpuProfileFlameStacks(profile) };
      },
    };
  }
  // Settled here so that a failure before `stop` is not an unhandled rejection.
  const fetched = fetchCpuProfile(target.server, durationS).then(
    (bytes) => ({ bytes }),
    (error: unknown) => ({ error }),
  );
  return {
    ready: Promise.resolve(),
    async stop() {
      const got = await fetched;
      if ('error' in got) throw got.error;
      const profile = decodePprof(got.bytes);
      const kapi = target.name === 'kapi';
      return { bytes: got.bytes, extension: 'pprof.gz', summary: kapi ? summarizeKapiPprof(profile) : summarizeGoProfile(profile), stacks: kapi ? kapiPprofFlameStacks(profile) : goFlameStacks(profile), seconds: profile.durationNanos / 1e9 };
    },
  };
}

export async function runProfile(options: ProfileOptions, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<ProfileResult> {
  const binary = await clientGoBinary();
  const targets: Target[] = [];
  const result: ProfileResult = { options, runs: [], profiles: [], loadAverages: [] };
  try {
    for (const name of options.servers) targets.push(await startTarget(name, options));
    const base = [`--concurrency=${options.concurrency}`, `--duration=${options.durationS}s`, '--objects=1000', `--clients=${options.clients}`];
    const measured = async (target: Target, v: ProfileVariant, round: number, profile: boolean): Promise<void> => {
      const warmup = target.first ? options.firstWarmupS : options.warmupS;
      target.first = false;
      let monitor: ReturnType<typeof monitorProcess> | undefined;
      let cpuSeconds = Number.NaN;
      let profiler: ReturnType<typeof startProfiler> | undefined;
      let profiled: Awaited<ReturnType<ReturnType<typeof startProfiler>['stop']>> | undefined;
      const line = await runClient(binary, target.server, v, [...base, `--warmup=${warmup}s`], {
        async onMeasuring() {
          monitor = monitorProcess(target.pid);
          if (profile) {
            profiler = startProfiler(target, options.durationS);
            await profiler.ready;
          }
        },
        async onResult() {
          if (profiler) profiled = await profiler.stop();
          cpuSeconds = monitor?.finish()?.cpuSeconds ?? Number.NaN;
        },
      });
      result.loadAverages.push(loadavg()[0]!);
      const num = (k: string) => (typeof line[k] === 'number' ? line[k] : Number.NaN);
      const ops = num('ops') + num('errors');
      const run: ProfileRun = { server: target.name, variant: variantName(v), round, ops: num('ops'), opsPerSecond: num('opsPerSecond'), p50: num('p50'), p99: num('p99'), errors: num('errors'), serverCpuMsPerOp: (cpuSeconds * 1000) / ops };
      if (profiled) {
        mkdirSync(options.outDir, { recursive: true });
        const stem = join(options.outDir, `${target.name}-${variantName(v).replace(/\//g, '-')}`);
        const file = `${stem}.${profiled.extension}`;
        writeFileSync(file, profiled.bytes);
        const flameGraph = `${stem}.svg`;
        writeFileSync(flameGraph, renderFlameGraph(profiled.stacks, { title: `${target.name} ${run.variant}: CPU while serving ${options.concurrency} client-go goroutines for ${options.durationS} s`, unit: 'ms' }));
        // Go's profile covers whole seconds from the measuring line; count the ops of that span.
        const profiledOps = profiled.seconds === undefined ? ops : num('opsPerSecond') * profiled.seconds;
        result.profiles.push({ server: target.name, variant: run.variant, file, flameGraph, ops: profiledOps, summary: profiled.summary });
        log(`profile ${target.name} ${run.variant}: ${run.ops} ops (${run.serverCpuMsPerOp.toFixed(3)} ms/op with the profiler on) → ${file}, ${flameGraph}`);
      } else {
        result.runs.push(run);
        log(`${target.name} ${run.variant} round ${round}: ${run.opsPerSecond.toFixed(0)}/s p50 ${run.p50.toFixed(1)} ms p99 ${run.p99.toFixed(1)} ms, errors ${run.errors}, server ${run.serverCpuMsPerOp.toFixed(3)} ms/op`);
      }
    };
    for (let round = 1; round <= options.rounds; round++) for (const v of options.variants) for (const t of targets) await measured(t, v, round, false);
    if (options.cpuProfile) for (const v of options.variants) for (const t of targets) await measured(t, v, 0, true);
  } finally {
    for (const t of targets) await stopTarget(t);
  }
  return result;
}
