/**
 * S1/S2: ConfigMap creates and GETs (RV unset) against kapi at each concurrency level, with
 * the raw-etcd baselines (create-txn, put, get over gRPC) on the same etcd.
 */
import type { BenchContext } from './context.js';
import { EtcdBaseline } from './etcd-client.js';
import { KapiClient, oneKibData } from './kapi-client.js';
import { runClosedLoop, type LoadResult, type Operation } from './load.js';
import { monitorProcess, type ProcessUsage } from './process-stats.js';

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

const namespace = 'kapi-bench';
const getPoolSize = 1000;

export interface CrudScenarioOptions {
  concurrency: readonly number[];
  durationMs: number;
  warmupMs: number;
  /** etcd for the raw baselines. */
  etcdEndpoints: string[];
}

/** Runs every step; single-operation errors are counted in the steps, never thrown. */
export async function runCrudScenario(ctx: BenchContext, options: CrudScenarioOptions): Promise<StepResult[]> {
  const kapi = new KapiClient(ctx.url, Math.max(...options.concurrency));
  const etcdBaseline = new EtcdBaseline(options.etcdEndpoints);
  try {
    await kapi.ensureNamespace(namespace);
    const getKeys = Array.from({ length: getPoolSize }, (_, i) => `/kapi-bench-raw/get/${i}`);
    const value = JSON.stringify({ data: oneKibData });
    await runClosedLoop((seq) => etcdBaseline.put(getKeys[seq]!, value), { concurrency: 16, durationMs: 600_000, maxOps: getPoolSize });

    const steps: StepResult[] = [];
    const warmedUp = new Set<string>();
    let seq = 0;
    const measure = async (target: Target, operation: OperationName, concurrency: number, op: Operation): Promise<StepResult> => {
      const kind = `${target}/${operation}`;
      const warmupMs = warmedUp.has(kind) ? Math.min(options.warmupMs, 5000) : options.warmupMs;
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
      const step = { target, operation, usage, loadGeneratorCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6, ...result };
      ctx.log(
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
        await kapi.createConfigMap(namespace, name, oneKibData);
        if (created.length < getPoolSize) created.push(name);
      });
      if (created.length === 0) created.push('missing');
      await measure('kapi', 'get', concurrency, (n) => kapi.getConfigMap(namespace, created[n % created.length]!));

      const txnPrefix = `/kapi-bench-raw/txn-${concurrency}/`;
      await measure('etcd', 'create-txn', concurrency, (n) => etcdBaseline.createTxn(`${txnPrefix}${n}`, value));
      await etcdBaseline.deletePrefixAndCompact(txnPrefix);
      const putPrefix = `/kapi-bench-raw/put-${concurrency}/`;
      await measure('etcd', 'put', concurrency, (n) => etcdBaseline.put(`${putPrefix}${n}`, value));
      await etcdBaseline.deletePrefixAndCompact(putPrefix);
      await measure('etcd', 'get', concurrency, (n) => etcdBaseline.get(getKeys[n % getKeys.length]!));
    }
    await etcdBaseline.deletePrefixAndCompact('/kapi-bench-raw/');
    return steps;
  } finally {
    await kapi.close();
    etcdBaseline.close();
  }
}
