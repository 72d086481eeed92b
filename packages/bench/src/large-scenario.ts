/**
 * S8: N ConfigMaps of ~1 MiB each (data just under kube's 1 MiB limit), LIST from the watch
 * cache (RV=0) by C concurrent clients in a closed loop. Baseline: the same bytes from a bare
 * node:http server at the same concurrency. The objects are deleted afterwards (through etcd).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failedRun, measureClosedLoop, type BenchContext, type MeasuredRun } from './context.js';
import { EtcdBaseline } from './etcd-client.js';
import { configMapData, loadConfigMaps, waitForItems } from './fixtures.js';
import { KapiClient } from './kapi-client.js';

export const largeNamespace = 'kapi-bench-large';

export interface LargeScenarioOptions {
  objects: number;
  concurrency: number;
  /** Rounds of `concurrency` lists each (a list of 300 MB takes seconds). */
  rounds: number;
}

export interface LargeStep extends MeasuredRun {
  source: 'kapi-cache' | 'bare';
  bodyBytes: number;
  serverCpuMsPerOp: number | undefined;
  peakServerRssBytes: number | undefined;
}

export interface LargeScenarioResult {
  objects: number;
  objectBytes: number;
  loadSeconds: number;
  steps: LargeStep[];
  errors: string[];
}

/** Data bytes per object: 1 MiB less room for the rest of the object (kube limits a ConfigMap to 1 MiB). */
const dataBytes = 1024 * 1024 - 1024;

export async function runLargeScenario(ctx: BenchContext, options: LargeScenarioOptions): Promise<LargeScenarioResult> {
  const errors: string[] = [];
  const steps: LargeStep[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-s8-'));
  const path = `/api/v1/namespaces/${largeNamespace}/configmaps`;
  let loadSeconds = 0;
  let objectBytes = 0;
  try {
    loadSeconds = await loadConfigMaps(ctx, ctx.url, ctx.serverEtcd, {
      namespaces: [largeNamespace],
      perNamespace: options.objects,
      namePrefix: 'large-',
      data: configMapData(dataBytes),
      concurrency: 8,
    });
    await waitForItems(ctx.url, `${path}?resourceVersion=0`, options.objects);
    const probe = new KapiClient(ctx.url, 1);
    // (also the warm-up of the cache's byte caches)
    const { body } = await probe.getBody(`${path}?resourceVersion=0`, true);
    await probe.close();
    objectBytes = body.length / options.objects;
    writeFileSync(join(dir, 'list.json'), body);
    const bare = await ctx.startBare('list', join(dir, 'list.json'));
    try {
      for (const s of [
        { source: 'kapi-cache' as const, url: ctx.url, pid: ctx.kapiPid },
        { source: 'bare' as const, url: bare.url, pid: bare.pid },
      ]) {
        const client = new KapiClient(s.url, options.concurrency);
        let bodyBytes = 0;
        try {
          const run = await measureClosedLoop(
            async () => {
              bodyBytes = (await client.getBody(`${path}?resourceVersion=0`)).bytes;
            },
            // A list takes seconds here: one round of `concurrency` lists after one warm-up list, not a timed loop.
            { concurrency: options.concurrency, durationMs: 10 * 60_000, maxOps: options.concurrency * options.rounds, warmupMs: 0, pids: { server: s.pid } },
          );
          const usage = run.usage.server;
          steps.push({
            ...run,
            source: s.source,
            bodyBytes,
            serverCpuMsPerOp: usage && run.ops > 0 ? (usage.cpuSeconds * 1000) / run.ops : undefined,
            peakServerRssBytes: usage?.peakRssBytes,
          });
          ctx.log(`s8 ${s.source.padEnd(10)} c=${options.concurrency} ${run.opsPerSecond.toFixed(2)}/s p50 ${run.latency.p50.toFixed(0)} ms p99 ${run.latency.p99.toFixed(0)} ms (${(bodyBytes / 1e6).toFixed(0)} MB each), errors ${run.errors}`);
        } catch (err) {
          steps.push({ ...failedRun(options.concurrency, err), source: s.source, bodyBytes: 0, serverCpuMsPerOp: undefined, peakServerRssBytes: undefined });
        } finally {
          await client.close();
        }
      }
    } finally {
      await bare.stop();
    }
  } catch (err) {
    errors.push(`s8: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (ctx.serverEtcd !== undefined) {
      const etcd = new EtcdBaseline(ctx.serverEtcd);
      try {
        await etcd.deletePrefixAndCompact(`/registry/configmaps/${largeNamespace}/`);
      } catch (err) {
        ctx.log(`s8 cleanup: ${(err as Error).message}`);
      } finally {
        etcd.close();
      }
    } else {
      const client = new KapiClient(ctx.url, 1);
      await client.delete(path).catch((err: unknown) => ctx.log(`s8 cleanup: ${(err as Error).message}`));
      await client.close();
    }
  }
  return { objects: options.objects, objectBytes, loadSeconds, steps, errors };
}
