/**
 * S6: restart storm. A dedicated server (own etcd prefix) with N ConfigMaps of 1 KiB spread
 * over namespaces and M client-go style informers (one namespace each) watching; the server
 * is SIGKILLed and started again at once while the informers reconnect (back off, relist at
 * their last resourceVersion, watch). Measured: process start → ready, process start → the
 * watch cache serving (an RV=0 list answers), kill → every informer watching again, and the
 * server's peak RSS during the storm against its steady RSS before the kill. Process start →
 * the first HTTP answer (a /livez poll) is measured apart from the cache. Baselines: a raw
 * etcd range of the same keys (the floor for filling a cache) and the informers' relists
 * answered by a bare node:http server with the same bytes, all at once (the floor for the storm).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import type { BenchContext } from './context.js';
import { EtcdBaseline } from './etcd-client.js';
import { configMapData, loadConfigMaps, waitForItems } from './fixtures.js';
import { Informer } from './informer.js';
import { KapiClient, UnexpectedStatusError } from './kapi-client.js';
import { pin } from './pinning.js';
import { readProcess } from './process-stats.js';
import { summarize, type LatencySummary } from './stats.js';

export interface RestartScenarioOptions {
  objects: number;
  informers: number;
  namespaces: number;
}

export interface RestartScenarioResult {
  objects: number;
  informers: number;
  namespaces: number;
  loadSeconds: number;
  /** Server RSS with the cache loaded and every informer watching, just before the kill. */
  steadyRssBytes: number;
  /** Highest RSS of the new process from its start until 2 s after every informer was back. */
  peakRssBytes: number;
  /** Process start → /readyz ok, ms. */
  readyMs: number;
  /** Process start → the first HTTP answer of any kind (the process is serving; the rest of cacheReadyMs is filling the cache). */
  listeningMs: number;
  /** Process start → the watch cache answers (an RV=0 list of ConfigMaps with a selector matching nothing), ms. */
  cacheReadyMs: number;
  /**
   * The ConfigMap cache's own initialization (its cacher created → filled), from the server's
   * apiserver_watch_cache_initialization_duration_seconds; cacheReadyMs minus this is Node
   * boot, module loading and setup. NaN when the server has no such metric.
   */
  cacheFillMs: number;
  /** CPU the new server process had used when its cache answered, ms (load-independent, unlike the wall times). */
  cacheReadyCpuMs: number;
  /** Kill → every informer watching again, ms. */
  allSyncedMs: number;
  /** Kill → each informer watching again, ms. */
  synced: LatencySummary;
  /** Informer totals during the storm. */
  relists: number;
  gone: number;
  failedAttempts: number;
  /** Baseline: one raw etcd range of every ConfigMap key of the server (ms). */
  etcdRangeMs: number;
  /** Baseline: every informer's list answered at once by a bare node:http server with the same bytes (ms until the last). */
  bareRelistMs: number;
  errors: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ConfigMap cache's initialization time (sum of its histogram: one initialization in a fresh process), ms. */
async function cacheInitializationMs(url: string): Promise<number> {
  const client = new KapiClient(url, 1);
  try {
    const text = (await client.getBody('/metrics', true)).body.toString('utf8');
    const line = text.split('\n').find((l) => l.startsWith('apiserver_watch_cache_initialization_duration_seconds_sum{') && l.includes('resource="configmaps"'));
    return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1)) * 1000;
  } catch {
    return Number.NaN;
  } finally {
    await client.close();
  }
}
const namespaceName = (i: number) => `kapi-bench-s6-${i}`;

export async function runRestartScenario(ctx: BenchContext, options: RestartScenarioOptions): Promise<RestartScenarioResult> {
  const errors: string[] = [];
  const prefix = `/kapi-bench-s6-${Date.now()}`;
  const etcd = ctx.serverEtcd!;
  const server = await ctx.startServer({ etcdPrefix: prefix });
  const url = server.insecureUrl!;
  const namespaces = Array.from({ length: options.namespaces }, (_, i) => namespaceName(i));
  const informers: Informer[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-s6-'));
  const result: RestartScenarioResult = {
    objects: options.objects,
    informers: options.informers,
    namespaces: options.namespaces,
    loadSeconds: 0,
    steadyRssBytes: Number.NaN,
    peakRssBytes: Number.NaN,
    readyMs: Number.NaN,
    listeningMs: Number.NaN,
    cacheReadyMs: Number.NaN,
    cacheFillMs: Number.NaN,
    cacheReadyCpuMs: Number.NaN,
    allSyncedMs: Number.NaN,
    synced: summarize([]),
    relists: 0,
    gone: 0,
    failedAttempts: 0,
    etcdRangeMs: Number.NaN,
    bareRelistMs: Number.NaN,
    errors,
  };
  try {
    result.loadSeconds = await loadConfigMaps(ctx, url, etcd, {
      etcdPrefix: prefix,
      namespaces,
      perNamespace: Math.ceil(options.objects / options.namespaces),
      namePrefix: 'cm-',
      data: configMapData(1024),
    });
    const total = Math.ceil(options.objects / options.namespaces) * options.namespaces;
    await waitForItems(url, '/api/v1/configmaps?resourceVersion=0&limit=1&labelSelector=kapi-bench-none%3Dnone', 0);
    ctx.log(`s6: ${total} ConfigMaps loaded; starting ${options.informers} informers`);

    for (let i = 0; i < options.informers; i++) informers.push(new Informer(url, `/api/v1/namespaces/${namespaces[i % namespaces.length]}/configmaps`));
    for (let i = 0; i < informers.length; i += 50) await Promise.all(informers.slice(i, i + 50).map((inf) => inf.start()));
    const listed = informers.reduce((n, inf) => n + inf.items, 0);
    ctx.log(`s6: informers synced (${listed} items listed in all)`);
    await sleep(2000);
    result.steadyRssBytes = readProcess(server.pid()!)?.rssBytes ?? Number.NaN;

    // The storm.
    const statsBefore = informers.map((inf) => ({ ...inf.stats }));
    const syncedAt = new Map<Informer, number>();
    let killedAt = 0;
    for (const inf of informers) {
      inf.onWatching = (i) => {
        if (killedAt > 0 && !syncedAt.has(i)) syncedAt.set(i, performance.now());
      };
    }
    let peak = 0;
    let sampling = true;
    let pinned = server.pid();
    // Only the new process counts (the killed one was at the steady RSS until the kill).
    const killedPid = server.pid();
    const sampler = (async () => {
      while (sampling) {
        const pid = server.pid();
        // The new process inherits this process's CPU: move it to the servers' CPU at once.
        if (pid !== undefined && pid !== pinned && ctx.serverCpus !== undefined) {
          pin(pid, ctx.serverCpus);
          pinned = pid;
        }
        const s = pid !== undefined && pid !== killedPid ? readProcess(pid) : undefined;
        if (s && s.rssBytes > peak) peak = s.rssBytes;
        await sleep(pid === pinned ? 100 : 5);
      }
    })();
    await server.kill('SIGKILL');
    killedAt = performance.now();
    const restartAt = performance.now();
    let cacheReadyAt = 0;
    let listeningAt = 0;
    // Two probes: /livez for the first HTTP answer of any status (the process is listening and
    // its event loop turns), and an RV=0 list of ConfigMaps for the cache. The list alone cannot
    // tell the first: until its first initialization a cache holds a request up to 3 s before
    // answering 429, so the list's first answer came with the cache and both figures were equal.
    const livez = new KapiClient(url, 1);
    const listening = (async () => {
      while (listeningAt === 0 && performance.now() - restartAt < 120_000) {
        try {
          await livez.getBody('/livez');
          listeningAt = performance.now();
        } catch (err) {
          if (err instanceof UnexpectedStatusError) listeningAt = performance.now();
          else await sleep(5);
        }
      }
    })();
    const probe = new KapiClient(url, 1);
    const probing = (async () => {
      while (cacheReadyAt === 0 && performance.now() - restartAt < 120_000) {
        try {
          await probe.getBody('/api/v1/configmaps?resourceVersion=0&labelSelector=kapi-bench-none%3Dnone');
          cacheReadyAt = performance.now();
          const pid = server.pid();
          const cpu = pid !== undefined ? readProcess(pid)?.cpuSeconds : undefined;
          if (cpu !== undefined) result.cacheReadyCpuMs = cpu * 1000;
        } catch {
          // 429 while the cache fills (after up to 3 s of waiting), or not listening yet.
          await sleep(5);
        }
      }
    })();
    await server.restart();
    result.readyMs = performance.now() - restartAt;
    await Promise.all([probing, listening]);
    await Promise.all([probe.close(), livez.close()]);
    result.cacheReadyMs = cacheReadyAt > 0 ? cacheReadyAt - restartAt : Number.NaN;
    result.listeningMs = listeningAt > 0 ? listeningAt - restartAt : Number.NaN;
    result.cacheFillMs = await cacheInitializationMs(url);
    const deadline = performance.now() + 120_000;
    while (syncedAt.size < informers.length && performance.now() < deadline) await sleep(50);
    if (syncedAt.size < informers.length) errors.push(`s6: ${informers.length - syncedAt.size} of ${informers.length} informers not watching 120 s after the kill`);
    const times = [...syncedAt.values()].map((t) => t - killedAt);
    result.synced = summarize(times);
    result.allSyncedMs = times.length === informers.length ? Math.max(...times) : Number.NaN;
    await sleep(2000);
    sampling = false;
    await sampler;
    result.peakRssBytes = peak;
    informers.forEach((inf, i) => {
      result.relists += inf.stats.lists - statsBefore[i]!.lists;
      result.gone += inf.stats.gone - statsBefore[i]!.gone;
      result.failedAttempts += inf.stats.failures - statsBefore[i]!.failures;
    });
    ctx.log(
      `s6: serving ${result.listeningMs.toFixed(0)} ms, ready ${result.readyMs.toFixed(0)} ms, cache ready ${result.cacheReadyMs.toFixed(0)} ms (its fill ${result.cacheFillMs.toFixed(0)} ms; ${result.cacheReadyCpuMs.toFixed(0)} ms of server CPU by then), all ${informers.length} informers back ${result.allSyncedMs.toFixed(0)} ms after the kill; ` +
        `RSS steady ${(result.steadyRssBytes / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB; relists ${result.relists}, 410s ${result.gone}, failed attempts ${result.failedAttempts}`,
    );
    await Promise.all(informers.map((inf) => inf.stop()));
    informers.length = 0;

    // Baseline 1: the raw etcd range a cache fill needs at least.
    const raw = new Etcd3({ hosts: etcd, grpcOptions: { 'grpc.max_receive_message_length': 2 ** 31 - 1 } });
    try {
      const t0 = performance.now();
      const values = await raw.getAll().prefix(`${prefix}/configmaps/`).buffers();
      result.etcdRangeMs = performance.now() - t0;
      if (Object.keys(values).length < total) errors.push(`s6: the etcd range returned ${Object.keys(values).length} keys, want ${total}`);
    } catch (err) {
      errors.push(`s6 etcd baseline: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      raw.close();
    }
    // Baseline 2: every informer's relist from a bare server with the same bytes, all at once.
    try {
      const sample = new KapiClient(url, 1);
      const body = (await sample.getBody(`/api/v1/namespaces/${namespaces[0]}/configmaps?resourceVersion=0`, true)).body;
      await sample.close();
      writeFileSync(join(dir, 'list.json'), body);
      const bare = await ctx.startBare('list', join(dir, 'list.json'));
      try {
        const client = new KapiClient(bare.url, Math.min(options.informers, 512));
        const t0 = performance.now();
        await Promise.all(Array.from({ length: options.informers }, () => client.getBody('/')));
        result.bareRelistMs = performance.now() - t0;
        await client.close();
      } finally {
        await bare.stop();
      }
    } catch (err) {
      errors.push(`s6 bare baseline: ${err instanceof Error ? err.message : String(err)}`);
    }
    ctx.log(`s6 baselines: etcd range of ${total} keys ${result.etcdRangeMs.toFixed(0)} ms; ${options.informers} lists from bare node:http ${result.bareRelistMs.toFixed(0)} ms`);
  } catch (err) {
    errors.push(`s6: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await Promise.all(informers.map((inf) => inf.stop()));
    await server.stop();
    const cleanup = new EtcdBaseline(etcd);
    try {
      await cleanup.deletePrefixAndCompact(`${prefix}/`);
    } catch (err) {
      ctx.log(`s6: cleanup of ${prefix}: ${(err as Error).message}`);
    } finally {
      cleanup.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
