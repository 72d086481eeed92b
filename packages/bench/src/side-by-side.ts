/**
 * Side by side: the suite run against kapi and against kube-apiserver in turn, each on a fresh
 * etcd of its own, both over HTTPS with the same bearer token, the same load generator and the
 * same concurrency, in alternating order for `repetitions` rounds; then one table with each
 * server's figures, their ratio, raw etcd, server CPU per operation and RSS.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { sizeLabel } from './crud-scenario.js';
import { startComparedKapi, startKubeApiserver, kubeApiserverBinary, type ComparedServer, type ServerName } from './kube-server.js';
import { serverControlScenarios, type SuiteOptions } from './options.js';
import { canPin, pin } from './pinning.js';
import { childPids } from './process-stats.js';
import { registerAuth } from './target.js';
import { clientGoBinary } from './client-go-scenario.js';
import { etcdGoBinary } from './etcd-go-baseline.js';
import { runSuite, type SuiteResult } from './suite.js';

/** One run of the suite against one server. */
export interface SideBySideRun {
  server: ServerName;
  /** 1-based round. */
  repetition: number;
  /** 1 when this server went first in its round. */
  position: number;
  /** 1-, 5- and 15-minute load averages of the machine before and after the run. */
  loadBefore: number[];
  loadAfter: number[];
  elapsedSeconds: number;
  result?: SuiteResult;
  /** Why the run has no result (the server did not start...). */
  error?: string;
}

export interface SideBySideResult {
  date: string;
  host: SuiteResult['host'];
  options: Omit<SuiteOptions, 'outDir'>;
  servers: ServerName[];
  /** `kube-apiserver --version`, when it ran. */
  kubeVersion?: string;
  runs: SideBySideRun[];
  /** Servers or parts not run, with the reason. */
  skipped: string[];
  totalErrors: number;
  elapsedSeconds: number;
}

/** One figure of one run, keyed so that the same figure of another server's run lines up. */
export interface Measure {
  key: string;
  /** Unit of `value` and which way is better. */
  unit: string;
  better: 'higher' | 'lower';
  value: number;
  /** Server CPU ms per operation (the unit's operation). */
  cpuMsPerOp?: number;
  /** Peak server RSS during the measure. */
  rssBytes?: number;
  /** The raw etcd figure for the same operation in the same run from Node (etcd3): crud, mixed. */
  rawEtcd?: number;
  /** The same from Go (go.etcd.io/etcd/client/v3): crud creates. */
  rawEtcdGo?: number;
}

const finite = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n);

/** Every comparable figure of one suite result. */
export function measuresOf(r: SuiteResult): Measure[] {
  const out: Measure[] = [];
  const add = (m: Measure) => {
    if (finite(m.value)) out.push(m);
  };
  for (const s of r.steps.filter((s) => s.target === 'kapi')) {
    const rawOf = (target: 'etcd' | 'etcd-go') => r.steps.find((e) => e.target === target && e.operation === (s.operation === 'create' ? 'create-txn' : 'get') && e.objectBytes === s.objectBytes && e.concurrency === s.concurrency);
    const raw = rawOf('etcd');
    const rawGo = rawOf('etcd-go');
    const attempts = s.ops + s.errors;
    add({
      key: `S1/S2 ${s.operation === 'create' ? 'create' : 'GET'} ConfigMap ${sizeLabel(s.objectBytes)}, ${s.concurrency} clients`,
      unit: `${s.operation === 'create' ? 'creates' : 'gets'}/s`,
      better: 'higher',
      value: s.opsPerSecond,
      ...(s.usage.kapi && attempts > 0 ? { cpuMsPerOp: (s.usage.kapi.cpuSeconds * 1000) / attempts, rssBytes: s.usage.kapi.peakRssBytes } : {}),
      ...(raw ? { rawEtcd: raw.opsPerSecond } : {}),
      ...(rawGo && finite(rawGo.opsPerSecond) ? { rawEtcdGo: rawGo.opsPerSecond } : {}),
    });
  }
  for (const lists of [r.lists, ...(r.moreLists ?? [])]) {
    for (const s of lists?.steps ?? []) {
      if (s.source === 'bare' || s.source === 'kapi-etcd') continue;
      add({
        key: `S3 LIST ${lists!.objects} ConfigMaps, ${s.request}, ${s.concurrency} clients`,
        unit: 'lists/s',
        better: 'higher',
        value: s.opsPerSecond,
        ...(finite(s.serverCpuMsPerOp) ? { cpuMsPerOp: s.serverCpuMsPerOp } : {}),
        ...(s.usage['server'] ? { rssBytes: s.usage['server'].peakRssBytes } : {}),
      });
    }
  }
  for (const s of r.fanout?.steps ?? []) {
    if (s.target !== 'kapi') continue;
    const label = `S4 watch fan-out, ${s.watchers} watchers${s.watchersPerEvent !== undefined ? ` (${s.watchersPerEvent} per event)` : ''}, ${s.rate} writes/s${s.variant !== undefined && s.variant !== 'all' ? `, ${s.variant}` : ''}`;
    const cpu = s.usage && s.writes > 0 ? { cpuMsPerOp: (s.usage.cpuSeconds * 1000) / s.writes, rssBytes: s.usage.peakRssBytes } : {};
    add({ key: `${label}: delivery p50`, unit: 'ms', better: 'lower', value: s.delivery.p50, ...cpu });
    add({ key: `${label}: delivery p99`, unit: 'ms', better: 'lower', value: s.delivery.p99, ...cpu });
    // How much the machine starved the server: on a loaded machine the delivery tail is the
    // server's wait for a CPU (a Node server's main thread against every other runnable thread).
    const busiest = s.usage?.schedule?.busiest;
    if (busiest !== undefined && busiest.runSeconds + busiest.waitSeconds > 0) {
      add({ key: `${label}: server's busiest thread, waiting for a CPU`, unit: '% of its runnable time', better: 'lower', value: (100 * busiest.waitSeconds) / (busiest.runSeconds + busiest.waitSeconds) });
    }
  }
  if (r.pods) {
    const p = r.pods;
    add({ key: `S10 create Pod, ${p.creates.concurrency} clients`, unit: 'creates/s', better: 'higher', value: p.creates.opsPerSecond, ...(finite(p.createCpuMs) ? { cpuMsPerOp: p.createCpuMs } : {}), ...(p.creates.usage['server'] ? { rssBytes: p.creates.usage['server'].peakRssBytes } : {}) });
    add({ key: `S10 LIST Pods by spec.nodeName, ${p.lists.concurrency} clients`, unit: 'lists/s', better: 'higher', value: p.lists.opsPerSecond, ...(finite(p.listCpuMs) ? { cpuMsPerOp: p.listCpuMs } : {}), ...(p.lists.usage['server'] ? { rssBytes: p.lists.usage['server'].peakRssBytes } : {}) });
    if (p.watch) {
      const cpu = p.watch.usage && p.watch.writes > 0 ? { cpuMsPerOp: (p.watch.usage.cpuSeconds * 1000) / p.watch.writes, rssBytes: p.watch.usage.peakRssBytes } : {};
      add({ key: `S10 ${p.nodes} node watches by spec.nodeName, ${p.watch.rate} writes/s: delivery p50`, unit: 'ms', better: 'lower', value: p.watch.delivery.p50, ...cpu });
      add({ key: `S10 ${p.nodes} node watches by spec.nodeName, ${p.watch.rate} writes/s: delivery p99`, unit: 'ms', better: 'lower', value: p.watch.delivery.p99, ...cpu });
    }
  }
  if (r.mixed) {
    const m = r.mixed;
    const cpu = { ...(finite(m.serverCpuSecondsPerWrite) ? { cpuMsPerOp: m.serverCpuSecondsPerWrite * 1000 } : {}), rssBytes: m.rssMaxBytes };
    const label = `S7 mixed, ${m.writers} writers PATCHing at ${m.rate}/s, ${m.watchers} watchers`;
    add({ key: `${label}: PATCH p99`, unit: 'ms', better: 'lower', value: m.patch.p99, ...cpu, ...(finite(m.etcdUpdate.p99) ? { rawEtcd: m.etcdUpdate.p99 } : {}) });
    add({ key: `${label}: delivery p99`, unit: 'ms', better: 'lower', value: m.delivery.p99, ...cpu });
  }
  for (const s of r.large?.steps ?? []) {
    if (s.source !== 'kapi-cache') continue;
    add({
      key: `S8 LIST ${r.large!.objects} ConfigMaps of ${(r.large!.objectBytes / 2 ** 20).toFixed(2)} MiB, ${s.concurrency} clients`,
      unit: 'lists/s',
      better: 'higher',
      value: s.opsPerSecond,
      ...(finite(s.serverCpuMsPerOp) ? { cpuMsPerOp: s.serverCpuMsPerOp } : {}),
      ...(finite(s.peakServerRssBytes) ? { rssBytes: s.peakServerRssBytes } : {}),
    });
  }
  for (const s of r.clientGo?.steps ?? []) {
    const cpu = { ...(finite(s.serverCpuMsPerOp) ? { cpuMsPerOp: s.serverCpuMsPerOp } : {}), ...(s.usage ? { rssBytes: s.usage.peakRssBytes } : {}) };
    if (s.mode === 'watch') {
      add({ key: `client-go ${s.request} p50`, unit: 'ms', better: 'lower', value: s.p50, ...cpu });
      add({ key: `client-go ${s.request} p99`, unit: 'ms', better: 'lower', value: s.p99, ...cpu });
    } else {
      add({ key: `client-go ${s.request}, ${s.concurrency} clients`, unit: s.mode === 'list' ? 'lists/s' : s.mode === 'create' ? 'creates/s' : 'gets/s', better: 'higher', value: s.opsPerSecond, ...cpu });
    }
  }
  for (const s of r.representations?.lists ?? []) {
    add({ key: `LIST ${r.representations!.objects} as ${s.representation}, ${s.concurrency} clients`, unit: 'lists/s', better: 'higher', value: s.opsPerSecond, ...(finite(s.serverCpuMsPerOp) ? { cpuMsPerOp: s.serverCpuMsPerOp } : {}) });
  }
  for (const w of r.representations?.watch ?? []) {
    if (finite(w.serverCpuMsPerEvent)) add({ key: `watch event to ${w.watchers} watchers as ${w.encoding}: server CPU per event`, unit: 'ms', better: 'lower', value: w.serverCpuMsPerEvent });
  }
  return out;
}

const num = (n: number): string => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

/** "a" or "min–max" of the values. */
export function range(values: number[], format: (n: number) => string = num): string {
  const v = values.filter(finite);
  if (v.length === 0) return '—';
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return format(lo) === format(hi) ? format(lo) : `${format(lo)}–${format(hi)}`;
}

/**
 * The comparison table: one row per figure, each server's values over the rounds (min–max),
 * kapi ÷ kube-apiserver per round, raw etcd from Go (clientv3) and kapi ÷ that in kapi's own runs,
 * raw etcd from Node (etcd3), server CPU ms per operation and peak RSS per server.
 * A figure a server has no value for shows "—" (the reason is in the skipped list).
 */
export function sideBySideRows(result: SideBySideResult): string[][] {
  const servers = result.servers;
  const both = servers.includes('kapi') && servers.includes('kube-apiserver');
  const byRun = result.runs.filter((r) => r.result !== undefined).map((r) => ({ run: r, measures: new Map(measuresOf(r.result!).map((m) => [m.key, m])) }));
  const keys: string[] = [];
  for (const { measures } of byRun) for (const k of measures.keys()) if (!keys.includes(k)) keys.push(k);
  const values = (server: ServerName, key: string) => byRun.filter((r) => r.run.server === server).map((r) => r.measures.get(key)).filter((m): m is Measure => m !== undefined);
  const header = [
    'figure',
    'unit',
    ...servers,
    ...(both ? ['kapi ÷ kube'] : []),
    'raw etcd, Go clientv3',
    'kapi ÷ raw etcd Go',
    'raw etcd, Node etcd3',
    ...servers.map((s) => `${s} CPU ms/op`),
    ...(both ? ['CPU kapi ÷ kube'] : []),
    ...servers.map((s) => `${s} RSS MiB`),
  ];
  const rows: string[][] = [header];
  for (const key of keys) {
    const any = servers.flatMap((s) => values(s, key))[0]!;
    const ratios = (pick: (m: Measure) => number | undefined): string => {
      const out: number[] = [];
      for (let rep = 1; rep <= result.options.repetitions; rep++) {
        const of = (server: ServerName) => {
          const run = byRun.find((r) => r.run.server === server && r.run.repetition === rep);
          const m = run?.measures.get(key);
          return m === undefined ? undefined : pick(m);
        };
        const a = of('kapi');
        const b = of('kube-apiserver');
        if (finite(a) && finite(b) && b !== 0) out.push(a / b);
      }
      return out.length === 0 ? '—' : `${range(out, (n) => n.toFixed(2))}×`;
    };
    rows.push([
      key,
      `${any.unit} (${any.better} is better)`,
      ...servers.map((s) => range(values(s, key).map((m) => m.value))),
      ...(both ? [ratios((m) => m.value)] : []),
      range(servers.flatMap((s) => values(s, key)).map((m) => m.rawEtcdGo ?? Number.NaN)),
      // Per kapi run, against the Go figure of the same run (same etcd, same minute).
      ((r) => (r === '—' ? r : `${r}×`))(range(values('kapi', key).map((m) => (finite(m.rawEtcdGo) && m.rawEtcdGo > 0 ? m.value / m.rawEtcdGo : Number.NaN)), (n) => n.toFixed(2))),
      range(servers.flatMap((s) => values(s, key)).map((m) => m.rawEtcd ?? Number.NaN)),
      ...servers.map((s) => range(values(s, key).map((m) => m.cpuMsPerOp ?? Number.NaN), (n) => n.toFixed(3))),
      ...(both ? [ratios((m) => m.cpuMsPerOp)] : []),
      ...servers.map((s) => range(values(s, key).map((m) => (m.rssBytes ?? Number.NaN) / 2 ** 20), (n) => n.toFixed(0))),
    ]);
  }
  const errors = (server: ServerName) => result.runs.filter((r) => r.server === server).map((r) => (r.result?.totalErrors ?? 0) + (r.error !== undefined ? 1 : 0));
  rows.push([
    'errors (every scenario of the run)',
    'count (lower is better)',
    ...servers.map((s) => range(errors(s), (n) => n.toFixed(0))),
    ...(both ? ['—'] : []),
    '—',
    '—',
    '—',
    ...servers.map(() => '—'),
    ...(both ? ['—'] : []),
    ...servers.map(() => '—'),
  ]);
  return rows;
}

/** The runs table: order, load average, wall time and errors of each run. */
export function runRows(result: SideBySideResult): string[][] {
  return [
    ['round', 'order', 'server', 'load avg 1/5/15 before', 'after', 'wall s', 'errors'],
    ...result.runs.map((r) => [
      String(r.repetition),
      String(r.position),
      r.server,
      r.loadBefore.map((l) => l.toFixed(2)).join(' / '),
      r.loadAfter.map((l) => l.toFixed(2)).join(' / '),
      r.elapsedSeconds.toFixed(0),
      r.error !== undefined ? `did not run: ${r.error.split('\n')[0]}` : String(r.result?.totalErrors ?? 0),
    ]),
  ];
}

function log(message: string): void {
  process.stderr.write(`[kapi-bench] ${message}\n`);
}

function kubeVersion(binary: string): string | undefined {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** Servers in round `repetition` (1-based): the order of `servers`, reversed every other round. */
export function roundOrder(servers: readonly ServerName[], repetition: number): ServerName[] {
  return repetition % 2 === 1 ? [...servers] : [...servers].reverse();
}

/**
 * Runs the suite against each server of `options.against`, `options.repetitions` times in
 * alternating order, each run on a fresh etcd and a fresh server (pinned like the suite's own:
 * server and etcd on CPU 0, the load generator on CPU 1). Scenarios that need control of the
 * server run against kapi only, in its first round. A server that cannot start is a failed run,
 * reported; a missing kube-apiserver binary skips its runs with a line in the report.
 */
export async function runSideBySide(options: SuiteOptions): Promise<SideBySideResult> {
  const started = performance.now();
  const date = new Date().toISOString();
  const binary = options.kubeApiserver ?? kubeApiserverBinary();
  const skipped: string[] = [];
  let servers = [...options.against];
  let version: string | undefined;
  if (servers.includes('kube-apiserver')) {
    version = existsSync(binary) ? kubeVersion(binary) : undefined;
    if (version === undefined) {
      skipped.push(`kube-apiserver: no binary at ${binary}, so kapi ran alone, one round (build it with e2e/control-plane/build-binaries.sh kube-apiserver, as \`make bench\` does, or pass --kube-apiserver)`);
      servers = servers.filter((s) => s !== 'kube-apiserver');
    }
  }
  // Built before any server runs, so that compiling never overlaps a measurement.
  if (options.scenarios.includes('client-go')) {
    await clientGoBinary().catch((err: unknown) => log(`client-go: ${(err as Error).message.split('\n')[0]}`));
  }
  if (options.scenarios.includes('crud') && options.rawEtcdGoClients > 0) {
    await etcdGoBinary().catch((err: unknown) => log(`raw etcd from Go: ${(err as Error).message.split('\n')[0]}`));
  }
  const wantPin = options.pin && canPin();
  const runs: SideBySideRun[] = [];
  const kapiOnly = options.scenarios.filter((s) => serverControlScenarios.includes(s));
  // Without a second server there is nothing to alternate with: one round.
  const rounds = servers.length > 1 ? options.repetitions : 1;
  for (let repetition = 1; repetition <= rounds; repetition++) {
    const order = roundOrder(servers, repetition);
    for (const [index, server] of order.entries()) {
      const runStarted = performance.now();
      const run: SideBySideRun = { server, repetition, position: index + 1, loadBefore: loadavg(), loadAfter: [], elapsedSeconds: 0 };
      runs.push(run);
      log(`side by side: round ${repetition}, ${server}`);
      // Children inherit affinity: spawn etcd and the server from the server CPU.
      if (wantPin) pin(process.pid, '0');
      let etcd: TestEtcd | undefined;
      let target: ComparedServer | undefined;
      try {
        etcd = await startEtcd({ extraArgs: ['--quota-backend-bytes=8589934592', '--snapshot-count=100000'] });
        target = server === 'kapi'
          ? await startComparedKapi({ etcdServers: etcd.endpoints, workers: options.workers })
          : await startKubeApiserver({ binary, etcdServers: etcd.endpoints });
        registerAuth(target.url, { token: target.token, insecure: true });
        const etcdPid = childPids(process.pid, 'etcd')[0];
        if (wantPin) {
          if (target.pid() !== undefined) pin(target.pid()!, '0');
          if (etcdPid !== undefined) pin(etcdPid, '0');
        }
        // kapi-only scenarios once (kapi's first round): they compare kapi with itself, not with kube.
        const firstKapi = server === 'kapi' && !runs.slice(0, -1).some((r) => r.server === 'kapi');
        const scenarios = server === 'kapi' && !firstKapi ? options.scenarios.filter((s) => !kapiOnly.includes(s)) : options.scenarios;
        run.result = await runSuite({ ...options, scenarios }, { server, url: target.url, pid: target.pid(), etcdEndpoints: etcd.endpoints, etcdPid });
        if (scenarios.length < options.scenarios.length) run.result.skipped?.push(`${kapiOnly.join(', ')}: kapi only, run in kapi's first round`);
      } catch (err) {
        run.error = err instanceof Error ? err.message : String(err);
        log(`side by side: ${server} round ${repetition} failed: ${run.error.split('\n')[0]}`);
      } finally {
        await target?.stop();
        await etcd?.stop();
        run.loadAfter = loadavg();
        run.elapsedSeconds = (performance.now() - runStarted) / 1000;
      }
    }
  }
  const totalErrors = runs.reduce((n, r) => n + (r.result?.totalErrors ?? 0) + (r.error !== undefined ? 1 : 0), 0);
  return {
    date,
    host: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryBytes: totalmem(), node: process.version, etcdVersion: runs.find((r) => r.result)?.result?.host.etcdVersion ?? 'unknown' },
    options: (({ outDir: _outDir, ...rest }) => rest)(options),
    servers,
    ...(version !== undefined ? { kubeVersion: version } : {}),
    runs,
    skipped,
    totalErrors,
    elapsedSeconds: (performance.now() - started) / 1000,
  };
}
