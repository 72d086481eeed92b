/**
 * S6: representations. (a) LIST of the S3 ConfigMaps from the watch cache as JSON, as
 * protobuf (what client-go's typed clients and informers ask for) and as kubectl's Table
 * (one 500-item page): throughput, latency, body bytes and server CPU per list. (b) Watch
 * encode cost: N watchers on one collection, all JSON or all protobuf, while a writer updates
 * 1 KiB ConfigMaps at a steady rate; the server's CPU per written event (for N watchers), and
 * the events each watcher received (every watcher must see every write).
 */
import { setMaxListeners } from 'node:events';
import { Pool } from 'undici';
import { authFor, authHeaders, poolFor } from './target.js';
import type { BenchContext, MeasuredRun } from './context.js';
import { failedRun, measureClosedLoop } from './context.js';
import { KapiClient, oneKibData } from './kapi-client.js';
import { listNamespace, loadListObjects } from './list-scenario.js';
import { monitorProcess } from './process-stats.js';

const PB = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export type Representation = 'json' | 'protobuf' | 'table-page';

export interface RepresentationListStep extends MeasuredRun {
  representation: Representation;
  accept: string;
  bodyBytes: number;
  serverCpuMsPerOp: number | undefined;
}

export interface WatchEncodeStep {
  encoding: 'json' | 'protobuf';
  watchers: number;
  writes: number;
  writeErrors: number;
  /** Events received over all watchers / (writes × watchers): 1 when nobody missed anything. */
  deliveredRatio: number;
  bytesPerEvent: number;
  /** Server CPU ms per written event (encoding it once and writing it to every watcher). */
  serverCpuMsPerEvent: number | undefined;
  errorSamples: string[];
}

export interface RepresentationScenarioResult {
  objects: number;
  lists: RepresentationListStep[];
  watch: WatchEncodeStep[];
}

export interface RepresentationScenarioOptions {
  objects: number;
  /** The S3 objects are there already (the list scenario ran). */
  alreadyLoaded: boolean;
  concurrency: readonly number[];
  durationMs: number;
  watchers: number;
  /** Writes per second during the watch step. */
  watchRate: number;
}

async function getBody(pool: Pool, path: string, accept: string, auth: Record<string, string>): Promise<number> {
  const res = await pool.request({ method: 'GET', path, headers: { accept, ...auth } });
  if (res.statusCode !== 200) throw new Error(`GET ${path} (${accept}): ${res.statusCode} ${(await res.body.text()).slice(0, 200)}`);
  let bytes = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) bytes += chunk.length;
  return bytes;
}

async function measureLists(ctx: BenchContext, options: RepresentationScenarioOptions): Promise<RepresentationListStep[]> {
  const path = `/api/v1/namespaces/${listNamespace}/configmaps?resourceVersion=0`;
  const variants: { representation: Representation; accept: string; path: string }[] = [
    { representation: 'json', accept: 'application/json', path },
    { representation: 'protobuf', accept: `${PB},application/json`, path },
    { representation: 'table-page', accept: TABLE, path: `${path}&limit=500` },
  ];
  const steps: RepresentationListStep[] = [];
  const maxConcurrency = Math.max(...options.concurrency);
  for (const concurrency of options.concurrency) {
    for (const v of variants) {
      const pool = poolFor(ctx.url, maxConcurrency);
      const auth = authHeaders(ctx.url);
      try {
        let bodyBytes = await getBody(pool, v.path, v.accept, auth);
        const run = await measureClosedLoop(
          async () => {
            bodyBytes = await getBody(pool, v.path, v.accept, auth);
          },
          { concurrency, durationMs: options.durationMs, warmupMs: Math.min(ctx.warmupMs, 2000), pids: { server: ctx.kapiPid } },
        );
        const server = run.usage.server;
        const serverCpuMsPerOp = server && run.ops + run.errors > 0 ? (server.cpuSeconds * 1000) / (run.ops + run.errors) : undefined;
        steps.push({ ...run, representation: v.representation, accept: v.accept, bodyBytes, serverCpuMsPerOp });
        ctx.log(
          `list as ${v.representation.padEnd(10)} c=${concurrency} ${run.opsPerSecond.toFixed(1).padStart(7)}/s  p50 ${run.latency.p50.toFixed(1)} ms  p99 ${run.latency.p99.toFixed(1)} ms  ` +
            `${(bodyBytes / 1024).toFixed(0)} KiB  server ${serverCpuMsPerOp?.toFixed(1) ?? '?'} ms CPU/list  errors ${run.errors}`,
        );
      } catch (err) {
        steps.push({ ...failedRun(concurrency, err), representation: v.representation, accept: v.accept, bodyBytes: 0, serverCpuMsPerOp: undefined });
      } finally {
        await pool.close();
      }
    }
  }
  return steps;
}

/** Counts complete events in a watch body: newline-terminated JSON, or length-prefixed protobuf frames. */
function eventCounter(encoding: 'json' | 'protobuf'): (chunk: Buffer) => number {
  if (encoding === 'json') return (chunk) => chunk.reduce((n, b) => (b === 0x0a ? n + 1 : n), 0);
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let n = 0;
    let offset = 0;
    while (pending.length - offset >= 4) {
      const length = pending.readUInt32BE(offset);
      if (pending.length - offset - 4 < length) break;
      offset += 4 + length;
      n++;
    }
    pending = pending.subarray(offset);
    return n;
  };
}

async function measureWatch(ctx: BenchContext, encoding: 'json' | 'protobuf', options: RepresentationScenarioOptions): Promise<WatchEncodeStep> {
  const namespace = 'kapi-bench-representations';
  const objects = 32;
  const writer = new KapiClient(ctx.url, 8);
  const auth = authFor(ctx.url);
  const watchPool = new Pool(ctx.url, {
    connections: options.watchers,
    pipelining: 1,
    connect: auth ? { rejectUnauthorized: auth.insecure !== true, ...(auth.ca ? { ca: auth.ca } : {}), ...(auth.cert ? { cert: auth.cert } : {}), ...(auth.key ? { key: auth.key } : {}) } : { rejectUnauthorized: false },
    bodyTimeout: 0,
    headersTimeout: 30_000,
  });
  const errorSamples: string[] = [];
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  let received = 0;
  let bytes = 0;
  let writes = 0;
  let writeErrors = 0;
  try {
    await writer.ensureNamespace(namespace);
    for (let i = 0; i < objects; i++) {
      await writer.createConfigMap(namespace, `enc-${i}`, oneKibData).catch(() => undefined);
    }
    const list = await writer.json<{ metadata: { resourceVersion: string } }>('GET', `/api/v1/namespaces/${namespace}/configmaps`, 200);
    const accept = encoding === 'json' ? 'application/json' : `${PB},application/json`;
    const path = `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=600`;
    const open: Promise<void>[] = [];
    let connected = 0;
    for (let w = 0; w < options.watchers; w++) {
      open.push(
        (async () => {
          const res = await watchPool.request({ method: 'GET', path, headers: { accept, ...authHeaders(ctx.url) }, signal: abort.signal });
          if (res.statusCode !== 200) throw new Error(`watch: ${res.statusCode}`);
          connected++;
          const count = eventCounter(encoding);
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            received += count(chunk);
            bytes += chunk.length;
          }
        })().catch((err: unknown) => {
          if (!abort.signal.aborted && errorSamples.length < 5) errorSamples.push(err instanceof Error ? err.message : String(err));
        }),
      );
    }
    const deadline = Date.now() + 60_000;
    while (connected < options.watchers && Date.now() < deadline && errorSamples.length === 0) await new Promise((r) => setTimeout(r, 50));

    const monitor = ctx.kapiPid !== undefined ? monitorProcess(ctx.kapiPid) : undefined;
    const started = performance.now();
    const intervalMs = 1000 / options.watchRate;
    for (let i = 0; performance.now() - started < options.durationMs; i++) {
      const due = started + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        await writer.json('PATCH', `/api/v1/namespaces/${namespace}/configmaps/enc-${i % objects}`, 200, { data: { payload: oneKibData['payload'], seq: String(i) } }, 'application/merge-patch+json');
        writes++;
      } catch (err) {
        writeErrors++;
        if (errorSamples.length < 5) errorSamples.push(err instanceof Error ? err.message : String(err));
      }
    }
    const usage = monitor?.finish();
    // Let the last events arrive before counting.
    const expected = writes * options.watchers;
    const settle = Date.now() + 10_000;
    while (received < expected && Date.now() < settle) await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await Promise.all(open);
    const step: WatchEncodeStep = {
      encoding,
      watchers: options.watchers,
      writes,
      writeErrors,
      deliveredRatio: expected > 0 ? received / expected : 0,
      bytesPerEvent: received > 0 ? bytes / received : 0,
      serverCpuMsPerEvent: usage && writes > 0 ? (usage.cpuSeconds * 1000) / writes : undefined,
      errorSamples,
    };
    ctx.log(
      `watch as ${encoding.padEnd(8)} ${options.watchers} watchers: ${writes} writes, delivered ${(step.deliveredRatio * 100).toFixed(1)}%, ` +
        `${step.bytesPerEvent.toFixed(0)} B/event, server ${step.serverCpuMsPerEvent?.toFixed(2) ?? '?'} ms CPU per event`,
    );
    return step;
  } finally {
    abort.abort();
    await watchPool.close().catch(() => undefined);
    await writer.close();
  }
}

export async function runRepresentationScenario(ctx: BenchContext, options: RepresentationScenarioOptions): Promise<RepresentationScenarioResult> {
  if (!options.alreadyLoaded) await loadListObjects(ctx, options.objects);
  const lists = await measureLists(ctx, options);
  const watch: WatchEncodeStep[] = [];
  for (const encoding of ['json', 'protobuf'] as const) {
    try {
      watch.push(await measureWatch(ctx, encoding, options));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      ctx.log(`watch as ${encoding} failed: ${message}`);
      watch.push({ encoding, watchers: options.watchers, writes: 0, writeErrors: 1, deliveredRatio: 0, bytesPerEvent: 0, serverCpuMsPerEvent: undefined, errorSamples: [message] });
    }
  }
  return { objects: options.objects, lists, watch };
}

/** Report rows: one per list representation and concurrency, then one per watch encoding. */
export function representationRows(result: RepresentationScenarioResult): string[][] {
  const rows = [['what', 'c', 'ops/s', 'p50 ms', 'p99 ms', 'body KiB', 'server CPU ms/op', 'errors']];
  for (const s of result.lists) {
    rows.push([`LIST ${result.objects} as ${s.representation}`, String(s.concurrency), s.opsPerSecond.toFixed(1), s.latency.p50.toFixed(1), s.latency.p99.toFixed(1), (s.bodyBytes / 1024).toFixed(0), s.serverCpuMsPerOp?.toFixed(1) ?? '-', String(s.errors)]);
  }
  for (const w of result.watch) {
    rows.push([
      `watch event as ${w.encoding} to ${w.watchers} watchers (${(w.deliveredRatio * 100).toFixed(1)}% delivered, ${w.bytesPerEvent.toFixed(0)} B)`,
      '-',
      String(w.writes),
      '-',
      '-',
      '-',
      w.serverCpuMsPerEvent?.toFixed(2) ?? '-',
      String(w.writeErrors + w.errorSamples.length),
    ]);
  }
  return rows;
}
