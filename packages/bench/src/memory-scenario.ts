/**
 * S5: memory per cached object. A fresh server on the benchmark's etcd (its watch cache holds
 * every ConfigMap there) is compared with a fresh server on an empty etcd prefix, both after
 * forced full GCs through the V8 inspector: once with the cache as loaded, once after a list
 * from the cache (which may keep per-object encoded bytes). The difference per ConfigMap is set
 * against the mean JSON size of one ConfigMap.
 */
import type { KapiServer } from '@kapi/apiserver/testing';
import type { BenchContext } from './context.js';
import { connectInspector, inspectorUrl, type InspectorSession } from './inspector.js';
import { KapiClient } from './kapi-client.js';
import { loadListObjects } from './list-scenario.js';
import { readProcess } from './process-stats.js';

export interface MemorySample {
  configMaps: number;
  rssBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
}

export interface PerObject {
  rssBytes: number;
  heapBytes: number;
  /** heapUsed + external (Buffers live outside the V8 heap). */
  heapAndExternalBytes: number;
  /** heapAndExternalBytes / itemBytes. */
  ratio: number;
  /** rssBytes / itemBytes. */
  rssRatio: number;
}

export interface MemoryStep {
  /** ConfigMaps in the loaded server's cache beyond the empty one's. */
  objects: number;
  /** Mean JSON bytes of one ConfigMap as the server encodes it. */
  itemBytes: number;
  empty: MemorySample;
  emptyAfterList: MemorySample;
  loaded: MemorySample;
  loadedAfterList: MemorySample;
  /** Per object, cache as loaded. */
  cached: PerObject;
  /** Per object, after one list from the cache. */
  afterList: PerObject;
}

export interface MemoryScenarioResult {
  steps: MemoryStep[];
  errors: string[];
  skipped: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function inspect(server: KapiServer): Promise<InspectorSession> {
  for (let i = 0; i < 100; i++) {
    const url = inspectorUrl(server.output());
    if (url) return connectInspector(url);
    await sleep(50);
  }
  throw new Error('the server printed no inspector URL');
}

async function settle(session: InspectorSession): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await session.collectGarbage();
    await sleep(200);
  }
}

/** ConfigMaps in the server (a one-item page: `remainingItemCount` + 1, or the item count). */
async function countConfigMaps(client: KapiClient): Promise<number> {
  const page = await client.json<{ items: unknown[]; metadata: { remainingItemCount?: number } }>('GET', '/api/v1/configmaps?limit=1', 200);
  return page.items.length + (page.metadata.remainingItemCount ?? 0);
}

async function sample(server: KapiServer, session: InspectorSession, configMaps: number): Promise<MemorySample> {
  await settle(session);
  const usage = await session.memoryUsage();
  const rss = readProcess(server.pid()!)?.rssBytes ?? usage.rss;
  return { configMaps, rssBytes: rss, heapUsedBytes: usage.heapUsed, externalBytes: usage.external };
}

/** Measures one fresh server: as started (cache loaded), then after a full RV=0 list. */
async function measureServer(server: KapiServer): Promise<{ before: MemorySample; after: MemorySample; itemBytes: number }> {
  const session = await inspect(server);
  const client = new KapiClient(server.insecureUrl!, 1);
  try {
    // RV=0 with a selector that matches nothing: answered by the cache once it has loaded.
    await client.getBody('/api/v1/configmaps?resourceVersion=0&labelSelector=kapi-bench-none%3Dnone');
    const count = await countConfigMaps(client);
    const before = await sample(server, session, count);
    const list = await client.getBody('/api/v1/configmaps?resourceVersion=0', true);
    const items = (JSON.parse(list.body.toString('utf8')) as { items: unknown[] }).items;
    const itemBytes = items.reduce<number>((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0) / Math.max(items.length, 1);
    const after = await sample(server, session, items.length);
    return { before, after, itemBytes };
  } finally {
    session.close();
    await client.close();
  }
}

function perObject(loaded: MemorySample, empty: MemorySample, itemBytes: number): PerObject {
  const n = Math.max(loaded.configMaps - empty.configMaps, 1);
  const rssBytes = (loaded.rssBytes - empty.rssBytes) / n;
  const heapBytes = (loaded.heapUsedBytes - empty.heapUsedBytes) / n;
  const heapAndExternalBytes = heapBytes + (loaded.externalBytes - empty.externalBytes) / n;
  return { rssBytes, heapBytes, heapAndExternalBytes, ratio: heapAndExternalBytes / itemBytes, rssRatio: rssBytes / itemBytes };
}

/**
 * For each N in `objects` (ascending): makes sure N list objects exist (loading the missing
 * ones through the server under test), then measures a loaded and an empty server.
 */
export async function runMemoryScenario(ctx: BenchContext, options: { objects: readonly number[]; alreadyLoaded: number }): Promise<MemoryScenarioResult> {
  const result: MemoryScenarioResult = { steps: [], errors: [], skipped: [] };
  if (ctx.serverEtcd === undefined) {
    result.skipped.push('memory: needs --etcd-servers of the target to start fresh servers');
    return result;
  }
  const env = { NODE_OPTIONS: '--inspect=127.0.0.1:0' };
  let loaded = options.alreadyLoaded;
  for (const n of options.objects) {
    try {
      if (n > loaded) {
        const load = await loadListObjects(ctx, n, loaded);
        if (load.errors > 0) result.errors.push(`loading to ${n}: ${load.errors} errors, e.g. ${load.samples.join(' | ')}`);
        loaded = n;
      }
      const full = await ctx.startServer({ env });
      let fullMeasure;
      try {
        fullMeasure = await measureServer(full);
      } finally {
        await full.stop();
      }
      const empty = await ctx.startServer({ env, etcdPrefix: `/kapi-bench-empty-${Date.now()}` });
      let emptyMeasure;
      try {
        emptyMeasure = await measureServer(empty);
      } finally {
        await empty.stop();
      }
      const step: MemoryStep = {
        objects: fullMeasure.before.configMaps - emptyMeasure.before.configMaps,
        itemBytes: fullMeasure.itemBytes,
        empty: emptyMeasure.before,
        emptyAfterList: emptyMeasure.after,
        loaded: fullMeasure.before,
        loadedAfterList: fullMeasure.after,
        cached: perObject(fullMeasure.before, emptyMeasure.before, fullMeasure.itemBytes),
        afterList: perObject(fullMeasure.after, emptyMeasure.after, fullMeasure.itemBytes),
      };
      result.steps.push(step);
      ctx.log(
        `memory ${step.objects} ConfigMaps of ${step.itemBytes.toFixed(0)} B JSON: heap+external ${step.cached.heapAndExternalBytes.toFixed(0)} B/object (${step.cached.ratio.toFixed(2)}×), ` +
          `RSS ${step.cached.rssBytes.toFixed(0)} B/object (${step.cached.rssRatio.toFixed(2)}×); after a list: heap+external ${step.afterList.heapAndExternalBytes.toFixed(0)} B (${step.afterList.ratio.toFixed(2)}×), ` +
          `RSS ${step.afterList.rssBytes.toFixed(0)} B (${step.afterList.rssRatio.toFixed(2)}×)`,
      );
    } catch (err) {
      result.errors.push(`memory at ${n}: ${err instanceof Error ? err.message : String(err)}`);
      ctx.log(`memory at ${n} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return result;
}
