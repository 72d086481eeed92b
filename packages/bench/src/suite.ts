import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { startKapiServer, type KapiServer } from '@kapi/apiserver/testing';
import { kapiApiserverBinary, startBareServer, startExtraServer, type BenchContext } from './context.js';
import { runCrudScenario, type StepResult } from './crud-scenario.js';
import { runFanoutScenario, type FanoutScenarioResult } from './fanout-scenario.js';
import { runListScenario, type ListScenarioResult } from './list-scenario.js';
import { runMemoryScenario, type MemoryScenarioResult } from './memory-scenario.js';
import { runRepresentationScenario, type RepresentationScenarioResult } from './representation-scenario.js';
import { runRestartScenario, type RestartScenarioResult } from './restart-scenario.js';
import { runMixedScenario, type MixedScenarioResult } from './mixed-scenario.js';
import { runLargeScenario, type LargeScenarioResult } from './large-scenario.js';
import { runReplicaScenario, type ReplicaScenarioResult } from './replica-scenario.js';
import { runPodsScenario, type PodsScenarioResult } from './pods-scenario.js';
import { runAdmissionScenario, type AdmissionScenarioResult } from './admission-scenario.js';
import { clientGoBinary, runClientGoScenario, type ClientGoScenarioResult } from './client-go-scenario.js';
import { etcdGoBinary } from './etcd-go-baseline.js';
import { loadKubeconfig, registerAuth, useHttp2 } from './target.js';
import { serverControlScenarios } from './options.js';
import { affinity, pin, pinningUnavailable } from './pinning.js';
import { childPids } from './process-stats.js';
import type { SuiteOptions } from './options.js';
import type { ServerName } from './kube-server.js';

export type { StepResult, Target, OperationName } from './crud-scenario.js';

export interface SuiteResult {
  date: string;
  host: { cpus: number; cpuModel: string; memoryBytes: number; node: string; etcdVersion: string };
  options: Omit<SuiteOptions, 'outDir'>;
  pinning: { enabled: boolean; reason: string; server?: string; etcd?: string; loadGenerator?: string };
  target: { url: string; startedBySuite: boolean; baselineEtcd: string; baselineEtcdIsServerEtcd: boolean; kubeconfig?: string; context?: string; server?: ServerName };
  /** S1/S2 and the raw-etcd baselines. */
  steps: StepResult[];
  /** S3: lists of N ConfigMaps, cache vs etcd vs bare node:http (the first size). */
  lists?: ListScenarioResult;
  /** S3 at the further sizes (e.g. 50k). */
  moreLists?: ListScenarioResult[];
  /** S6: restart storm. */
  restart?: RestartScenarioResult;
  /** S7: mixed writers and watchers. */
  mixed?: MixedScenarioResult;
  /** S8: 1 MiB objects. */
  large?: LargeScenarioResult;
  /** S9: two replicas. */
  replicas?: ReplicaScenarioResult;
  /** S4: watch fan-out, kapi vs a bare Node fan-out. */
  fanout?: FanoutScenarioResult;
  /** S10: pods as kubelets use them (creates, watch by node, LIST by spec.nodeName). */
  pods?: PodsScenarioResult;
  /** S5: memory per cached object. */
  memory?: MemoryScenarioResult;
  /** LIST as JSON vs protobuf vs Table, and watch encode cost per event as JSON vs protobuf. */
  representations?: RepresentationScenarioResult;
  /** Custom resource creates without vs with a CRD validation rule and a ValidatingAdmissionPolicy. */
  admission?: AdmissionScenarioResult;
  /** Creates, GETs, LISTs and watch delivery by the client-go program (protobuf). */
  clientGo?: ClientGoScenarioResult;
  /** Scenarios or parts not run, with the reason. */
  skipped?: string[];
  totalErrors: number;
  /** Wall time of the whole suite. */
  elapsedSeconds?: number;
  /** Wall time of each scenario. */
  scenarioSeconds?: Record<string, number>;
}

const serverCpu = '0';
const loadGeneratorCpu = '1';

function etcdVersion(): string {
  try {
    return execFileSync('etcd', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  } catch {
    return 'unknown';
  }
}

function log(message: string): void {
  process.stderr.write(`[kapi-bench] ${message}\n`);
}

/** Every error of a result: failed operations, failed steps, missing deliveries, terminated watchers. */
export function countErrors(
  result: Pick<SuiteResult, 'steps' | 'lists' | 'fanout' | 'memory' | 'representations'> & Partial<Pick<SuiteResult, 'moreLists' | 'restart' | 'mixed' | 'large' | 'replicas' | 'pods' | 'admission' | 'clientGo'>>,
): number {
  let n = result.steps.reduce((sum, s) => sum + s.errors, 0);
  for (const lists of [result.lists, ...(result.moreLists ?? [])]) n += (lists?.steps ?? []).reduce((sum, s) => sum + s.errors, 0) + (lists?.loadErrors ?? 0);
  n += result.restart?.errors.length ?? 0;
  if (result.mixed) n += result.mixed.errors.length + result.mixed.writeErrors + result.mixed.missingDeliveries + result.mixed.watchersDropped;
  if (result.large) n += result.large.errors.length + result.large.steps.reduce((sum, s) => sum + s.errors, 0);
  if (result.replicas) {
    n += result.replicas.errors.length + result.replicas.reads.reduce((sum, r) => sum + r.errors + r.stale, 0);
    n += result.replicas.watch.reduce((sum, w) => sum + w.step.writeErrors + w.step.missingDeliveries + w.step.watchersTerminated, 0);
  }
  n += (result.fanout?.errors.length ?? 0) + (result.fanout?.steps ?? []).reduce((sum, s) => sum + s.writeErrors + s.missingDeliveries + s.watchersTerminated, 0);
  n += result.memory?.errors.length ?? 0;
  if (result.pods) {
    const w = result.pods.watch;
    n += result.pods.errors.length + result.pods.creates.errors + result.pods.lists.errors + (w === undefined ? 0 : w.writeErrors + w.missingDeliveries + w.watchersTerminated);
  }
  if (result.admission) n += result.admission.errors.length + result.admission.steps.reduce((sum, s) => sum + s.errors, 0);
  if (result.clientGo) n += result.clientGo.errors.length + result.clientGo.steps.reduce((sum, s) => sum + (Number.isFinite(s.errors) ? s.errors : 1), 0);
  n += (result.representations?.lists ?? []).reduce((sum, s) => sum + s.errors, 0) + (result.representations?.watch ?? []).reduce((sum, w) => sum + w.writeErrors + w.errorSamples.length, 0);
  return n;
}

/** A server started by the caller (a side-by-side run): HTTPS with a registered token, on its own etcd. */
export interface GivenTarget {
  server: ServerName;
  url: string;
  pid: number | undefined;
  etcdEndpoints: string[];
  etcdPid: number | undefined;
}

/**
 * Runs the benchmark suite: starts etcd and a kapi-apiserver (plain HTTP) unless `url` is
 * given, pins them to CPU 0 and this process to CPU 1 when taskset and two CPUs exist, then
 * runs the selected scenarios in the order list → memory → fan-out → crud (crud creates many
 * objects, which would distort the list and memory figures). Stops what it started. Errors
 * of single operations are counted in the result; failure to start the target throws.
 */
export async function runSuite(options: SuiteOptions, given?: GivenTarget): Promise<SuiteResult> {
  const date = new Date().toISOString();
  const started = performance.now();
  const pinning: SuiteResult['pinning'] = { enabled: false, reason: '' };
  const unavailable = options.pin ? pinningUnavailable() : undefined;
  const wantPin = options.pin && unavailable === undefined;
  pinning.reason = !options.pin ? 'disabled by --no-pin' : unavailable ?? 'taskset';
  // Children inherit affinity: pin ourselves to the server CPU while spawning, then move.
  if (wantPin) pin(process.pid, serverCpu);

  let etcd: TestEtcd | undefined;
  let server: KapiServer | undefined;
  const extras: { stop(): Promise<void> }[] = [];
  try {
    let url = options.url;
    let kapiPid = options.serverPid;
    let etcdEndpoints = options.etcdServers;
    const skipped: string[] = [];
    let scenarios = options.scenarios;
    if (options.kubeconfig !== undefined) {
      const target = loadKubeconfig(options.kubeconfig, options.context);
      registerAuth(target.server, target.auth);
      url = target.server;
      const dropped = scenarios.filter((s) => serverControlScenarios.includes(s));
      if (dropped.length > 0) skipped.push(`${dropped.join(', ')}: need control of the server (start, kill, restart, fresh servers on its etcd); not possible through a kubeconfig`);
      scenarios = scenarios.filter((s) => !serverControlScenarios.includes(s));
      log(`target ${target.server} (kubeconfig ${options.kubeconfig}, context ${target.context})`);
    }
    if (given !== undefined) {
      url = given.url;
      kapiPid = given.pid;
      etcdEndpoints = given.etcdEndpoints;
      if (given.server !== 'kapi') {
        const dropped = scenarios.filter((s) => serverControlScenarios.includes(s));
        if (dropped.length > 0) skipped.push(`${dropped.join(', ')} on ${given.server}: kapi only (they start, kill or restart kapi servers on the target's etcd)`);
        scenarios = scenarios.filter((s) => !serverControlScenarios.includes(s));
      }
    }
    if (etcdEndpoints === undefined) {
      etcd = await startEtcd({ extraArgs: ['--quota-backend-bytes=8589934592', '--snapshot-count=100000'] });
      etcdEndpoints = etcd.endpoints;
    }
    if (url === undefined) {
      server = await startKapiServer({ binary: kapiApiserverBinary(), etcdServers: etcdEndpoints, insecure: true, startTimeoutMs: 60_000, ...(options.workers !== 1 ? { extraArgs: [`--workers=${options.workers}`] } : {}) });
      url = server.insecureUrl!;
      kapiPid = server.pid();
    }
    if (options.http2) {
      if (server !== undefined) url = server.url;
      if (!url.startsWith('https:')) throw new Error(`--http2 needs an https target, not ${url}`);
      useHttp2(url);
      log(`requests over HTTP/2 to ${url}`);
    }
    const etcdPid = given !== undefined ? given.etcdPid : etcd ? childPids(process.pid, 'etcd')[0] : undefined;
    if (wantPin) {
      pinning.enabled = pin(process.pid, loadGeneratorCpu);
      pinning.loadGenerator = affinity(process.pid);
      if (kapiPid !== undefined) pinning.server = affinity(kapiPid);
      if (etcdPid !== undefined) pinning.etcd = affinity(etcdPid);
    }
    log(`target ${url}; etcd ${etcdEndpoints.join(',')}; pinning ${pinning.enabled ? JSON.stringify(pinning) : pinning.reason}`);

    const cpusForServers = pinning.enabled ? serverCpu : undefined;
    // Extra servers need the target's etcd: the one the suite started, or the given one with --url.
    // A given kube-apiserver's etcd is not one to start kapi servers on (list from etcd, memory...).
    const external = options.url !== undefined || options.kubeconfig !== undefined || (given !== undefined && given.server !== 'kapi');
    const serverEtcd = !external || options.etcdServers !== undefined ? etcdEndpoints : undefined;
    const ctx: BenchContext = {
      url,
      secureUrl: server !== undefined ? server.url : url.startsWith('https:') ? url : undefined,
      kapiPid,
      serverName: given?.server ?? 'kapi',
      etcdPid,
      serverEtcd,
      serverCpus: cpusForServers,
      quick: options.quick,
      warmupMs: options.warmupMs,
      log,
      async startServer(o) {
        const s = await startExtraServer(serverEtcd!, cpusForServers, o);
        extras.push(s);
        return s;
      },
      async startBare(mode, file) {
        const b = await startBareServer(mode, file, cpusForServers);
        extras.push(b);
        return b;
      },
    };

    const result: SuiteResult = {
      date,
      host: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryBytes: totalmem(), node: process.version, etcdVersion: etcdVersion() },
      options: (({ outDir: _outDir, ...rest }) => rest)(options),
      pinning,
      target: {
        url,
        startedBySuite: server !== undefined || given !== undefined,
        baselineEtcd: etcdEndpoints.join(','),
        baselineEtcdIsServerEtcd: !external || options.etcdServers !== undefined || given !== undefined,
        ...(given !== undefined ? { server: given.server } : {}),
        ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig, ...(options.context !== undefined ? { context: options.context } : {}) } : {}),
      },
      steps: [],
      skipped,
      totalErrors: 0,
    };
    const run = (name: string) => scenarios.includes(name as never);
    const timed = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await f();
      } finally {
        (result.scenarioSeconds ??= {})[name] = (performance.now() - t0) / 1000;
        log(`${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
    };
    const needsEtcd = (label: string): boolean => {
      if (serverEtcd !== undefined) return true;
      result.skipped!.push(`${label}: needs the server's etcd (--etcd-servers) to start servers on it`);
      return false;
    };
    let loadedListObjects = 0;
    if (run('list')) {
      for (const size of options.listSizes) {
        const lists = await timed(`list ${size}`, () =>
          runListScenario(ctx, { objects: size, alreadyLoaded: loadedListObjects, lite: loadedListObjects > 0 || options.quick, concurrency: options.listConcurrency, durationMs: options.scenarioDurationMs }),
        );
        result.skipped!.push(...lists.skipped);
        if (result.lists === undefined) result.lists = lists;
        else (result.moreLists ??= []).push(lists);
        loadedListObjects = size;
      }
    }
    if (run('memory')) {
      // Fresh servers load every ConfigMap already in etcd: sizes below what the list scenario loaded cannot be measured after it.
      const sizes = options.memoryObjects.filter((n) => n >= loadedListObjects);
      const measurable = sizes.length > 0 ? sizes : [loadedListObjects];
      const dropped = options.memoryObjects.filter((n) => !measurable.includes(n));
      if (dropped.length > 0) result.skipped!.push(`memory at ${dropped.join(', ')} ConfigMaps: the list scenario already loaded ${loadedListObjects} (run --scenarios memory alone for smaller sizes)`);
      result.memory = await timed('memory', () => runMemoryScenario(ctx, { objects: measurable, alreadyLoaded: loadedListObjects }));
      result.skipped!.push(...result.memory.skipped);
    }
    if (run('restart') && needsEtcd('S6 restart')) {
      result.restart = await timed('restart', () =>
        runRestartScenario(ctx, { objects: options.restartObjects, informers: options.restartInformers, namespaces: Math.min(100, options.restartInformers) }),
      );
    }
    if (run('replicas') && needsEtcd('S9 replicas')) {
      result.replicas = await timed('replicas', () =>
        runReplicaScenario(ctx, { watchers: 10, rate: 100, durationMs: options.scenarioDurationMs, reads: options.replicaReads }),
      );
    }
    if (run('representations')) {
      result.representations = await timed('representations', () => runRepresentationScenario(ctx, {
        objects: options.listObjects, alreadyLoaded: loadedListObjects >= options.listObjects, concurrency: options.listConcurrency,
        durationMs: options.scenarioDurationMs, watchers: options.watchers, watchRate: Math.min(...options.fanoutRates),
      }));
    }
    if (run('fanout')) {
      result.fanout = await timed('fanout', () =>
        runFanoutScenario(ctx, { watchers: options.watchers, rates: options.fanoutRates, durationMs: options.scenarioDurationMs, selectorRate: options.selectorRate, variants: options.fanoutVariants }),
      );
    }
    if (run('pods')) {
      result.pods = await timed('pods', () =>
        runPodsScenario(ctx, { nodes: options.watchers, rate: options.selectorRate, durationMs: options.scenarioDurationMs, concurrency: 16 }),
      );
    }
    if (run('mixed')) {
      result.mixed = await timed('mixed', () =>
        runMixedScenario(ctx, { writers: 10, rate: 100, watchers: 10, durationMs: options.mixedDurationMs, baselineMs: Math.min(options.mixedDurationMs / 4, 20_000) }),
      );
    }
    if (run('admission')) {
      result.admission = await timed('admission', () => runAdmissionScenario(ctx, { concurrency: options.admissionConcurrency, durationMs: options.durationMs, rounds: options.admissionRounds }));
    }
    if (run('client-go')) {
      let binary: string | undefined;
      try {
        binary = await clientGoBinary();
      } catch (err) {
        result.skipped!.push(`client-go: ${(err as Error).message.split('\n')[0]}`);
      }
      if (binary !== undefined) {
        const b = binary;
        result.clientGo = await timed('client-go', () => runClientGoScenario(ctx, {
          binary: b, concurrency: options.concurrency, durationMs: options.durationMs, warmupMs: options.warmupMs,
          listObjects: options.listObjects, watchers: options.watchers, rate: options.selectorRate,
        }));
      }
    }
    if (run('crud')) {
      let etcdGo: { binary: string; clients: number } | undefined;
      if (options.rawEtcdGoClients > 0) {
        try {
          etcdGo = { binary: await etcdGoBinary(), clients: options.rawEtcdGoClients };
        } catch (err) {
          result.skipped!.push(`crud, raw etcd from Go: ${(err as Error).message.split('\n')[0]}`);
        }
      }
      result.steps = await timed('crud', () => runCrudScenario(ctx, {
        concurrency: options.concurrency, objectSizes: options.objectSizes, durationMs: options.durationMs, warmupMs: options.warmupMs, etcdEndpoints, ...(etcdGo ? { etcdGo } : {}),
      }));
    }
    // Last: 300 MB lists grow the server's heap, which would distort the figures above.
    if (run('large')) {
      result.large = await timed('large', () => runLargeScenario(ctx, { objects: options.largeObjects, concurrency: options.largeConcurrency, rounds: 2 }));
    }
    result.totalErrors = countErrors(result);
    result.elapsedSeconds = (performance.now() - started) / 1000;
    return result;
  } finally {
    for (const e of extras) await e.stop();
    await server?.stop();
    await etcd?.stop();
  }
}
