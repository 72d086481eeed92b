/**
 * The raw-etcd create baseline from Go: packages/bench/go/cmd/kapi-bench-etcd sends the
 * transaction a kapi create sends (if mod_revision(key) == 0 then put, else get) with
 * go.etcd.io/etcd/client/v3, the client kube-apiserver links, so that "kapi creates/s ÷ raw etcd
 * create-txns/s" is measured against the fastest etcd client rather than a Node one.
 */
import { buildClientGo, runMeasured } from './client-go-scenario.js';
import { summarize, type LatencySummary } from './stats.js';
import { monitorProcess, type ProcessUsage } from './process-stats.js';

export interface EtcdGoOptions {
  endpoints: readonly string[];
  mode: 'create-txn' | 'txn-put' | 'put';
  /** Goroutines. */
  concurrency: number;
  /** Clients (gRPC connections) the goroutines share. */
  clients: number;
  durationMs: number;
  warmupMs: number;
  valueBytes: number;
  /** Key prefix; the program adds a run id and "/". */
  prefix?: string;
}

/** The program's result line, checked. */
export interface EtcdGoResult {
  mode: EtcdGoOptions['mode'];
  concurrency: number;
  clients: number;
  valueBytes: number;
  ops: number;
  errors: number;
  errorSamples: string[];
  seconds: number;
  opsPerSecond: number;
  /** Latency of successful transactions, ms (NaN without any). */
  latency: LatencySummary;
  /** CPU the program used while measuring. */
  cpuSeconds: number;
  /** Where its keys are, for the caller to delete. */
  keyPrefix: string;
}

/** The command line for `options`. */
export function etcdGoArgs(options: EtcdGoOptions): string[] {
  return [
    `--endpoints=${options.endpoints.join(',')}`,
    `--mode=${options.mode}`,
    `--concurrency=${options.concurrency}`,
    `--clients=${options.clients}`,
    `--duration=${Math.round(options.durationMs)}ms`,
    `--warmup=${Math.round(options.warmupMs)}ms`,
    `--size=${options.valueBytes}`,
    ...(options.prefix !== undefined ? [`--prefix=${options.prefix}`] : []),
  ];
}

/**
 * Checks and converts a `{"event":"result",...}` line. Throws when a field is missing or of the
 * wrong type, so that a changed program never reports a silent 0 or NaN.
 */
export function parseEtcdGoResult(line: Record<string, unknown>): EtcdGoResult {
  const num = (k: string): number => {
    const v = line[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`kapi-bench-etcd result: ${k} is ${JSON.stringify(v)}, not a number`);
    return v;
  };
  const mode = line['mode'];
  if (mode !== 'create-txn' && mode !== 'txn-put' && mode !== 'put') throw new Error(`kapi-bench-etcd result: unknown mode ${JSON.stringify(mode)}`);
  const samples = line['errorSamples'];
  if (!Array.isArray(samples) || !samples.every((s) => typeof s === 'string')) throw new Error('kapi-bench-etcd result: errorSamples is not a list of strings');
  const keyPrefix = line['keyPrefix'];
  if (typeof keyPrefix !== 'string' || keyPrefix === '') throw new Error('kapi-bench-etcd result: keyPrefix missing');
  const ops = num('ops');
  // The program writes -1 for quantiles without samples.
  const ms = (k: string) => (ops > 0 ? num(k) : Number.NaN);
  return {
    mode,
    concurrency: num('concurrency'),
    clients: num('clients'),
    valueBytes: num('valueBytes'),
    ops,
    errors: num('errors'),
    errorSamples: samples as string[],
    seconds: num('seconds'),
    opsPerSecond: num('opsPerSecond'),
    latency: { ...summarize([]), count: ops, p50: ms('p50'), p90: ms('p90'), p99: ms('p99'), max: ms('max'), mean: ms('mean') },
    cpuSeconds: num('cpuSeconds'),
    keyPrefix,
  };
}

let built: Promise<string> | undefined;

/** Builds packages/bench/go/cmd/kapi-bench-etcd once per process (cached in packages/bench/.cache/bin). */
export function etcdGoBinary(): Promise<string> {
  built ??= buildClientGo(undefined, 'kapi-bench-etcd');
  return built;
}

/**
 * Runs the program once against `options.endpoints`; samples `etcdPid` (when given) between its
 * "measuring" and "result" lines. Rejects when it exits without a result line (etcd unreachable,
 * bad flags) or runs past its time by a minute. Failed transactions are counted, never thrown.
 */
export async function runEtcdGo(binary: string, options: EtcdGoOptions, etcdPid?: number): Promise<{ result: EtcdGoResult; etcd: ProcessUsage | undefined }> {
  let monitor: ReturnType<typeof monitorProcess> | undefined;
  let etcd: ProcessUsage | undefined;
  const line = await runMeasured(binary, etcdGoArgs(options), `kapi-bench-etcd --mode=${options.mode}`, {
    onMeasuring: () => {
      if (etcdPid !== undefined) monitor = monitorProcess(etcdPid);
    },
    onResult: () => {
      etcd = monitor?.finish();
    },
  }, { timeoutMs: options.warmupMs + options.durationMs + 60_000 });
  return { result: parseEtcdGoResult(line), etcd };
}
