/**
 * S1/S2: ConfigMap creates and GETs (RV unset) against kapi at each concurrency level, with
 * the raw-etcd baselines on the same etcd: create-txn, put and get from this process (Node,
 * etcd3), and create-txn from Go (go.etcd.io/etcd/client/v3, the fastest client at hand).
 */
import type { BenchContext } from './context.js';
import { EtcdBaseline } from './etcd-client.js';
import { runEtcdGo } from './etcd-go-baseline.js';
import { configMapData } from './fixtures.js';
import { KapiClient } from './kapi-client.js';
import { runClosedLoop, type LoadResult, type Operation } from './load.js';
import { monitorProcess, type ProcessUsage } from './process-stats.js';

/** kapi, raw etcd from this process (Node, etcd3), raw etcd from the Go program (clientv3). */
export type Target = 'kapi' | 'etcd' | 'etcd-go';
export type OperationName = 'create' | 'get' | 'put' | 'create-txn';

export interface StepResult extends LoadResult {
  target: Target;
  operation: OperationName;
  /** Bytes of ConfigMap data per object (kapi) or in each stored value (etcd); absent in results before sizes were added (1 KiB). */
  objectBytes: number;
  /** create-txn: bytes of each value written (those of one object kapi stored, when it could be read). */
  valueBytes?: number;
  /** etcd-go: clients (gRPC connections) the goroutines shared. */
  clients?: number;
  /** CPU and RSS of the server processes during the measured part of the step. */
  usage: { kapi?: ProcessUsage; etcd?: ProcessUsage };
  /** CPU seconds this load generator used during the measured part (to spot a client-bound step). */
  loadGeneratorCpuSeconds: number;
}

const namespace = 'kapi-bench';
const getPoolSize = 1000;

export interface CrudScenarioOptions {
  concurrency: readonly number[];
  /** ConfigMap data sizes in bytes; every step runs once per size (default [1024]). */
  objectSizes?: readonly number[];
  durationMs: number;
  warmupMs: number;
  /** etcd for the raw baselines. */
  etcdEndpoints: string[];
  /** The Go baseline (packages/bench/go/cmd/kapi-bench-etcd), when it built; its steps are skipped otherwise. */
  etcdGo?: { binary: string; clients: number };
  /** The server's etcd key prefix, to read the size of what a create stored (default /registry). */
  etcdPrefix?: string;
}

/** Runs every step; single-operation errors are counted in the steps, never thrown. */
export async function runCrudScenario(ctx: BenchContext, options: CrudScenarioOptions): Promise<StepResult[]> {
  const kapi = new KapiClient(ctx.url, Math.max(...options.concurrency));
  const etcdBaseline = new EtcdBaseline(options.etcdEndpoints);
  try {
    await kapi.ensureNamespace(namespace);
    const sizes = options.objectSizes ?? [1024];
    const steps: StepResult[] = [];
    const warmedUp = new Set<string>();
    let seq = 0;
    const measure = async (target: Target, operation: OperationName, objectBytes: number, concurrency: number, op: Operation): Promise<StepResult> => {
      const kind = `${target}/${operation}`;
      // The first step of a kind warms the JIT and etcd; later ones only open their connections and settle.
      const warmupMs = warmedUp.has(kind) ? Math.min(options.warmupMs, 1000) : options.warmupMs;
      warmedUp.add(kind);
      if (warmupMs > 0) seq = (await runClosedLoop(op, { concurrency, durationMs: warmupMs, firstSeq: seq })).nextSeq;
      const kapiMonitor = ctx.kapiPid !== undefined ? monitorProcess(ctx.kapiPid) : undefined;
      const etcdMonitor = ctx.etcdPid !== undefined ? monitorProcess(ctx.etcdPid) : undefined;
      const clientCpuBefore = process.cpuUsage();
      const result = await runClosedLoop(op, { concurrency, durationMs: options.durationMs, firstSeq: seq });
      const clientCpu = process.cpuUsage(clientCpuBefore);
      seq = result.nextSeq;
      const usage: StepResult['usage'] = {};
      const kapiUsage = kapiMonitor?.finish();
      const etcdUsage = etcdMonitor?.finish();
      if (kapiUsage) usage.kapi = kapiUsage;
      if (etcdUsage) usage.etcd = etcdUsage;
      const step = { target, operation, objectBytes, usage, loadGeneratorCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6, ...result };
      ctx.log(
        `${kind.padEnd(15)} ${sizeLabel(objectBytes).padStart(7)} c=${String(concurrency).padStart(3)}  ${result.opsPerSecond.toFixed(0).padStart(6)}/s  ` +
          `p50 ${result.latency.p50.toFixed(2)} ms  p99 ${result.latency.p99.toFixed(2)} ms  errors ${result.errors}` +
          (result.errorSamples.length > 0 ? `  (${result.errorSamples[0]})` : ''),
      );
      steps.push(step);
      return step;
    };

    for (const bytes of sizes) {
      const data = configMapData(bytes);
      // The raw values carry the same data as kapi's objects, so both sides move the same bytes.
      const value = JSON.stringify({ data });
      const getKeys = Array.from({ length: getPoolSize }, (_, i) => `/kapi-bench-raw/get-${bytes}/${i}`);
      await runClosedLoop((n) => etcdBaseline.put(getKeys[n]!, value), { concurrency: 16, durationMs: 600_000, maxOps: getPoolSize });
      // The first size at every concurrency; the others at the one the targets name (64, else the
      // first given), which keeps the full run within its 15 minutes.
      const levels = bytes === sizes[0] ? options.concurrency : [options.concurrency.includes(64) ? 64 : options.concurrency[0]!];
      for (const concurrency of levels) {
        const created: string[] = [];
        await measure('kapi', 'create', bytes, concurrency, async (n) => {
          const name = `cm-${n}`;
          await kapi.createConfigMap(namespace, name, data);
          if (created.length < getPoolSize) created.push(name);
        });
        // The create transactions write what kapi's create stored (protobuf or JSON, with metadata).
        const stored = created.length > 0 ? await etcdBaseline.storedBytes(`${options.etcdPrefix ?? '/registry'}/configmaps/${namespace}/${created[0]}`) : undefined;
        const txnValue = stored !== undefined ? 'x'.repeat(stored) : value;
        if (created.length === 0) created.push('missing');
        await measure('kapi', 'get', bytes, concurrency, (n) => kapi.getConfigMap(namespace, created[n % created.length]!));

        const txnPrefix = `/kapi-bench-raw/txn-${bytes}-${concurrency}/`;
        (await measure('etcd', 'create-txn', bytes, concurrency, (n) => etcdBaseline.createTxn(`${txnPrefix}${n}`, txnValue))).valueBytes = txnValue.length;
        await etcdBaseline.deletePrefixAndCompact(txnPrefix);
        if (options.etcdGo !== undefined) {
          const goStep = await measureGo(ctx, options, options.etcdGo, bytes, txnValue.length, concurrency, warmedUp.has('etcd-go/create-txn') ? Math.min(options.warmupMs, 1000) : options.warmupMs);
          warmedUp.add('etcd-go/create-txn');
          steps.push(goStep);
          await etcdBaseline.deletePrefixAndCompact('/kapi-bench-raw/go/');
        }
        const putPrefix = `/kapi-bench-raw/put-${bytes}-${concurrency}/`;
        await measure('etcd', 'put', bytes, concurrency, (n) => etcdBaseline.put(`${putPrefix}${n}`, value));
        await etcdBaseline.deletePrefixAndCompact(putPrefix);
        await measure('etcd', 'get', bytes, concurrency, (n) => etcdBaseline.get(getKeys[n % getKeys.length]!));
      }
    }
    await etcdBaseline.deletePrefixAndCompact('/kapi-bench-raw/');
    return steps;
  } finally {
    await kapi.close();
    etcdBaseline.close();
  }
}

/**
 * One Go create-txn step: the program runs from this process's CPU (the load generator's when
 * pinned), etcd's CPU is sampled while it measures. A program that fails is a step with one
 * error and its message, never a throw.
 */
async function measureGo(ctx: BenchContext, options: CrudScenarioOptions, go: { binary: string; clients: number }, objectBytes: number, valueBytes: number, concurrency: number, warmupMs: number): Promise<StepResult> {
  let step: StepResult;
  try {
    const { result, etcd } = await runEtcdGo(go.binary, { endpoints: options.etcdEndpoints, mode: 'create-txn', concurrency, clients: go.clients, durationMs: options.durationMs, warmupMs, valueBytes }, ctx.etcdPid);
    step = {
      target: 'etcd-go', operation: 'create-txn', objectBytes, valueBytes, clients: result.clients, concurrency,
      ops: result.ops, errors: result.errors, errorSamples: result.errorSamples, elapsedSeconds: result.seconds, opsPerSecond: result.opsPerSecond,
      latency: result.latency, nextSeq: 0, usage: etcd ? { etcd } : {}, loadGeneratorCpuSeconds: result.cpuSeconds,
    };
  } catch (err) {
    const latency = { count: 0, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN, mean: Number.NaN };
    step = {
      target: 'etcd-go', operation: 'create-txn', objectBytes, valueBytes, clients: go.clients, concurrency,
      ops: 0, errors: 1, errorSamples: [err instanceof Error ? err.message : String(err)], elapsedSeconds: 0, opsPerSecond: Number.NaN,
      latency, nextSeq: 0, usage: {}, loadGeneratorCpuSeconds: 0,
    };
  }
  ctx.log(
    `${'etcd-go/create-txn'.padEnd(15)} ${sizeLabel(objectBytes).padStart(7)} c=${String(concurrency).padStart(3)}  ${step.opsPerSecond.toFixed(0).padStart(6)}/s  ` +
      `p50 ${step.latency.p50.toFixed(2)} ms  p99 ${step.latency.p99.toFixed(2)} ms  errors ${step.errors}  (${valueBytes} B values, ${step.clients} client${step.clients === 1 ? '' : 's'})` +
      (step.errorSamples.length > 0 ? `  (${step.errorSamples[0]})` : ''),
  );
  return step;
}

/** `1 KiB`, `10 KiB`, `1 MiB`, or bytes when not a whole KiB. */
export function sizeLabel(bytes: number): string {
  if (bytes >= 1048576 && bytes % 1048576 === 0) return `${bytes / 1048576} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}
