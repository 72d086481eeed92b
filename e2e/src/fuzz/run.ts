/**
 * The fuzz run: etcd and one kapi-apiserver (the e2e harness), the fuzzer's namespaces and
 * CRD, then `streams` fast-check streams (seeds seed, seed+1, …) sending one case at a time
 * each until the time is up, while a worker probes `/readyz`, and `kapi-typed decode-check`
 * and a `/metrics` scrape run every `checkEveryMs` and at the end. Every finding is judged
 * against the known-open table; the rest are violations, each with its replay.
 */
import fc from 'fast-check';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { RestClient } from '../harness/rest.js';
import { buildKapiTyped } from '../representations/go-typed.js';
import type { Finding } from './invariants.js';
import { judge } from './invariants.js';
import { KNOWN_OPEN, knownOpenClass, signature } from './known-open.js';
import { READYZ_LIMIT_MS, startReadyzProbe, type ProbeReport } from './readyz-probe.js';
import { ServerCpu } from './server-cpu.js';
import { fuzzCase, type FuzzCase, type FuzzRequest } from './requests.js';
import { FUZZ_CRD, WORK_NAMESPACES } from './resources.js';
import { Sender } from './send.js';
import { ShapeCounts } from './shapes.js';
import { typedCheck } from './typed-check.js';

export interface FuzzOptions {
  readonly seed: number;
  /** How long cases are sent. */
  readonly seconds: number;
  /** Concurrent streams (seeds seed … seed+streams-1). */
  readonly streams: number;
  /** Replay one case: the stream's seed is `seed`, the case is fast-check's path (`FUZZ_PATH`). */
  readonly replayPath?: string;
  readonly checkEveryMs: number;
  readonly log: (line: string) => void;
}

/** Where a case came from: `make fuzz FUZZ_SEED=<seed> FUZZ_PATH=<path>` sends it again. */
export interface Replay {
  readonly seed: number;
  readonly path: string;
}

export interface Recorded {
  readonly finding: Finding;
  readonly replay?: Replay;
}

export interface FuzzSummary {
  readonly requests: number;
  readonly seconds: number;
  readonly violations: readonly Recorded[];
  readonly known: ReadonlyMap<string, number>;
  /** The first finding each known-open class absorbed (for the report). */
  readonly knownExamples: ReadonlyMap<string, Recorded>;
  readonly probe: ProbeReport;
  /** Slow probes during which the server's thread ran under 1 s of CPU: the machine's load, not kapi (see server-cpu.ts). */
  readonly slowUnderLoad: { readonly count: number; readonly maxMs: number; readonly maxCpuMs: number };
  readonly typedChecks: number;
  readonly storedObjects: number;
  readonly shapes: ShapeCounts;
  readonly restarts: number;
}

interface InFlight {
  readonly request: FuzzRequest;
  readonly start: number;
  end?: number;
}

/** Series of apiserver_request_total past which bogus paths are taken to add series. */
export const MAX_REQUEST_SERIES = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function prepare(client: RestClient): Promise<void> {
  for (const name of WORK_NAMESPACES) await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const crd = await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', FUZZ_CRD);
  if (crd.status !== 201 && crd.status !== 409) throw new Error(`create the fuzz CRD: ${crd.status} ${crd.text}`);
  for (let i = 0; ; i++) {
    const res = await client.request('GET', `/apis/fuzz.example.com/v1/namespaces/${WORK_NAMESPACES[0]}/widgets`);
    if (res.status === 200) return;
    if (i > 100) throw new Error(`the fuzz CRD is not served: ${res.status} ${res.text}`);
    await sleep(100);
  }
}

/** Object identity across API versions (core and events.k8s.io Events, Lease versions share storage). */
function storageKey(resource: string, namespace: string | undefined, name: string | undefined): string {
  return `${resource}/${namespace ?? ''}/${name ?? ''}`;
}

function writtenKey(c: FuzzCase, body: Buffer): string | undefined {
  try {
    const obj = JSON.parse(body.toString('utf8')) as { kind?: string; metadata?: { name?: string; namespace?: string } };
    if (obj.kind === 'Status' || obj.metadata?.name === undefined) return undefined;
    return storageKey(c.shape.resource.split('/').at(-1)!, obj.metadata.namespace, obj.metadata.name);
  } catch {
    return undefined;
  }
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const { log } = options;
  // The fuzzed resources include the deprecated betas kube 1.32 no longer serves: turned on here.
  const [built, cluster] = await Promise.all([buildKapiTyped(), startCluster({ server: { extraArgs: ['--runtime-config=coordination.k8s.io/v1beta1=true,events.k8s.io/v1beta1=true'] } })]);
  log(`kapi-typed built in ${built.seconds.toFixed(1)} s; server ${cluster.servers[0]!.url}`);
  try {
    return await fuzzAgainst(cluster, built.binary, options);
  } finally {
    await cluster.stop();
  }
}

async function fuzzAgainst(cluster: TestCluster, typedBinary: string, options: FuzzOptions): Promise<FuzzSummary> {
  const { log } = options;
  const server = cluster.servers[0]!;
  const trusted = new RestClient(server.url, { maxSockets: 4 });
  const sender = new Sender({ baseUrl: server.url, maxSockets: options.streams * 2 });
  await prepare(trusted);
  const probe = startReadyzProbe(server.url);
  const serverCpu = new ServerCpu(() => server.pid());
  const slowUnderLoad = { count: 0, maxMs: 0, maxCpuMs: 0 };

  const violations: Recorded[] = [];
  const known = new Map<string, number>(KNOWN_OPEN.map((k) => [k.id, 0]));
  const knownExamples = new Map<string, Recorded>();
  const shapes = new ShapeCounts();
  const lastWriter = new Map<string, { request: FuzzRequest; replay: Replay }>();
  const recent: InFlight[] = [];
  const downtimes: { from: number; to: number }[] = [];
  const reportedStored = new Set<string>();
  let requests = 0;
  let restarts = 0;
  let typedChecks = 0;
  let storedObjects = 0;
  let restarting: Promise<void> | undefined;

  const record = (finding: Finding, replay?: Replay): void => {
    const cls = knownOpenClass(finding);
    if (cls) {
      known.set(cls.id, (known.get(cls.id) ?? 0) + 1);
      if (!knownExamples.has(cls.id)) knownExamples.set(cls.id, { finding, ...(replay ? { replay } : {}) });
      return;
    }
    violations.push({ finding, ...(replay ? { replay } : {}) });
    log(`VIOLATION ${signature(finding)}${replay ? ` (replay: FUZZ_SEED=${replay.seed} FUZZ_PATH=${replay.path})` : ''}`);
  };

  /**
   * After an exchange without a response: whether the process died. The first caller records
   * the crash (with the requests in flight as suspects), restarts the server and keeps the
   * downtime; callers meanwhile wait for that and get true as well.
   */
  let recovery: Promise<boolean> | undefined;
  const handleCrash = (request: FuzzRequest, replay: Replay, sentAt: number): Promise<boolean> => {
    // A request sent before the last restart finished failed because of that crash.
    if (downtimes.some((d) => sentAt <= d.to)) return Promise.resolve(true);
    recovery ??= (async () => {
      await sleep(200);
      if (server.running()) return false;
      const from = sentAt - 1000;
      const suspects = recent.filter((r) => r.end === undefined && r.request !== request).map((r) => r.request);
      record({ invariant: 'crash', request, suspects, detail: `the server exited; its last output:\n${server.output().slice(-3000)}` }, replay);
      restarting = (async () => {
        await server.restart();
        restarts++;
        await prepare(trusted);
      })();
      await restarting;
      restarting = undefined;
      downtimes.push({ from, to: Date.now() });
      return true;
    })().finally(() => (recovery = undefined));
    return recovery;
  };

  const runCase = async (c: FuzzCase, replay: Replay): Promise<void> => {
    if (restarting) await restarting;
    if (c.ensure) await trusted.request('POST', c.ensure.path, c.ensure.body).catch(() => undefined);
    const flight: InFlight = { request: c.request, start: Date.now() };
    recent.push(flight);
    const res = await sender.send(c.request);
    flight.end = Date.now();
    requests++;
    shapes.record(c, res);
    if (res.status >= 200 && res.status < 300 && (c.request.method === 'POST' || c.request.method === 'PUT' || c.request.method === 'PATCH')) {
      const key = writtenKey(c, res.body);
      if (key) lastWriter.set(key, { request: c.request, replay });
    }
    const finding = judge(c.request, res);
    if (finding?.invariant === 'no-response' && (await handleCrash(c.request, replay, flight.start))) return;
    // The server stayed up: its log of the moment goes with the finding.
    if (finding?.invariant === 'no-response') record({ ...finding, detail: `${finding.detail}; the server's last output:\n${server.output().slice(-2000)}` }, replay);
    else if (finding) record(finding, replay);
  };

  const stream = async (k: number): Promise<void> => {
    const seed = options.seed + k;
    let index = options.replayPath !== undefined ? Number(options.replayPath.split(':')[0]) : 0;
    await fc.assert(
      fc.asyncProperty(fuzzCase, async (c) => {
        const replay = { seed, path: String(index++) };
        if (options.replayPath !== undefined) log(`replaying ${c.request.method} ${c.request.path}`);
        await runCase(c, replay);
        return true;
      }),
      {
        seed,
        ...(options.replayPath !== undefined ? { path: options.replayPath, numRuns: 1 } : { numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: options.seconds * 1000, markInterruptAsFailure: false }),
        endOnFailure: true,
      },
    );
  };

  const checkStored = async (): Promise<void> => {
    const result = await typedCheck(typedBinary, cluster.kubeconfig());
    typedChecks++;
    storedObjects = result.objects;
    for (const u of result.undecodable) {
      const key = `${u.resource}/${u.namespace ?? ''}/${u.name ?? ''}: ${u.error}`;
      if (reportedStored.has(key)) continue;
      reportedStored.add(key);
      const writer = lastWriter.get(storageKey(u.resource, u.namespace, u.name));
      record({ invariant: 'stored-undecodable', ...(writer ? { request: writer.request } : {}), detail: `${u.wire} ${u.group}/${u.version} ${u.resource} ${u.namespace ?? ''}/${u.name ?? ''}: ${u.error}` }, writer?.replay);
    }
  };

  const checkMetrics = async (): Promise<void> => {
    const res = await trusted.request('GET', '/metrics');
    const series = res.text.split('\n').filter((l) => l.startsWith('apiserver_request_total{')).length;
    if (series > MAX_REQUEST_SERIES) record({ invariant: 'metrics-cardinality', detail: `${series} apiserver_request_total series after ${requests} requests` });
  };

  let probesJudged = 0;
  const judgeProbes = (report: ProbeReport): void => {
    for (const slow of report.slow.slice(probesJudged)) {
      const to = slow.at + slow.ms;
      if (downtimes.some((d) => slow.at <= d.to && to >= d.from)) continue;
      // The invariant is kapi's: /readyz within 1 s on a machine that runs it. A probe answered
      // 200 late while the server's thread ran less than that limit of CPU waited for a core,
      // not for kapi's loop; it is counted, not a violation.
      const cpuMs = serverCpu.ranDuring(slow.at, to);
      if (slow.status === 200 && slow.error === undefined && cpuMs !== undefined && cpuMs < READYZ_LIMIT_MS) {
        slowUnderLoad.count++;
        slowUnderLoad.maxMs = Math.max(slowUnderLoad.maxMs, slow.ms);
        slowUnderLoad.maxCpuMs = Math.max(slowUnderLoad.maxCpuMs, cpuMs);
        continue;
      }
      const suspects = recent.filter((r) => r.start <= to && (r.end ?? Infinity) >= slow.at).map((r) => r.request);
      const ran = cpuMs === undefined ? 'its CPU time unknown' : `the server's thread ran ${cpuMs.toFixed(0)} ms of CPU meanwhile`;
      record({ invariant: 'readyz-slow', suspects, detail: `/readyz at ${new Date(slow.at).toISOString()}: ${slow.ms.toFixed(0)} ms, status ${slow.status}${slow.error ? `, ${slow.error}` : ''}; ${ran}; ${suspects.length} requests in flight` });
    }
    probesJudged = report.slow.length;
  };

  const started = Date.now();
  let sending = true;
  const checker = (async () => {
    while (sending) {
      await sleep(1000);
      judgeProbes(await probe.report());
      // Keep `recent` to the last minute (slow probes were just judged against it).
      const cutoff = Date.now() - 60_000;
      while (recent.length > 0 && recent[0]!.end !== undefined && recent[0]!.end < cutoff) recent.shift();
      if (!sending || Date.now() - started < options.checkEveryMs * (typedChecks + 1)) continue;
      if (restarting) await restarting;
      await checkStored().catch((err: unknown) => log(`typed check failed: ${String(err)}`));
      await checkMetrics().catch((err: unknown) => log(`metrics check failed: ${String(err)}`));
      log(`${((Date.now() - started) / 1000).toFixed(0)} s: ${requests} requests, ${violations.length} violations, known open ${[...known].filter(([, n]) => n > 0).map(([id, n]) => `${id} ${n}`).join(', ') || 'none'}`);
    }
  })();

  try {
    const streams = options.replayPath !== undefined ? 1 : options.streams;
    await Promise.all(Array.from({ length: streams }, (_, k) => stream(k)));
  } finally {
    sending = false;
    await checker;
  }
  const seconds = (Date.now() - started) / 1000;
  if (restarting) await restarting;
  if (!server.running()) await handleCrash({ method: '(end)', path: '', headers: {} }, { seed: options.seed, path: 'end' }, Date.now());
  await checkStored();
  await checkMetrics();
  const probeReport = await probe.stop();
  await sleep(100);
  judgeProbes(probeReport);
  serverCpu.stop();
  sender.close();
  trusted.close();
  return { requests, seconds, violations, known, knownExamples, probe: probeReport, slowUnderLoad, typedChecks, storedObjects, shapes, restarts };
}
