/**
 * The fault suite: the local HA cluster (deploy/cluster.sh, as `make cluster` runs it), a steady
 * mixed workload through kapi-lb (see workload.ts), faults injected one after another
 * (injector.ts), then the checker (checker.ts) against etcd's own final state and history.
 *
 * Short form (`make test`): each fault once with short outages. Full form (`make e2e-faults`):
 * three rounds with longer outages.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGoCommand, LineProcess } from '../harness/go-program.js';
import { ensureNamespace, RestClient, type KubeObject } from '../harness/rest.js';
import { openWatch } from '../harness/watch-stream.js';
import { startClusterTarget, type ClusterTarget } from '../suites/targets.js';
import { checkCounters, checkKeys, checkListedStates, checkLists, checkStore, checkWatchEpochs, type KeyEntry } from './checker.js';
import { readReflectorEpochs } from './reflector-trace.js';
import { etcdClient, finalState, HistoryRecorder } from './etcd-truth.js';
import { FaultInjector, type FaultKind, type InjectedFault } from './injector.js';
import { Incrementer, Lister, NodeInformer, RawWatcher, Tally, Writer, type WorkloadContext } from './workload.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type FaultSuiteMode = 'short' | 'full';

export interface FaultSuiteOptions {
  mode: FaultSuiteMode;
  /** Progress lines (to stderr in the test). */
  log: (line: string) => void;
  /**
   * Seeds the order of the faults in each round, their targets' rotation start and the
   * workload's choices (keys, operations, watch timeouts), so a failing run can be replayed.
   */
  seed: number;
}

export interface FaultSuiteSummary {
  mode: FaultSuiteMode;
  seed: number;
  seconds: number;
  operations: number;
  operationCounts: Record<string, number>;
  events: number;
  eventCounts: Record<string, number>;
  faults: InjectedFault[];
  violations: string[];
  text: string;
}

const schedules: Record<FaultSuiteMode, { rounds: number; downMs: number; settleMs: number; warmupMs: number }> = {
  short: { rounds: 1, downMs: 500, settleMs: 300, warmupMs: 1000 },
  full: { rounds: 3, downMs: 5000, settleMs: 3000, warmupMs: 5000 },
};
const faultKinds: FaultKind[] = ['kill-replica', 'kill-etcd-member', 'kill-etcd-leader', 'partition-etcd-member', 'compact', 'restart-everything'];

/**
 * How long the client-go Reflector may take to equal etcd once the cluster is whole again.
 * After connection refusals its backoff manager (client-go 0.32: 800 ms doubling to 30 s,
 * jitter 1.0, reset only after 2 min without a failure) waits up to 60 s before the next
 * watch; a watch from before the restarted caches' start then gets 410 and the Reflector lists
 * again only after the next backoff, up to 60 s more. What it was told meanwhile is checked
 * against etcd's history exactly (reflector-trace.ts), so the wait bounds only its progress.
 */
const REFLECTOR_CONVERGENCE_SECONDS = 150;

/** mulberry32: a small seeded generator, so a seed replays the same choices. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The faults of one round in a seeded order (every kind once). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function retry<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: no success within ${timeoutMs} ms (${String(last)})`);
    await sleep(200);
  }
}

export async function runFaultSuite(options: FaultSuiteOptions): Promise<FaultSuiteSummary> {
  const schedule = schedules[options.mode];
  const started = Date.now();
  const log = (line: string) => options.log(`[faults ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
  const random = seededRandom(options.seed);
  const reflectorBuild = buildGoCommand('kapi-reflector');
  const cluster: ClusterTarget = await startClusterTarget();
  log(`cluster up: ${cluster.server}`);
  const client = new RestClient(cluster.server, { maxSockets: 32, timeoutMs: 10_000, ...(cluster.clientCertificate !== undefined ? { clientCertificate: cluster.clientCertificate } : {}) });
  const etcd = etcdClient(cluster.etcdEndpoints, cluster.etcdCredentials);
  const ns = 'faults';
  const prefix = `/registry/configmaps/${ns}/`;
  const violations: string[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  let recorded: HistoryRecorder | undefined;
  try {
    await ensureNamespace(client, ns);
    const recorder = await HistoryRecorder.start(etcd, prefix);
    recorded = recorder;
    cleanups.push(() => recorder.stop());
    const counterNames = ['counter-0', 'counter-1', 'counter-2'];
    for (const name of counterNames) {
      await client.expect(201, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: '0', ops: '' } });
    }

    const ctx: WorkloadContext = { client, namespace: ns, tally: new Tally(), maxAcked: 0n, stopped: false, random };
    const writers = Array.from({ length: 4 }, (_, i) => new Writer(ctx, `w${i}`, 16));
    const incrementers = Array.from({ length: 3 }, (_, i) => new Incrementer(ctx, `i${i}`, counterNames));
    const lister = new Lister(ctx);
    const watchers = Array.from({ length: 2 }, (_, i) => new RawWatcher(ctx, `raw-watch-${i}`, cluster.server, cluster.clientCertificate));
    cleanups.push(() => watchers.forEach((w) => w.stop()));
    const nodeInformer = new NodeInformer(cluster.kubeconfig, ns);
    cleanups.push(() => nodeInformer.stop());
    await nodeInformer.start();
    const reflectorTrace = join(cluster.local.dir, 'reflector-trace.jsonl');
    const { binary } = await reflectorBuild;
    const reflector = new LineProcess(binary, ['--kubeconfig', cluster.kubeconfig, '--namespace', ns, '--watch-timeout-seconds', '5', '--check-timeout', `${REFLECTOR_CONVERGENCE_SECONDS}s`, '--trace', reflectorTrace]);
    cleanups.push(() => reflector.kill());
    await reflector.next('synced', 60_000);
    log('informers synced; workload starts');

    const workloadStart = Date.now();
    const watcherLoops = watchers.map((w) => w.run());
    const loops = [...writers.map((w) => w.run()), ...incrementers.map((i) => i.run()), lister.run()];
    const injector = new FaultInjector({ cluster, etcd, recorder, downMs: schedule.downMs, startedAt: workloadStart, crashFirst: options.mode === 'short', backgroundReplicaRestart: options.mode === 'short' });
    await sleep(schedule.warmupMs);
    for (let round = 0; round < schedule.rounds; round++) {
      const order = shuffled(faultKinds, random);
      log(`round ${round + 1}: ${order.join(', ')}`);
      for (const kind of order) {
        const before = ctx.tally.total('');
        const fault = await injector.inject(kind);
        log(`fault ${kind} ${fault.target}: ${fault.seconds.toFixed(1)} s${fault.detail ? ` (${fault.detail})` : ''}; ${ctx.tally.total('') - before} operations meanwhile`);
        if (kind === 'compact') violations.push(...(await expiredProbe(cluster.server, ns, recorder.fromRevision, cluster.clientCertificate)));
        await sleep(schedule.settleMs);
      }
    }
    await injector.settle();
    ctx.stopped = true;
    await Promise.all(loops);
    log(`workload stopped after ${((Date.now() - workloadStart) / 1000).toFixed(1)} s`);

    // Everything up again (idempotent), then one last write every watcher and informer must see.
    await cluster.local.ok(['up'], 180_000);
    const marker = await retry('final marker', async () => {
      const res = await client.request<KubeObject>('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'final-marker' }, data: { v: 'end' } });
      if (res.status === 201) return res.body.metadata.resourceVersion;
      if (res.status === 409) {
        const got = await client.request<KubeObject>('GET', `/api/v1/namespaces/${ns}/configmaps/final-marker`);
        return got.status === 200 ? got.body.metadata.resourceVersion : undefined;
      }
      return undefined;
    });
    const end = BigInt(marker);
    log(`cluster whole again; final marker at ${end}`);
    await recorder.waitFor(end);
    const final = await finalState(etcd, prefix);

    // Watchers: caught up to the marker, then stopped; informers: equal to etcd's final state.
    const caughtUp = await waitUntil(() => watchers.every((w) => w.lastResourceVersion >= end), 30_000);
    if (!caughtUp) violations.push(`raw watchers did not reach the final revision ${end}: ${watchers.map((w) => `${w.name}@${w.lastResourceVersion}`).join(', ')}`);
    await waitUntil(() => watchers.every((w) => checkStore('', w.store, final.revisions).length === 0), 10_000);
    for (const w of watchers) w.stop();
    await Promise.all(watcherLoops);
    await waitUntil(() => checkStore('', nodeInformer.store(), final.revisions).length === 0, 30_000);
    log('watchers caught up, client-node informer converged');
    for (const w of watchers) violations.push(...checkStore(`${w.name} store (raw-watch informer)`, w.store, final.revisions));
    violations.push(...checkStore('client-node informer', nodeInformer.store(), final.revisions));
    // The Reflector: equal to etcd once its backoff lets it catch up, and everything it was
    // told on the way, list by list and event by event, equal to etcd's history.
    reflector.send('check');
    const reflectorResult = await reflector.next('result', (REFLECTOR_CONVERGENCE_SECONDS + 30) * 1000);
    const diff = (reflectorResult.diff as string[] | undefined) ?? [];
    if (reflectorResult.match !== true) violations.push(`client-go reflector differs from a fresh list after ${REFLECTOR_CONVERGENCE_SECONDS} s: ${diff.slice(0, 5).join(', ')}`);
    for (const v of (reflectorResult.violations as string[] | undefined) ?? []) violations.push(`client-go reflector: ${v}`);
    if (Number(reflectorResult.listCount) !== final.revisions.size) violations.push(`client-go reflector's fresh list has ${String(reflectorResult.listCount)} objects, etcd ${final.revisions.size}`);
    const reflectorEpochs = readReflectorEpochs(reflectorTrace);
    violations.push(...checkWatchEpochs(reflectorEpochs, recorder.events, recorder.fromRevision));
    violations.push(...checkListedStates(reflectorEpochs, recorder.initial, recorder.events, recorder.fromRevision));
    log(`client-go reflector equal to etcd after ${String(reflectorResult.convergedAfterSeconds)} s; ${reflectorEpochs.length} lists and ${reflectorEpochs.reduce((n, e) => n + e.resumes.length, 0)} watches checked against etcd's history`);
    // Writes, counters, lists, watch histories.
    const logs = new Map<string, KeyEntry[]>();
    for (const w of writers) for (const [k, v] of w.logs) logs.set(k, v);
    violations.push(...checkKeys(logs, final.states));
    for (const w of writers) violations.push(...w.violations);
    const finals = new Map(counterNames.map((c) => {
      const data = (final.values.get(c)?.data ?? undefined) as Record<string, string> | undefined;
      return [c, data ? { n: Number(data.n), ops: data.ops ? data.ops.split(',') : [] } : undefined] as const;
    }));
    violations.push(...checkCounters(incrementers[0]!.records(finals, incrementers)));
    violations.push(...checkLists(lister.lists), ...lister.violations);
    const history = recorder.events.filter((e) => BigInt(e.resourceVersion) <= end);
    violations.push(...checkWatchEpochs(watchers.flatMap((w) => w.epochs), history, recorder.fromRevision));
    violations.push(...checkListedStates(watchers.flatMap((w) => w.epochs), recorder.initial, history, recorder.fromRevision));

    const t = ctx.tally;
    const operationCounts = Object.fromEntries([...t.counts].sort());
    const operations = t.total('');
    const eventCounts: Record<string, number> = {
      'raw-watch events': watchers.reduce((a, w) => a + w.events, 0),
      'raw-watch bookmarks': watchers.reduce((a, w) => a + w.bookmarks, 0),
      'raw-watch resumes': watchers.reduce((a, w) => a + w.resumes, 0),
      'raw-watch relists (410)': watchers.reduce((a, w) => a + w.relists, 0),
      'raw-watch error events': watchers.reduce((a, w) => a + w.errors, 0),
      'client-node informer notifications': nodeInformer.adds + nodeInformer.updates + nodeInformer.deletes,
      'client-node informer lists': nodeInformer.lists,
      'client-node informer errors': nodeInformer.errors,
      'client-go reflector watch events': Number(reflectorResult.watchEvents ?? 0),
      'client-go reflector bookmarks': Number(reflectorResult.bookmarks ?? 0),
      'client-go reflector lists': Number(reflectorResult.lists ?? 0),
      'etcd history events': history.length,
    };
    const events = eventCounts['raw-watch events']! + eventCounts['raw-watch bookmarks']! + eventCounts['client-node informer notifications']! + (eventCounts['client-go reflector watch events'] ?? 0);
    const seconds = (Date.now() - started) / 1000;
    const text = [
      `fault suite (${options.mode}, seed ${options.seed}): ${seconds.toFixed(1)} s, final revision ${end}, ${final.revisions.size} objects`,
      `  operations: ${operations} (${Object.entries(operationCounts).map(([k, v]) => `${k} ${v}`).join(', ')})`,
      `  events: ${events} (${Object.entries(eventCounts).map(([k, v]) => `${k} ${v}`).join(', ')})`,
      `  watch errors seen (resumed from the last resourceVersion): ${[...new Set(watchers.flatMap((w) => [...w.errorSamples]))].join(' | ') || 'none'}`,
      `  faults injected: ${injector.injected.length} (${injector.injected.map((f) => `${f.kind} ${f.target} ${f.seconds.toFixed(1)}s`).join('; ')})`,
      `  violations = ${violations.length}${violations.length > 0 ? `:\n    ${violations.slice(0, 30).join('\n    ')}` : ''}`,
    ].join('\n');
    return { mode: options.mode, seed: options.seed, seconds, operations, operationCounts, events, eventCounts, faults: injector.injected, violations, text };
  } finally {
    for (const c of cleanups.reverse()) await c();
    if (violations.length > 0 || process.env.KAPI_FAULTS_KEEP === '1') keepEvidence(cluster, recorded, log);
    client.close();
    etcd.close();
    // Nothing is checked any more and the data goes: SIGKILL everything rather than wait out
    // the replicas' shutdown delay and etcd's one-member-at-a-time stop.
    const t0 = Date.now();
    await Promise.all(Object.keys(cluster.info.processes).map((p) => cluster.local.run(['kill', p])));
    await cluster.stop();
    log(`cluster removed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}

/**
 * Copies the cluster's logs (every replica, etcd member and the balancer), the client-go
 * reflector's trace and etcd's recorded history of the namespace to `.data/faults-evidence/<time>/` (or $KAPI_FAULTS_EVIDENCE) before the
 * cluster directory is removed, so a violation can be traced to requests and replicas.
 */
function keepEvidence(cluster: ClusterTarget, recorder: HistoryRecorder | undefined, log: (line: string) => void): void {
  const into = process.env.KAPI_FAULTS_EVIDENCE ?? join(repoRoot, '.data', 'faults-evidence', new Date().toISOString().replace(/[:.]/g, '-'));
  try {
    mkdirSync(into, { recursive: true });
    cpSync(join(cluster.local.dir, 'logs'), join(into, 'logs'), { recursive: true });
    const trace = join(cluster.local.dir, 'reflector-trace.jsonl');
    if (existsSync(trace)) cpSync(trace, join(into, 'reflector-trace.jsonl'));
    if (recorder !== undefined) {
      const lines = [JSON.stringify({ fromRevision: String(recorder.fromRevision), initial: Object.fromEntries(recorder.initial) }), ...recorder.events.map((e) => JSON.stringify(e))];
      writeFileSync(join(into, 'etcd-history.jsonl'), `${lines.join('\n')}\n`);
    }
    log(`evidence kept in ${into}`);
  } catch (err) {
    log(`could not keep the evidence: ${String(err)}`);
  }
}

async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * After a compaction, a watch from a compacted revision must end in 410 Expired (an ERROR
 * event or the status) once the replica the balancer picks has seen
 * the compaction recorded in compact_rev_key (they watch it; allow them a few seconds).
 */
async function expiredProbe(server: string, ns: string, compactedRevision: bigint, clientCertificate?: { cert: string; key: string }): Promise<string[]> {
  let streamed = 0;
  for (let attempt = 0; attempt < 20; attempt++) {
    let code: number | undefined;
    const stream = openWatch<{ code?: number }>(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${compactedRevision}&timeoutSeconds=1`, (event) => {
      if (event.type === 'ERROR') code = event.object.code;
    }, {}, clientCertificate);
    const end = await stream.done;
    if (end.status === 410 || code === 410) return [];
    if (end.status === 200 && code === undefined) streamed++;
    await sleep(200); // the cluster is not answering yet, or a replica has not seen the compaction yet
  }
  return streamed > 0
    ? [`a watch from compacted revision ${compactedRevision} streamed without 410 (${streamed} of 20 attempts)`]
    : [`a watch from compacted revision ${compactedRevision}: no answer`];
}
