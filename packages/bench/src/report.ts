import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sizeLabel } from './crud-scenario.js';
import { admissionRows, fanoutRows, largeRows, podsRows, listRows, listRowsOf, memoryRows, mixedRows, replicaRows, restartRows, scenarioErrors } from './scenario-report.js';
import { representationRows } from './representation-scenario.js';
import { clientGoRows } from './client-go-scenario.js';
import { ratio } from './stats.js';
import type { StepResult, SuiteResult } from './suite.js';

const fixed = (n: number | undefined, digits: number): string => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits));
const mib = (bytes: number | undefined): string => (bytes === undefined ? '—' : (bytes / 1048576).toFixed(0));

/** CPU milliseconds per attempted operation, or undefined without a usage sample. */
function cpuMsPerOp(step: StepResult, who: 'kapi' | 'etcd'): number | undefined {
  const usage = step.usage[who];
  const attempts = step.ops + step.errors;
  return usage && attempts > 0 ? (usage.cpuSeconds * 1000) / attempts : undefined;
}

/** Rows of the main table: one per step. */
export function stepRows(result: SuiteResult): string[][] {
  const header = ['target', 'op', 'size', 'conc', 'ops/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', '429s', 'kapi cpu ms/op', 'etcd cpu ms/op', 'client cpu ms/op', 'kapi rss MiB', 'etcd rss MiB'];
  return [
    header,
    ...result.steps.map((s) => [
      s.target,
      s.operation,
      sizeLabel(s.objectBytes),
      String(s.concurrency),
      fixed(s.opsPerSecond, 0),
      fixed(s.latency.p50, 2),
      fixed(s.latency.p99, 2),
      fixed(s.latency.max, 1),
      String(s.errors),
      String(s.throttled ?? 0),
      fixed(cpuMsPerOp(s, 'kapi'), 3),
      fixed(cpuMsPerOp(s, 'etcd'), 3),
      fixed(s.ops + s.errors > 0 ? (s.loadGeneratorCpuSeconds * 1000) / (s.ops + s.errors) : undefined, 3),
      mib(s.usage.kapi?.peakRssBytes),
      mib(s.usage.etcd?.peakRssBytes),
    ]),
  ];
}

/**
 * Rows of the ratio table: kapi vs the raw-etcd baselines at each object size and concurrency;
 * creates against the create transactions from Go (clientv3, the fastest client) and from Node
 * (etcd3), puts and gets from Node.
 */
export function ratioRows(result: SuiteResult): string[][] {
  const find = (target: string, op: string, bytes: number, c: number) =>
    result.steps.find((s) => s.target === target && s.operation === op && s.objectBytes === bytes && s.concurrency === c);
  const sizes = [...new Set(result.steps.map((s) => s.objectBytes))];
  const levels = [...new Set(result.steps.map((s) => s.concurrency))];
  const rows: string[][] = [
    ['size', 'conc', 'kapi creates/s', 'etcd create-txn/s, Go clientv3', 'kapi ÷ Go txn', 'etcd create-txn/s, Node etcd3', 'kapi ÷ Node txn', 'etcd put/s', 'kapi gets/s', 'etcd gets/s', 'get ratio'],
  ];
  for (const bytes of sizes) {
    for (const c of levels) {
      if (!result.steps.some((s) => s.objectBytes === bytes && s.concurrency === c)) continue;
      const create = find('kapi', 'create', bytes, c)?.opsPerSecond ?? Number.NaN;
      const txn = find('etcd', 'create-txn', bytes, c)?.opsPerSecond ?? Number.NaN;
      const goTxn = find('etcd-go', 'create-txn', bytes, c)?.opsPerSecond ?? Number.NaN;
      const put = find('etcd', 'put', bytes, c)?.opsPerSecond ?? Number.NaN;
      const get = find('kapi', 'get', bytes, c)?.opsPerSecond ?? Number.NaN;
      const rawGet = find('etcd', 'get', bytes, c)?.opsPerSecond ?? Number.NaN;
      rows.push([sizeLabel(bytes), String(c), fixed(create, 0), fixed(goTxn, 0), fixed(ratio(create, goTxn), 3), fixed(txn, 0), fixed(ratio(create, txn), 3), fixed(put, 0), fixed(get, 0), fixed(rawGet, 0), fixed(ratio(get, rawGet), 3)]);
    }
  }
  return rows;
}

/** Aligned plain-text table (first row is the header); numeric columns are right-aligned. */
export function textTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const numeric = rows[0]!.map((_, i) => rows.slice(1).every((r) => /^[-+0-9.—]+$/.test(r[i]!)));
  return rows.map((r) => r.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/** GitHub-flavoured markdown table (first row is the header). */
export function markdownTable(rows: string[][]): string {
  const [header, ...body] = rows;
  return [`| ${header!.join(' | ')} |`, `|${header!.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function pinningLine(result: SuiteResult): string {
  const p = result.pinning;
  return p.enabled
    ? `pinned with taskset: server on CPU ${p.server ?? '?'}, etcd on CPU ${p.etcd ?? '?'}, load generator on CPU ${p.loadGenerator ?? '?'}`
    : `not pinned (${p.reason})`;
}

/** Every error line of the run: crud steps and the scenarios. */
export function errorLines(result: SuiteResult): string[] {
  return [
    ...result.steps.filter((s) => s.errors > 0).map((s) => `${s.target}/${s.operation} ${sizeLabel(s.objectBytes)} c=${s.concurrency}: ${s.errors} errors, e.g. ${s.errorSamples.join(' | ')}`),
    ...scenarioErrors(result),
    ...(result.clientGo?.errors ?? []),
    ...(result.clientGo?.steps ?? []).filter((s) => s.errors !== 0).map((s) => `client-go ${s.request} c=${s.concurrency}: ${s.errors} errors, e.g. ${s.errorSamples.join(' | ')}`),
  ];
}

/** Titled sections present in this result: [title, rows]. */
export function sections(result: SuiteResult): [string, string[][]][] {
  const out: [string, string[][]][] = [];
  if (result.steps.length > 0) out.push(['S1/S2 creates and gets (with raw etcd)', stepRows(result)], ['kapi vs raw etcd', ratioRows(result)]);
  if (result.lists) out.push([`S3 LIST of ${result.lists.objects} ConfigMaps (${result.lists.itemBytes.toFixed(0)} B JSON each): cache vs etcd vs bare node:http`, listRows(result)]);
  for (const lists of result.moreLists ?? []) out.push([`S3 LIST of ${lists.objects} ConfigMaps (${lists.itemBytes.toFixed(0)} B JSON each): cache vs etcd vs bare node:http`, listRowsOf(lists)]);
  if (result.fanout) out.push([`S4 watch fan-out (${result.fanout.eventBytes} B events): delivery latency from write acknowledgement`, fanoutRows(result)]);
  if (result.pods) out.push([`S10 pods: ${result.pods.nodes} nodes each watching its pods by spec.nodeName`, podsRows(result.pods)]);
  if (result.memory) out.push(['S5 memory per cached ConfigMap (fresh servers, after forced GC, vs a server on an empty prefix)', memoryRows(result)]);
  if (result.restart) out.push([`S6 restart storm: ${result.restart.objects} ConfigMaps, ${result.restart.informers} informers over ${result.restart.namespaces} namespaces, server SIGKILLed and restarted`, restartRows(result.restart)]);
  if (result.mixed) out.push([`S7 mixed: ${result.mixed.writers} writers PATCHing at ${result.mixed.rate}/s in all, ${result.mixed.watchers} watchers, ${result.mixed.durationSeconds} s`, mixedRows(result.mixed)]);
  if (result.large) out.push([`S8 LIST of ${result.large.objects} ConfigMaps of ${(result.large.objectBytes / 2 ** 20).toFixed(2)} MiB from the cache vs bare node:http`, largeRows(result.large)]);
  if (result.replicas) out.push(['S9 two replicas on one etcd: writes to A; watches and consistent LISTs on B vs on A', replicaRows(result.replicas)]);
  if (result.admission) out.push(['admission: custom resource creates without vs with one CRD validation rule and one ValidatingAdmissionPolicy (alternated rounds)', admissionRows(result.admission)]);
  if (result.clientGo) out.push(['client-go (typed clientset, protobuf): creates, GETs, LISTs, watch delivery from the write\'s acknowledgement', clientGoRows(result.clientGo)]);
  if (result.representations) out.push(['representations: LIST as JSON vs protobuf vs a Table page; server CPU per watch event by encoding', representationRows(result.representations)]);
  return out;
}

/** The console report: every table, the errors (never hidden) and the pinning. */
export function textReport(result: SuiteResult): string {
  const errors = errorLines(result).map((e) => `  ${e}`);
  return [
    `kapi-bench suite ${result.date} (${result.options.quick ? 'quick' : 'full'}; ${result.options.durationMs / 1000} s per crud step${result.elapsedSeconds !== undefined ? `; ${result.elapsedSeconds.toFixed(0)} s in all` : ''})`,
    `${result.host.cpus} × ${result.host.cpuModel}, node ${result.host.node}, ${result.host.etcdVersion}; ${pinningLine(result)}`,
    ...sections(result).flatMap(([title, rows]) => ['', title, textTable(rows)]),
    ...(result.skipped && result.skipped.length > 0 ? ['', `skipped: ${result.skipped.join('; ')}`] : []),
    '',
    result.totalErrors === 0 ? 'errors: none' : `errors: ${result.totalErrors} — THIS RUN FAILED\n${errors.join('\n')}`,
  ].join('\n');
}

/** The markdown report written next to the JSON. */
export function markdownReport(result: SuiteResult, jsonFileName: string): string {
  const errors = errorLines(result).map((e) => `- ${e}`);
  return [
    `# kapi-bench ${result.date}`,
    '',
    `- mode: ${result.options.quick ? 'quick' : 'full'}, ${result.options.durationMs / 1000} s measured per crud step, warm-up ${result.options.warmupMs / 1000} s`,
    `- host: ${result.host.cpus} × ${result.host.cpuModel}, ${(result.host.memoryBytes / 2 ** 30).toFixed(0)} GiB, node ${result.host.node}, ${result.host.etcdVersion}`,
    `- target: ${result.target.url} (${result.target.startedBySuite ? 'started by the suite, plain HTTP' : result.target.kubeconfig !== undefined ? `from kubeconfig ${result.target.kubeconfig}${result.target.context !== undefined ? `, context ${result.target.context}` : ''}` : 'external'}); baseline etcd ${result.target.baselineEtcd}${result.target.baselineEtcdIsServerEtcd ? ' (the server\'s etcd)' : ' (a separate etcd)'}`,
    `- ${pinningLine(result)}`,
    `- workload: ConfigMap creates with 1 KiB of data (unique names), GETs of existing ConfigMaps (resourceVersion unset); raw etcd via gRPC: create = txn(mod_revision == 0 → put, else get) of values as large as what kapi stored, from Go (go.etcd.io/etcd/client/v3) and from Node (etcd3), put and get from Node; ` +
      `LIST of ${(result.options.listSizes ?? [result.options.listObjects]).join(' and ')} ConfigMaps; watch fan-out of ${result.options.watchers} watchers at ${result.options.fanoutRates.join('/')} writes/s; memory at ${result.options.memoryObjects.join('/')} ConfigMaps`,
    ...(result.elapsedSeconds !== undefined ? [`- wall time: ${result.elapsedSeconds.toFixed(0)} s${result.scenarioSeconds ? ` (${Object.entries(result.scenarioSeconds).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ')})` : ''}`] : []),
    ...sections(result).flatMap(([title, rows]) => ['', `## ${title}`, '', markdownTable(rows)]),
    '',
    ...(result.skipped && result.skipped.length > 0 ? ['## Skipped', '', ...result.skipped.map((s) => `- ${s}`), ''] : []),
    `## Errors`,
    '',
    result.totalErrors === 0 ? 'None.' : `${result.totalErrors} errors — the run failed.\n\n${errors.join('\n')}`,
    '',
    `Raw data: [${jsonFileName}](${jsonFileName})`,
    '',
  ].join('\n');
}

/** Writes `<outDir>/<date>.json` and `<outDir>/<date>.md`; returns both paths. */
export function writeReports(result: SuiteResult, outDir: string): { json: string; markdown: string } {
  mkdirSync(outDir, { recursive: true });
  const stem = result.date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const json = join(outDir, `${stem}.json`);
  const markdown = join(outDir, `${stem}.md`);
  writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(markdown, markdownReport(result, `${stem}.json`));
  return { json, markdown };
}
