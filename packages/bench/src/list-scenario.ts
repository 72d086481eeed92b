/**
 * S3 (part): LIST of N ConfigMaps of ≈1 KiB, served from the watch cache (RV=0), as a
 * most-recent read (RV unset) by the same server, from etcd (RV unset on a second server with
 * --watch-cache=false), and the same pre-encoded bytes from a bare node:http server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failedRun, measureClosedLoop, type BenchContext, type MeasuredRun } from './context.js';
import { loadConfigMaps } from './fixtures.js';
import { KapiClient, oneKibData } from './kapi-client.js';

export const listNamespace = 'kapi-bench-list';

export type ListSource = 'kapi-cache' | 'kapi-most-recent' | 'kapi-page' | 'kapi-selector-miss' | 'kapi-etcd' | 'bare';

export interface ListStep extends MeasuredRun {
  source: ListSource;
  /** What was requested, for the report. */
  request: string;
  /** Bytes of one response body. */
  bodyBytes: number;
  /** Items in the response checked before measuring. */
  items: number;
  /** Body megabytes (10^6) per second. */
  megabytesPerSecond: number;
  /** CPU ms of the serving process per list. */
  serverCpuMsPerOp: number | undefined;
}

export interface ListScenarioResult {
  objects: number;
  /** Mean JSON bytes of one item as encoded in the list. */
  itemBytes: number;
  loadSeconds: number;
  loadErrors: number;
  steps: ListStep[];
  skipped: string[];
}

export interface ListScenarioOptions {
  objects: number;
  /** ConfigMaps list-0… already loaded by an earlier run (only the rest are loaded). */
  alreadyLoaded?: number;
  /** A shorter pass (a further size): no etcd server and no first page; concurrent lists only from the cache and the bare server. */
  lite?: boolean;
  concurrency: readonly number[];
  durationMs: number;
}

/**
 * Makes ConfigMaps `list-<from>`…`list-<objects-1>` (1 KiB of data) exist in
 * {@link listNamespace}, as copies in etcd when the suite knows the server's etcd, else through
 * the API ({@link loadConfigMaps}). Returns the load time and the number of failures.
 */
export async function loadListObjects(ctx: BenchContext, objects: number, from = 0): Promise<{ seconds: number; errors: number; samples: string[] }> {
  try {
    const seconds = await loadConfigMaps(ctx, ctx.url, ctx.serverEtcd, { namespaces: [listNamespace], perNamespace: objects, namePrefix: 'list-', data: oneKibData, from });
    return { seconds, errors: 0, samples: [] };
  } catch (err) {
    return { seconds: Number.NaN, errors: 1, samples: [err instanceof Error ? err.message : String(err)] };
  }
}

interface ListBody {
  items?: { metadata?: { name?: string } }[];
}

export async function runListScenario(ctx: BenchContext, options: ListScenarioOptions): Promise<ListScenarioResult> {
  const load = await loadListObjects(ctx, options.objects, Math.min(options.alreadyLoaded ?? 0, options.objects));
  const path = `/api/v1/namespaces/${listNamespace}/configmaps`;
  const steps: ListStep[] = [];
  const skipped: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-list-'));
  const maxConcurrency = Math.max(...options.concurrency);
  try {
    const probe = new KapiClient(ctx.url, 1);
    const first = await probe.getBody(`${path}?resourceVersion=0`, true);
    await probe.close();
    const parsed = JSON.parse(first.body.toString('utf8')) as ListBody;
    const items = parsed.items ?? [];
    const itemBytes = items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0) / Math.max(items.length, 1);
    const bodyFile = join(dir, 'list.json');
    writeFileSync(bodyFile, first.body);

    const sources: { source: ListSource; url: string; pid: number | undefined; request: string; path: string; items?: number }[] = [
      { source: 'kapi-cache', url: ctx.url, pid: ctx.kapiPid, request: 'RV=0 (watch cache)', path: `${path}?resourceVersion=0` },
      { source: 'kapi-most-recent', url: ctx.url, pid: ctx.kapiPid, request: 'RV unset (most recent)', path },
      ...(options.lite ? [] : [{ source: 'kapi-page' as const, url: ctx.url, pid: ctx.kapiPid, request: 'RV unset, limit=500 (first page)', path: `${path}?limit=500`, items: 500 }]),
      { source: 'kapi-selector-miss', url: ctx.url, pid: ctx.kapiPid, request: 'RV unset, label selector matching nothing', path: `${path}?labelSelector=kapi-bench-none%3Dnone`, items: 0 },
    ];
    if (options.lite) {
      skipped.push(`list of ${options.objects} from etcd and its first page: measured at the first size only`);
    } else if (ctx.serverEtcd !== undefined) {
      const noCache = await ctx.startServer({ extraArgs: ['--watch-cache=false'] });
      stops.push(() => noCache.stop());
      sources.push({ source: 'kapi-etcd', url: noCache.insecureUrl!, pid: noCache.pid(), request: 'RV unset, --watch-cache=false (etcd)', path });
    } else {
      skipped.push('list from etcd: needs --etcd-servers of the target to start a --watch-cache=false server');
    }
    const bare = await ctx.startBare('list', bodyFile);
    stops.push(() => bare.stop());
    sources.push({ source: 'bare', url: bare.url, pid: bare.pid, request: 'same bytes, bare node:http', path });

    for (const concurrency of options.concurrency) {
      for (const s of sources) {
        if (options.lite && concurrency > 1 && s.source !== 'kapi-cache' && s.source !== 'bare') continue;
        // A list from etcd takes seconds: concurrent ones only add minutes.
        if (s.source === 'kapi-etcd' && concurrency > 1 && options.durationMs < 10_000) continue;
        const client = new KapiClient(s.url, maxConcurrency);
        try {
          const check = await client.getBody(s.path, true);
          const count = (JSON.parse(check.body.toString('utf8')) as ListBody).items?.length ?? 0;
          const want = s.items ?? options.objects;
          if (s.items === 0 ? count !== 0 : count < want) throw new Error(`${s.source}: ${count} items, want ${s.items === 0 ? 0 : `≥ ${want}`}`);
          let bodyBytes = check.bytes;
          const run = await measureClosedLoop(
            async () => {
              const { bytes } = await client.getBody(s.path);
              bodyBytes = bytes;
            },
            { concurrency, durationMs: options.durationMs, warmupMs: Math.min(ctx.warmupMs, 1000), pids: { server: s.pid } },
          );
          const server = run.usage.server;
          const step: ListStep = {
            ...run,
            source: s.source,
            request: s.request,
            bodyBytes,
            items: count,
            megabytesPerSecond: (bodyBytes * run.opsPerSecond) / 1e6,
            serverCpuMsPerOp: server && run.ops + run.errors > 0 ? (server.cpuSeconds * 1000) / (run.ops + run.errors) : undefined,
          };
          steps.push(step);
          ctx.log(
            `list ${s.source.padEnd(16)} c=${concurrency} ${run.opsPerSecond.toFixed(1).padStart(7)}/s  p50 ${run.latency.p50.toFixed(1)} ms  p99 ${run.latency.p99.toFixed(1)} ms  ` +
              `${step.megabytesPerSecond.toFixed(0)} MB/s  errors ${run.errors}${run.errorSamples.length > 0 ? ` (${run.errorSamples[0]})` : ''}`,
          );
        } catch (err) {
          ctx.log(`list ${s.source} c=${concurrency} failed: ${err instanceof Error ? err.message : String(err)}`);
          steps.push({ ...failedRun(concurrency, err), source: s.source, request: s.request, bodyBytes: 0, items: 0, megabytesPerSecond: 0, serverCpuMsPerOp: undefined });
        } finally {
          await client.close();
        }
      }
    }
    return { objects: options.objects, itemBytes, loadSeconds: load.seconds, loadErrors: load.errors, steps, skipped };
  } finally {
    for (const stop of stops) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
