/**
 * S9: two replicas on one etcd. Writes (merge PATCHes of 1 KiB ConfigMaps at a steady rate)
 * go to replica A (the server under test); V watchers watch the namespace on replica B (a
 * second server started on the same etcd). Measured: cross-replica watch delay (B's event
 * after A's acknowledgement) against the same watchers on A (same-replica delivery, the
 * baseline); and the consistent-read wait: a LIST with resourceVersion unset on B issued right
 * after each acknowledged write on A (B must get etcd's current revision, then wait for its
 * cache to reach it; the list must include the write), against the same LIST on A, and a raw
 * etcd range of the same keys.
 */
import { Etcd3 } from 'etcd3';
import type { BenchContext } from './context.js';
import { makeRecorder, measureRate, type FanoutStep } from './fanout-scenario.js';
import { KapiClient, oneKibData } from './kapi-client.js';
import { SampleBuffer, summarize, type LatencySummary } from './stats.js';
import { authHeaders, poolFor } from './target.js';
import { WatcherPool } from './watcher-pool.js';

export const replicaNamespace = 'kapi-bench-replicas';
const objects = 32;

export interface ReplicaScenarioOptions {
  watchers: number;
  rate: number;
  durationMs: number;
  /** Consistent LISTs per replica. */
  reads: number;
}

export interface ConsistentReads {
  replica: 'A (writer)' | 'B (other replica)' | 'raw etcd range';
  latency: LatencySummary;
  /** Lists that did not include the write just acknowledged (must be 0). */
  stale: number;
  errors: number;
}

export interface ReplicaScenarioResult {
  /** Watch delivery: watchers on B (cross-replica) and on A (same replica). */
  watch: { replica: 'A' | 'B'; step: FanoutStep }[];
  reads: ConsistentReads[];
  errors: string[];
}

interface ListBody {
  metadata: { resourceVersion: string };
  items: { metadata: { name: string; resourceVersion: string } }[];
}

export async function runReplicaScenario(ctx: BenchContext, options: ReplicaScenarioOptions): Promise<ReplicaScenarioResult> {
  const errors: string[] = [];
  const result: ReplicaScenarioResult = { watch: [], reads: [], errors };
  const b = await ctx.startServer({});
  const a = { url: ctx.url };
  const client = new KapiClient(a.url, 4);
  const writePool = poolFor(a.url, 8);
  const auth = authHeaders(a.url);
  const name = (seq: number) => `replica-${seq % objects}`;
  try {
    await client.ensureNamespace(replicaNamespace);
    for (let i = 0; i < objects; i++) {
      try {
        await client.createConfigMap(replicaNamespace, name(i), oneKibData);
      } catch {
        // exists from an earlier run
      }
    }
    const write = async (seq: number): Promise<number> => {
      const res = await writePool.request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${replicaNamespace}/configmaps/${name(seq)}`,
        headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', ...auth },
        body: JSON.stringify({ data: { seq: String(seq) } }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`PATCH: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      return Number((JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    };
    const startRv = await write(0);

    // Watch delay: watchers on B, then the same on A.
    let seq = 1;
    for (const [replica, url, pid] of [
      ['B', b.insecureUrl!, b.pid()],
      ['A', a.url, ctx.kapiPid],
    ] as const) {
      const recorder = makeRecorder();
      const pool = new WatcherPool(`${url}/api/v1/namespaces/${replicaNamespace}/configmaps?watch=1&resourceVersion=${startRv}`, (rv, t) => {
        recorder.rvs.add(rv);
        recorder.times.add(t);
      });
      try {
        await pool.open(options.watchers);
        await measureRate(ctx, 'kapi', pool, options.watchers, recorder, write, options.rate, Math.min(ctx.warmupMs, 2000), pid, seq, { objects, quiet: true });
        seq += 100_000;
        const step = await measureRate(ctx, 'kapi', pool, options.watchers, recorder, write, options.rate, options.durationMs, pid, seq, { objects, quiet: true });
        seq += 100_000;
        result.watch.push({ replica, step });
        ctx.log(`s9: watchers on ${replica}, writes to A at ${options.rate}/s: delivery p50 ${step.delivery.p50.toFixed(1)} ms p99 ${step.delivery.p99.toFixed(1)} ms, missing ${step.missingDeliveries}`);
      } catch (err) {
        errors.push(`s9 watch on ${replica}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        pool.close();
      }
    }

    // Consistent reads right after a write on A.
    const path = `/api/v1/namespaces/${replicaNamespace}/configmaps`;
    for (const [replica, url] of [
      ['B (other replica)', b.insecureUrl!],
      ['A (writer)', a.url],
    ] as const) {
      const reader = new KapiClient(url, 1);
      const latency = new SampleBuffer();
      let stale = 0;
      let failed = 0;
      try {
        for (let i = 0; i < options.reads; i++) {
          const s = seq++;
          try {
            const rv = await write(s);
            const t0 = performance.now();
            const list = await reader.json<ListBody>('GET', path, 200);
            latency.add(performance.now() - t0);
            const item = list.items.find((x) => x.metadata.name === name(s));
            if (item === undefined || Number(item.metadata.resourceVersion) < rv || Number(list.metadata.resourceVersion) < rv) stale++;
          } catch {
            failed++;
          }
        }
      } finally {
        await reader.close();
      }
      result.reads.push({ replica, latency: summarize(latency.values()), stale, errors: failed });
    }
    if (ctx.serverEtcd !== undefined) {
      const raw = new Etcd3({ hosts: ctx.serverEtcd, grpcOptions: { 'grpc.max_receive_message_length': 2 ** 31 - 1 } });
      const latency = new SampleBuffer();
      let failed = 0;
      try {
        for (let i = 0; i < options.reads; i++) {
          const s = seq++;
          try {
            await write(s);
            const t0 = performance.now();
            await raw.getAll().prefix(`/registry/configmaps/${replicaNamespace}/`).buffers();
            latency.add(performance.now() - t0);
          } catch {
            failed++;
          }
        }
      } finally {
        raw.close();
      }
      result.reads.push({ replica: 'raw etcd range', latency: summarize(latency.values()), stale: 0, errors: failed });
    }
    for (const r of result.reads) ctx.log(`s9: consistent LIST on ${r.replica} after a write on A: p50 ${r.latency.p50.toFixed(1)} ms p99 ${r.latency.p99.toFixed(1)} ms, stale ${r.stale}, errors ${r.errors}`);
  } catch (err) {
    errors.push(`s9: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await writePool.close();
    await client.close();
    await b.stop();
  }
  return result;
}
