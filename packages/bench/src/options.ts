/** Options of `kapi-bench suite`. Immutable once parsed. */
export interface SuiteOptions {
  readonly quick: boolean;
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
}

export const usage = `usage: kapi-bench suite [options]

  --quick                  short run (one concurrency level, 10 s steps; under 2 minutes)
  --concurrency 1,16,64    concurrent keep-alive clients per step (default 1,16,64; quick: 16)
  --duration SECONDS       measured time per step (default 60; quick: 10)
  --warmup SECONDS         warm-up before the first step of each kind (default 30; quick: 2)
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
  let durationMs = quick ? 10_000 : 60_000;
  let warmupMs = quick ? 2_000 : 30_000;
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
  return Object.freeze({ quick, concurrency, durationMs, warmupMs, url, serverPid, etcdServers, pin, outDir });
}
