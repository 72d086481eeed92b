import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { startKapiServer, type KapiServer } from '@kapi/e2e';
import { EtcdBaseline } from './etcd-client.js';
import { KapiClient, oneKibData } from './kapi-client.js';
import { runClosedLoop, type LoadResult, type Operation } from './load.js';
import { affinity, canPin, pin } from './pinning.js';
import { childPids, monitorProcess, type ProcessUsage } from './process-stats.js';
import type { SuiteOptions } from './options.js';

export type Target = 'kapi' | 'etcd';
export type OperationName = 'create' | 'get' | 'put' | 'create-txn';

export interface StepResult extends LoadResult {
  target: Target;
  operation: OperationName;
  /** CPU and RSS of the server processes during the measured part of the step. */
  usage: { kapi?: ProcessUsage; etcd?: ProcessUsage };
  /** CPU seconds this load generator used during the measured part (to spot a client-bound step). */
  loadGeneratorCpuSeconds: number;
}

export interface SuiteResult {
  date: string;
  host: { cpus: number; cpuModel: string; memoryBytes: number; node: string; etcdVersion: string };
  options: Omit<SuiteOptions, 'outDir'>;
  pinning: { enabled: boolean; reason: string; server?: string; etcd?: string; loadGenerator?: string };
  target: { url: string; startedBySuite: boolean; baselineEtcd: string; baselineEtcdIsServerEtcd: boolean };
  steps: StepResult[];
  totalErrors: number;
}

const namespace = 'kapi-bench';
const getPoolSize = 1000;

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

/**
 * Runs the benchmark suite: starts etcd and a kapi-apiserver (plain HTTP) unless `url` is
 * given, pins them to CPU 0 and this process to CPU 1 when taskset and two CPUs exist, then
 * for every concurrency level measures kapi ConfigMap creates and GETs and the raw-etcd
 * create-txn, put and get baselines on the same etcd. Stops what it started. Errors of single
 * operations are counted in the result; failure to start anything throws.
 */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const date = new Date().toISOString();
  const pinning: SuiteResult['pinning'] = { enabled: false, reason: '' };
  const wantPin = options.pin && canPin();
  pinning.reason = !options.pin ? 'disabled by --no-pin' : wantPin ? 'taskset' : 'taskset missing or fewer than 2 CPUs';
  // Children inherit affinity: pin ourselves to CPU 0 while spawning, then move to CPU 1.
  if (wantPin) pin(process.pid, '0');

  let etcd: TestEtcd | undefined;
  let server: KapiServer | undefined;
  let etcdBaseline: EtcdBaseline | undefined;
  let kapi: KapiClient | undefined;
  try {
    let url = options.url;
    let kapiPid = options.serverPid;
    let etcdEndpoints = options.etcdServers;
    if (etcdEndpoints === undefined) {
      etcd = await startEtcd({ extraArgs: ['--quota-backend-bytes=8589934592', '--snapshot-count=100000'] });
      etcdEndpoints = etcd.endpoints;
    }
    if (url === undefined) {
      server = await startKapiServer({ etcdServers: etcdEndpoints, insecure: true, startTimeoutMs: 60_000 });
      url = server.insecureUrl!;
      kapiPid = server.pid();
    }
    const etcdPid = etcd ? childPids(process.pid, 'etcd')[0] : undefined;
    if (wantPin) {
      pinning.enabled = pin(process.pid, '1');
      pinning.loadGenerator = affinity(process.pid);
      if (kapiPid !== undefined) pinning.server = affinity(kapiPid);
      if (etcdPid !== undefined) pinning.etcd = affinity(etcdPid);
    }
    log(`target ${url}; etcd ${etcdEndpoints.join(',')}; pinning ${pinning.enabled ? JSON.stringify(pinning) : pinning.reason}`);

    const maxConcurrency = Math.max(...options.concurrency);
    kapi = new KapiClient(url, maxConcurrency);
    etcdBaseline = new EtcdBaseline(etcdEndpoints);
    await kapi.ensureNamespace(namespace);
    const getKeys = Array.from({ length: getPoolSize }, (_, i) => `/kapi-bench-raw/get/${i}`);
    const value = JSON.stringify({ data: oneKibData });
    await runClosedLoop((seq) => etcdBaseline!.put(getKeys[seq]!, value), { concurrency: 16, durationMs: 600_000, maxOps: getPoolSize });

    const steps: StepResult[] = [];
    const warmedUp = new Set<string>();
    let seq = 0;
    const measure = async (target: Target, operation: OperationName, concurrency: number, op: Operation): Promise<StepResult> => {
      const kind = `${target}/${operation}`;
      const warmupMs = warmedUp.has(kind) ? Math.min(options.warmupMs, 5000) : options.warmupMs;
      warmedUp.add(kind);
      if (warmupMs > 0) seq = (await runClosedLoop(op, { concurrency, durationMs: warmupMs, firstSeq: seq })).nextSeq;
      const kapiMonitor = kapiPid !== undefined ? monitorProcess(kapiPid) : undefined;
      const etcdMonitor = etcdPid !== undefined ? monitorProcess(etcdPid) : undefined;
      const clientCpuBefore = process.cpuUsage();
      const result = await runClosedLoop(op, { concurrency, durationMs: options.durationMs, firstSeq: seq });
      const clientCpu = process.cpuUsage(clientCpuBefore);
      seq = result.nextSeq;
      const usage: StepResult['usage'] = {};
      const kapiUsage = kapiMonitor?.finish();
      const etcdUsage = etcdMonitor?.finish();
      if (kapiUsage) usage.kapi = kapiUsage;
      if (etcdUsage) usage.etcd = etcdUsage;
      const step = { target, operation, usage, loadGeneratorCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6, ...result };
      log(
        `${kind.padEnd(15)} c=${String(concurrency).padStart(3)}  ${result.opsPerSecond.toFixed(0).padStart(6)}/s  ` +
          `p50 ${result.latency.p50.toFixed(2)} ms  p99 ${result.latency.p99.toFixed(2)} ms  errors ${result.errors}` +
          (result.errorSamples.length > 0 ? `  (${result.errorSamples[0]})` : ''),
      );
      steps.push(step);
      return step;
    };

    for (const concurrency of options.concurrency) {
      const created: string[] = [];
      await measure('kapi', 'create', concurrency, async (n) => {
        const name = `cm-${n}`;
        await kapi!.createConfigMap(namespace, name, oneKibData);
        if (created.length < getPoolSize) created.push(name);
      });
      if (created.length === 0) created.push('missing');
      await measure('kapi', 'get', concurrency, (n) => kapi!.getConfigMap(namespace, created[n % created.length]!));

      const txnPrefix = `/kapi-bench-raw/txn-${concurrency}/`;
      await measure('etcd', 'create-txn', concurrency, (n) => etcdBaseline!.createTxn(`${txnPrefix}${n}`, value));
      await etcdBaseline.deletePrefixAndCompact(txnPrefix);
      const putPrefix = `/kapi-bench-raw/put-${concurrency}/`;
      await measure('etcd', 'put', concurrency, (n) => etcdBaseline!.put(`${putPrefix}${n}`, value));
      await etcdBaseline.deletePrefixAndCompact(putPrefix);
      await measure('etcd', 'get', concurrency, (n) => etcdBaseline!.get(getKeys[n % getKeys.length]!));
    }

    await etcdBaseline.deletePrefixAndCompact('/kapi-bench-raw/');
    const { outDir: _outDir, ...recordedOptions } = options;
    return {
      date,
      host: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryBytes: totalmem(), node: process.version, etcdVersion: etcdVersion() },
      options: recordedOptions,
      pinning,
      target: {
        url,
        startedBySuite: server !== undefined,
        baselineEtcd: etcdEndpoints.join(','),
        baselineEtcdIsServerEtcd: options.url === undefined || options.etcdServers !== undefined,
      },
      steps,
      totalErrors: steps.reduce((sum, s) => sum + s.errors, 0),
    };
  } finally {
    await kapi?.close();
    etcdBaseline?.close();
    await server?.stop();
    await etcd?.stop();
  }
}
