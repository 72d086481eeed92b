/**
 * The markdown summary of `kapi-bench profile`: CPU per op by server and variant, each profile's
 * stages and flame graph, and — when both servers were profiled — kapi and kube-apiserver side
 * by side, stage by stage.
 */
import { basename } from 'node:path';
import { variantName, type ProfiledRun, type ProfileResult } from './profile-command.js';
import { Stage } from './profile-stages.js';

/**
 * Stages grouped into layers that compare across the two runtimes: where one server's work
 * lands in a different stage than the other's (node reads sockets outside HTTP/2 frames, Go
 * inside them; V8 allocates inline, Go in its allocator), the layer still holds both.
 */
export const layers: readonly { layer: string; stages: readonly string[] }[] = [
  { layer: 'etcd client', stages: [Stage.etcdClient] },
  { layer: 'transport: HTTP/2, HTTP/1.1, TLS, sockets', stages: [Stage.http2Compat, Stage.http2, Stage.http1, Stage.tls, Stage.sockets] },
  { layer: 'protobuf codec, body', stages: [Stage.protobuf, Stage.body] },
  { layer: 'managed fields', stages: [Stage.managedFields] },
  { layer: 'defaults, validation, admission, conversion', stages: [Stage.registry, Stage.machinery, Stage.admission, Stage.conversion] },
  { layer: 'storage, watch cache', stages: [Stage.storage, Stage.watchCache] },
  { layer: 'routing, handlers', stages: [Stage.apiserver] },
  { layer: 'filters, APF, metrics, tracing, authn/authz, audit', stages: [Stage.filters, Stage.authn, Stage.audit] },
  { layer: "memory: GC, Go's allocator", stages: [Stage.gc, Stage.allocation] },
  { layer: "runtime: V8 native, Go's scheduler and stacks, unmatched", stages: [Stage.scheduler, Stage.other] },
];

/** {@link stageComparison}'s rows summed by {@link layers}, in that order. */
export function layerComparison(rows: readonly { stage: string; kapi: number; kube: number }[]): { stage: string; kapi: number; kube: number }[] {
  return layers.map(({ layer, stages }) => {
    const members = rows.filter((r) => stages.includes(r.stage));
    return { stage: layer, kapi: members.reduce((t, r) => t + r.kapi, 0), kube: members.reduce((t, r) => t + r.kube, 0) };
  });
}

function median(xs: number[]): number {
  const sorted = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A profile's stages in ms per op. The profile gives each stage's share of the sampled time;
 * that share is applied to the server's median CPU per op over the unprofiled runs of the same
 * variant (so a profiler's own cost and threads it does not sample are spread evenly), or, with
 * no such runs, the sampled ms are divided by the profiled ops.
 */
export function stageMsPerOp(result: ProfileResult, profile: ProfiledRun): Map<string, number> {
  const unprofiled = median(result.runs.filter((r) => r.server === profile.server && r.variant === profile.variant).map((r) => r.serverCpuMsPerOp));
  const scale = Number.isFinite(unprofiled) && profile.summary.busyMs > 0 ? unprofiled / profile.summary.busyMs : 1 / profile.ops;
  return new Map(profile.summary.stages.map((s) => [s.stage, s.ms * scale]));
}

/** kapi's and kube-apiserver's stages for `variant` (ms per op), largest first; undefined unless both were profiled. */
export function stageComparison(result: ProfileResult, variant: string): { stage: string; kapi: number; kube: number }[] | undefined {
  const kapi = result.profiles.find((p) => p.server === 'kapi' && p.variant === variant);
  const kube = result.profiles.find((p) => p.server === 'kube-apiserver' && p.variant === variant);
  if (kapi === undefined || kube === undefined) return undefined;
  const a = stageMsPerOp(result, kapi);
  const b = stageMsPerOp(result, kube);
  return [...new Set([...a.keys(), ...b.keys()])]
    .map((stage) => ({ stage, kapi: a.get(stage) ?? 0, kube: b.get(stage) ?? 0 }))
    .sort((x, y) => Math.max(y.kapi, y.kube) - Math.max(x.kapi, x.kube));
}

/** Markdown: CPU per op by server and variant (min–max over rounds), then each profile's stages and flame graph. */
export function profileReport(result: ProfileResult): string {
  const lines: string[] = [];
  const o = result.options;
  const range = (xs: number[], d: number) => (xs.length === 0 ? '—' : `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`);
  lines.push(`# kapi-bench profile ${new Date().toISOString()}`, '');
  lines.push(`- ${o.servers.map((s) => (s === 'kapi' && o.workers !== 1 ? `kapi --workers=${o.workers}` : s)).join(' and ')}, client-go ${o.concurrency} goroutines over ${o.clients} connection${o.clients === 1 ? '' : 's'}, ${o.rounds} rounds of ${o.durationS} s per variant (warm-up ${o.firstWarmupS} s first, then ${o.warmupS} s)`);
  lines.push(`- load average (1 min) after each run: ${range(result.loadAverages, 1)}`, '');
  lines.push('| server | variant | ops/s | p50 ms | p99 ms | server CPU ms/op |', '|---|---|---|---|---|---|');
  for (const v of o.variants) {
    for (const server of o.servers) {
      const runs = result.runs.filter((r) => r.server === server && r.variant === variantName(v));
      lines.push(`| ${server} | ${variantName(v)} | ${range(runs.map((r) => r.opsPerSecond), 0)} | ${range(runs.map((r) => r.p50), 1)} | ${range(runs.map((r) => r.p99), 1)} | ${range(runs.map((r) => r.serverCpuMsPerOp), 3)} |`);
    }
  }
  const compared = o.variants.map(variantName).flatMap((variant) => {
    const rows = stageComparison(result, variant);
    return rows === undefined ? [] : [{ variant, rows }];
  });
  if (compared.length > 0) {
    lines.push('', '## kapi and kube-apiserver by stage (ms of CPU per op)', '');
    lines.push("Each stage's share of its profile, applied to the server's median CPU per op over the unprofiled runs.");
    const cell = (x: number) => (x === 0 ? '—' : x.toFixed(3));
    const difference = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(3);
    const table = (heading: string, rows: { stage: string; kapi: number; kube: number }[], first: string) => {
      lines.push('', heading, '', `| ${first} | kapi | kube-apiserver | kapi − kube |`, '|---|---|---|---|');
      for (const r of rows) lines.push(`| ${r.stage} | ${cell(r.kapi)} | ${cell(r.kube)} | ${difference(r.kapi - r.kube)} |`);
      const total = rows.reduce((t, r) => ({ kapi: t.kapi + r.kapi, kube: t.kube + r.kube }), { kapi: 0, kube: 0 });
      lines.push(`| **total** | ${total.kapi.toFixed(3)} | ${total.kube.toFixed(3)} | ${difference(total.kapi - total.kube)} |`);
    };
    for (const { variant, rows } of compared) {
      table(`### ${variant} by layer`, layerComparison(rows), 'layer');
      table(`### ${variant} by stage`, rows, 'stage');
    }
  }
  for (const server of o.servers) {
    const profiles = result.profiles.filter((p) => p.server === server);
    if (profiles.length === 0) continue;
    const stages = [...new Set(profiles.flatMap((p) => p.summary.stages.map((s) => s.stage)))];
    const share = (p: ProfiledRun, stage: string) => {
      const s = p.summary.stages.find((x) => x.stage === stage);
      return s === undefined ? '—' : (s.ms / p.ops).toFixed(3);
    };
    lines.push('', `## ${server}: profiled CPU by stage (ms per op; sampled with the profiler on, idle excluded)`, '');
    lines.push(`| stage | ${profiles.map((p) => p.variant).join(' | ')} |`, `|---|${profiles.map(() => '---|').join('')}`);
    for (const stage of stages) lines.push(`| ${stage} | ${profiles.map((p) => share(p, stage)).join(' | ')} |`);
    lines.push(`| **total** | ${profiles.map((p) => (p.summary.busyMs / p.ops).toFixed(3)).join(' | ')} |`);
    lines.push('', `Flame graphs: ${profiles.map((p) => `[${p.variant}](${basename(p.flameGraph)})`).join(', ')}; profiles: ${profiles.map((p) => `[${basename(p.file)}](${basename(p.file)})`).join(', ')}.`);
    for (const p of profiles) {
      lines.push('', `### ${server} ${p.variant}: top functions by self time (ms per op)`, '', '| function | where | ms/op |', '|---|---|---|');
      for (const f of p.summary.topFunctions.slice(0, 25)) lines.push(`| ${f.name.replace(/\|/g, '\\|')} | ${f.where} | ${(f.ms / p.ops).toFixed(4)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
