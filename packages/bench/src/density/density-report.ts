/**
 * The density report: kapi and kube-apiserver side by side (either may be missing), the
 * ratio kapi / kube-apiserver, and kube's SLO lines marked pass/fail — pod startup p99 ≤ 5 s,
 * every non-LIST API call p99 ≤ 1 s, LIST p99 ≤ 5 s (namespace) / 30 s (cluster).
 */
import type { ApiCallLatency, DensityRun } from './density-scenario.js';

/** kube's pod startup SLO (p99), ms. */
export const POD_STARTUP_SLO_MS = 5000;

export interface DensityMeta {
  readonly date: string;
  readonly nodes: number;
  readonly pods: number;
  /** `os.loadavg()` when the runs started and when they ended. */
  readonly loadStart: readonly number[];
  readonly loadEnd: readonly number[];
  readonly cpus: number;
}

const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${v.toFixed(v < 10 ? 1 : 0)} ms`);
const mib = (bytes: number | undefined) => (bytes === undefined ? '—' : `${(bytes / 2 ** 20).toFixed(0)} MiB`);
const ratioText = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !(b > 0) || Number.isNaN(a) ? '—' : `${(a / b).toFixed(2)}×`);
const verdict = (ok: boolean | undefined) => (ok === undefined ? '—' : ok ? 'pass' : '**FAIL**');

/** The worst p99 among rows `pick` selects, and whether every one meets its SLO. */
function worst(run: DensityRun | undefined, pick: (row: ApiCallLatency) => boolean): { p99Ms: number; ok: boolean; row?: ApiCallLatency } | undefined {
  if (run === undefined) return undefined;
  const rows = run.apiCalls.filter(pick);
  if (rows.length === 0) return { p99Ms: NaN, ok: true };
  const top = rows.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
  return { p99Ms: top.p99Ms, ok: rows.every((r) => r.p99Ms <= r.sloMs), row: top };
}

export function densityMarkdown(runs: readonly DensityRun[], meta: DensityMeta): string {
  const kapi = runs.find((r) => r.kind === 'kapi');
  const kube = runs.find((r) => r.kind === 'kube-apiserver');
  const load = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const lines = [
    `# kapi-bench density — ${meta.date}`,
    '',
    `${meta.nodes} kwok nodes, ${meta.pods} pods through Deployments of ≤ 100 replicas; kube-controller-manager, kube-scheduler v1.32.13 and kwok v0.8.0 on each server, each on a fresh etcd. ` +
      `${meta.cpus} CPUs; load average (1/5/15 min) ${load(meta.loadStart)} at the start, ${load(meta.loadEnd)} at the end.`,
    '',
    '| | kapi | kube-apiserver | kapi / kube |',
    '|---|---|---|---|',
  ];
  const row = (label: string, a: string, b: string, r: string) => lines.push(`| ${label} | ${a} | ${b} | ${r} |`);
  const both = <T>(f: (run: DensityRun) => T) => [kapi ? f(kapi) : undefined, kube ? f(kube) : undefined] as const;
  const [runA, runB] = both((r) => `${r.running}/${r.pods}${r.error ? ` (${r.error})` : ''}`);
  row('pods Running', runA ?? '—', runB ?? '—', '');
  const [wallA, wallB] = both((r) => r.wallMs);
  row('first create → last pod Running', ms(wallA), ms(wallB), ratioText(wallA, wallB));
  const [p50A, p50B] = both((r) => r.startupP50Ms);
  row('pod startup p50 (created → Running, seen by a watch)', ms(p50A), ms(p50B), ratioText(p50A, p50B));
  const [p99A, p99B] = both((r) => r.startupP99Ms);
  const startupCell = (p99: number | undefined) => (p99 === undefined ? '—' : `${ms(p99)} ${verdict(p99 <= POD_STARTUP_SLO_MS)}`);
  row(`pod startup p99 — SLO ≤ ${POD_STARTUP_SLO_MS / 1000} s`, startupCell(p99A), startupCell(p99B), ratioText(p99A, p99B));
  const nonList = both((r) => worst(r, (x) => x.verb !== 'LIST'));
  const describeWorst = (w: ReturnType<typeof worst> | undefined) => (w === undefined ? '—' : `${ms(w.p99Ms)}${w.row ? ` (${w.row.verb} ${w.row.resource})` : ''} ${verdict(w.ok)}`);
  row('API calls, worst non-LIST p99 — SLO ≤ 1 s', describeWorst(nonList[0]), describeWorst(nonList[1]), ratioText(nonList[0]?.p99Ms, nonList[1]?.p99Ms));
  const lists = both((r) => worst(r, (x) => x.verb === 'LIST'));
  row('API calls, worst LIST p99 — SLO ≤ 5 s namespace / 30 s cluster', describeWorst(lists[0]), describeWorst(lists[1]), ratioText(lists[0]?.p99Ms, lists[1]?.p99Ms));
  const [cpuA, cpuB] = both((r) => r.server?.cpuSeconds);
  row('server CPU during the run', cpuA === undefined ? '—' : `${cpuA.toFixed(1)} s`, cpuB === undefined ? '—' : `${cpuB.toFixed(1)} s`, ratioText(cpuA, cpuB));
  const [rssA, rssB] = both((r) => r.server?.peakRssBytes);
  row('server peak RSS', mib(rssA), mib(rssB), ratioText(rssA, rssB));
  const [endA, endB] = both((r) => r.server?.endRssBytes);
  row('server RSS at the end', mib(endA), mib(endB), ratioText(endA, endB));
  const [rsA, rsB] = both((r) => String(r.componentRestarts));
  row('restarts of KCM / scheduler / kwok', rsA ?? '—', rsB ?? '—', '');
  const [wA, wB] = both((r) => String(r.watchReopened));
  row('times the pod watch was reopened', wA ?? '—', wB ?? '—', '');

  lines.push('', '## API call latency p99 per verb and resource (the server\'s apiserver_request_duration_seconds over the run)', '');
  lines.push('| verb | resource | scope | SLO | kapi calls | kapi p99 | kube calls | kube p99 | kapi / kube |', '|---|---|---|---|---|---|---|---|---|');
  const key = (r: ApiCallLatency) => `${r.verb} ${r.resource} ${r.scope}`;
  const keys = new Map<string, ApiCallLatency>();
  for (const r of [...(kapi?.apiCalls ?? []), ...(kube?.apiCalls ?? [])]) if (!keys.has(key(r))) keys.set(key(r), r);
  const find = (run: DensityRun | undefined, k: string) => run?.apiCalls.find((r) => key(r) === k);
  for (const [k, r] of keys) {
    const a = find(kapi, k);
    const b = find(kube, k);
    const cell = (x: ApiCallLatency | undefined) => (x === undefined ? '—' : `${ms(x.p99Ms)}${x.p99Ms > x.sloMs ? ' **FAIL**' : ''}`);
    lines.push(`| ${r.verb} | ${r.resource} | ${r.scope} | ${ms(r.sloMs)} | ${a?.count ?? '—'} | ${cell(a)} | ${b?.count ?? '—'} | ${cell(b)} | ${ratioText(a?.p99Ms, b?.p99Ms)} |`);
  }
  lines.push('', 'p99 from the histogram buckets (Prometheus histogram_quantile); a bucket bound is the resolution. WATCH, WATCHLIST and CONNECT are left out, as in kube\'s SLO.');
  return `${lines.join('\n')}\n`;
}
