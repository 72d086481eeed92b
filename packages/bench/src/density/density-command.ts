/**
 * `kapi-bench density [--nodes N] [--pods N] [--servers kapi,kube-apiserver] ...`: one
 * density run per server, one after the other (never at once: they would share the CPUs),
 * then the side-by-side report on stdout and in `<out-dir>/density-<date>.{md,json}`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { densityMarkdown, POD_STARTUP_SLO_MS } from './density-report.js';
import { runDensity, type DensityOptions, type DensityRun } from './density-scenario.js';
import type { DensityServerKind } from './kube-apiserver-command.js';

export const densityUsage = `kapi-bench density [options]
  KWOK nodes, the real kube-controller-manager and kube-scheduler, pods created through
  Deployments; pod startup latency, API call latency p99 per verb/resource and server CPU/RSS,
  kapi and kube-apiserver side by side with kube's SLO lines. Needs the binaries of
  e2e/control-plane/build-binaries.sh (kube-apiserver too) in --bin-dir.

  --nodes N              kwok nodes (default 100; 10 for development)
  --pods N               pods in all (default 3000; 200 for development)
  --servers LIST         kapi,kube-apiserver (default both, in that order)
  --timeout SECONDS      wait for every pod to run, per server (default 1200)
  --bin-dir DIR          default $KAPI_REF_BIN or ~/.cache/kapi-ref/bin
  --out-dir DIR          report directory (default bench/results)
  --keep                 keep every process's logs (kept anyway when a run fails)
`;

export interface DensityCommandOptions extends DensityOptions {
  readonly servers: readonly DensityServerKind[];
  readonly outDir: string;
}

/** Parses the command's arguments; throws an Error with a one-line message for bad input. */
export function parseDensityOptions(argv: readonly string[], defaults: { outDir: string; workDir: string }): DensityCommandOptions {
  const values = new Map<string, string>();
  let keep = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--keep') {
      keep = true;
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unexpected argument ${arg}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${m[1]} needs a value`);
    values.set(m[1]!, value);
  }
  const known = ['nodes', 'pods', 'servers', 'timeout', 'bin-dir', 'out-dir'];
  for (const name of values.keys()) if (!known.includes(name)) throw new Error(`unknown option --${name}`);
  const positive = (name: string, fallback: number) => {
    const raw = values.get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${raw}`);
    return n;
  };
  const servers = (values.get('servers') ?? 'kapi,kube-apiserver').split(',').map((s) => s.trim());
  for (const s of servers) if (s !== 'kapi' && s !== 'kube-apiserver') throw new Error(`--servers: unknown server ${s} (kapi, kube-apiserver)`);
  const nodes = positive('nodes', 100);
  const pods = positive('pods', 3000);
  if (pods > nodes * 110) throw new Error(`--pods ${pods} do not fit on ${nodes} nodes of 110 pods`);
  return {
    nodes,
    pods,
    podsPerDeployment: 100,
    timeoutMs: positive('timeout', 1200) * 1000,
    binDir: values.get('bin-dir') ?? process.env.KAPI_REF_BIN ?? join(homedir(), '.cache/kapi-ref/bin'),
    workDir: join(defaults.workDir, new Date().toISOString().replace(/[:.]/g, '-')),
    keep,
    servers: servers as DensityServerKind[],
    outDir: values.get('out-dir') ?? defaults.outDir,
  };
}

/** Runs the command; resolves to the exit code (1 when a run failed to converge or an SLO line failed). */
export async function runDensityCommand(o: DensityCommandOptions): Promise<number> {
  const needed = ['kube-controller-manager', 'kube-scheduler', 'kwok', ...(o.servers.includes('kube-apiserver') ? ['kube-apiserver'] : [])];
  const missing = needed.filter((b) => !existsSync(join(o.binDir, b)));
  if (missing.length > 0) {
    process.stderr.write(`density: ${missing.join(', ')} not in ${o.binDir}: build them with e2e/control-plane/build-binaries.sh kube-apiserver\n`);
    return 2;
  }
  const loadStart = loadavg();
  const runs: DensityRun[] = [];
  for (const kind of o.servers) {
    process.stderr.write(`density: ${kind}: ${o.nodes} nodes, ${o.pods} pods (load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})\n`);
    try {
      runs.push(await runDensity(kind, o, (line) => process.stderr.write(`density: ${line}\n`)));
    } catch (err) {
      // The other server still runs; this one's row says why it has no figures.
      const error = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      process.stderr.write(`density: ${kind} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      runs.push({ kind, nodes: o.nodes, pods: o.pods, deployments: 0, running: 0, wallMs: NaN, startupP50Ms: NaN, startupP99Ms: NaN, startupMaxMs: NaN, apiCalls: [], server: undefined, componentRestarts: 0, watchReopened: 0, error });
    }
  }
  const date = new Date().toISOString();
  const markdown = densityMarkdown(runs, { date, nodes: o.nodes, pods: o.pods, loadStart, loadEnd: loadavg(), cpus: cpus().length });
  process.stdout.write(markdown);
  mkdirSync(o.outDir, { recursive: true });
  const base = join(o.outDir, `density-${date.replace(/[:.]/g, '-')}`);
  writeFileSync(`${base}.md`, markdown);
  writeFileSync(`${base}.json`, `${JSON.stringify({ date, nodes: o.nodes, pods: o.pods, loadStart, runs }, null, 2)}\n`);
  process.stdout.write(`\nwrote ${base}.md\nwrote ${base}.json\n`);
  const failed = runs.some((r) => r.error !== undefined || !(r.startupP99Ms <= POD_STARTUP_SLO_MS) || r.apiCalls.some((c) => c.p99Ms > c.sloMs));
  return failed ? 1 : 0;
}
