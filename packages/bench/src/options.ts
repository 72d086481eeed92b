export const scenarioNames = ['crud', 'list', 'fanout', 'memory', 'representations'] as const;
export type ScenarioName = (typeof scenarioNames)[number];

/** Options of `kapi-bench suite`. Immutable once parsed. */
export interface SuiteOptions {
  readonly quick: boolean;
  /** Which scenarios run (default all): crud = S1/S2 with raw-etcd baselines, list = S3, fanout = S4, memory = S5, representations = S6. */
  readonly scenarios: readonly ScenarioName[];
  /** Concurrent keep-alive clients, one measured step per value. */
  readonly concurrency: readonly number[];
  /** Measured time per step, ms. */
  readonly durationMs: number;
  /** Warm-up before the first step of each kind, ms (later steps of that kind warm up ≤ 5 s). */
  readonly warmupMs: number;
  /** Target an already running server instead of starting one. */
  readonly url: string | undefined;
  /** With `url`: the server's pid, for CPU and RSS (optional). */
  readonly serverPid: number | undefined;
  /** etcd for the raw baselines (default: the one the suite starts). */
  readonly etcdServers: string[] | undefined;
  /** Pin processes with taskset when possible (default true). */
  readonly pin: boolean;
  /** Directory for `<date>.json` and `<date>.md`. */
  readonly outDir: string;
  /** ConfigMaps (1 KiB of data) listed by the list scenario. */
  readonly listObjects: number;
  /** Concurrent lists per list step. */
  readonly listConcurrency: readonly number[];
  /** Measured time per list step and per fan-out rate, ms. */
  readonly scenarioDurationMs: number;
  /** Watch connections of the fan-out scenario. */
  readonly watchers: number;
  /** Writes per second of the fan-out steps. */
  readonly fanoutRates: readonly number[];
  /** Cache sizes (ConfigMaps) at which memory per object is measured. */
  readonly memoryObjects: readonly number[];
}

export const usage = `usage: kapi-bench suite [options]

  --quick                  short run (one level of everything, 4–5 s steps; under 2 minutes)
  --scenarios LIST         any of crud,list,fanout,memory,representations (default all)
  --concurrency 1,16,64    crud: concurrent keep-alive clients per step (default 1,16,64; quick: 16)
  --duration SECONDS       crud: measured time per step (default 20; quick: 4)
  --warmup SECONDS         warm-up before the first step of each kind (default 10; quick: 1)
  --list-objects N         list: ConfigMaps of 1 KiB to list (default 10000)
  --list-concurrency 1,10  list: concurrent lists per step (default 1,10; quick: 1)
  --scenario-duration SEC  list and fanout: measured time per step (default 15; quick: 5)
  --watchers N             fanout: watch connections (default 1000)
  --fanout-rates 10,100    fanout: writes per second, one step each (default 10,100,300; quick: 100)
  --memory-objects 10000   memory: cache sizes to measure at (default 10000,50000; quick: 10000)
  --url URL                target a running kapi server (http or https) instead of starting one
  --server-pid PID         with --url: the server's pid, for CPU-seconds per op and RSS
  --etcd-servers URLS      etcd for the raw baselines (default: start one)
  --no-pin                 do not pin processes to CPUs with taskset
  --out DIR                where to write <date>.json and <date>.md (default bench/results)
`;

function positiveNumber(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number, got ${value ?? 'nothing'}`);
  return n;
}

/** Parses the arguments after `suite`. Throws an Error with a one-line message on bad input. */
export function parseSuiteOptions(args: readonly string[], defaultOutDir: string): SuiteOptions {
  const quick = args.includes('--quick');
  let concurrency: number[] = quick ? [16] : [1, 16, 64];
  let durationMs = quick ? 4_000 : 20_000;
  let warmupMs = quick ? 1_000 : 10_000;
  let scenarios: ScenarioName[] = [...scenarioNames];
  let listObjects = 10_000;
  let listConcurrency: number[] = quick ? [1] : [1, 10];
  let scenarioDurationMs = quick ? 5_000 : 15_000;
  let watchers = 1000;
  let fanoutRates: number[] = quick ? [100] : [10, 100, 300];
  let memoryObjects: number[] = quick ? [10_000] : [10_000, 50_000];
  const list = (flag: string, v: string | undefined) => (v ?? '').split(',').map((x) => Math.floor(positiveNumber(flag, x)));
  let url: string | undefined;
  let serverPid: number | undefined;
  let etcdServers: string[] | undefined;
  let pin = true;
  let outDir = defaultOutDir;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? args[++i];
    switch (flag) {
      case '--quick':
        break;
      case '--concurrency':
        concurrency = (value() ?? '').split(',').map((v) => Math.floor(positiveNumber('--concurrency', v)));
        break;
      case '--duration':
        durationMs = positiveNumber('--duration', value()) * 1000;
        break;
      case '--warmup':
        warmupMs = Number(value() ?? 'x') * 1000;
        if (!(warmupMs >= 0)) throw new Error('--warmup needs a number of seconds ≥ 0');
        break;
      case '--url':
        url = value();
        if (url === undefined || !/^https?:\/\//.test(url)) throw new Error(`--url needs an http(s) URL, got ${url ?? 'nothing'}`);
        url = url.replace(/\/+$/, '');
        break;
      case '--server-pid':
        serverPid = Math.floor(positiveNumber('--server-pid', value()));
        break;
      case '--etcd-servers':
        etcdServers = (value() ?? '').split(',').filter((s) => s !== '');
        if (etcdServers.length === 0) throw new Error('--etcd-servers needs a comma-separated list of URLs');
        break;
      case '--scenarios': {
        const names = (value() ?? '').split(',').filter((n) => n !== '');
        const unknown = names.filter((n) => !(scenarioNames as readonly string[]).includes(n));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--scenarios takes ${scenarioNames.join(',')}; got ${unknown.join(',') || 'nothing'}`);
        scenarios = names as ScenarioName[];
        break;
      }
      case '--list-objects':
        listObjects = Math.floor(positiveNumber('--list-objects', value()));
        break;
      case '--list-concurrency':
        listConcurrency = list('--list-concurrency', value());
        break;
      case '--scenario-duration':
        scenarioDurationMs = positiveNumber('--scenario-duration', value()) * 1000;
        break;
      case '--watchers':
        watchers = Math.floor(positiveNumber('--watchers', value()));
        break;
      case '--fanout-rates':
        fanoutRates = list('--fanout-rates', value());
        break;
      case '--memory-objects':
        memoryObjects = list('--memory-objects', value()).sort((a, b) => a - b);
        break;
      case '--no-pin':
        pin = false;
        break;
      case '--out':
        outDir = value() ?? '';
        if (outDir === '') throw new Error('--out needs a directory');
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  return Object.freeze({
    quick,
    scenarios,
    concurrency,
    durationMs,
    warmupMs,
    url,
    serverPid,
    etcdServers,
    pin,
    outDir,
    listObjects,
    listConcurrency,
    scenarioDurationMs,
    watchers,
    fanoutRates,
    memoryObjects,
  });
}
