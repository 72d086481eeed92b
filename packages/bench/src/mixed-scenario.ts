/**
 * S7: mixed load for a long stretch. W writers PATCH (merge patch) ConfigMaps of 1 KiB at R
 * writes/s in total (each writer its own objects, open loop: a write whose object is still in
 * flight is skipped and counted), while V watchers watch the namespace. Measured: PATCH
 * latency, event delivery from the write's acknowledgement, watchers dropped, missing
 * deliveries, and the server's RSS each second (drift = mean of the last tenth of the run
 * against the first tenth). Baseline: the same open-loop rate of what an update does on raw
 * etcd at least (a read, then a put in a transaction comparing mod_revision), for a shorter time.
 */
import { Etcd3 } from 'etcd3';
import type { BenchContext } from './context.js';
import { KapiClient, oneKibData } from './kapi-client.js';
import { readProcess } from './process-stats.js';
import { SampleBuffer, summarize, type LatencySummary } from './stats.js';
import { authHeaders, poolFor } from './target.js';
import { WatcherPool } from './watcher-pool.js';

export const mixedNamespace = 'kapi-bench-mixed';

export interface MixedScenarioOptions {
  writers: number;
  /** Writes per second, all writers together. */
  rate: number;
  watchers: number;
  durationMs: number;
  /** How long the raw-etcd baseline runs. */
  baselineMs: number;
}

export interface MixedScenarioResult {
  writers: number;
  rate: number;
  watchers: number;
  durationSeconds: number;
  writes: number;
  writesSkipped: number;
  writeErrors: number;
  errorSamples: string[];
  patch: LatencySummary;
  delivery: LatencySummary;
  expectedDeliveries: number;
  missingDeliveries: number;
  watchersDropped: number;
  /** RSS samples (bytes), one a second. */
  rssStartBytes: number;
  rssEndBytes: number;
  rssMaxBytes: number;
  /** (mean RSS of the last tenth − mean of the first tenth) / mean of the first tenth. */
  rssDrift: number;
  /**
   * The same from the tenth that starts half-way through: by then the watch cache's history
   * (kube's ring buffer, which grows while its oldest event is younger than 75 s: ~12,800
   * events at 100 writes/s) is full, so what grows after is not the history filling up.
   */
  rssDriftSettled?: number;
  serverCpuSecondsPerWrite: number | undefined;
  /** Baseline: read + compare-and-put txn on raw etcd at the same rate. */
  etcdUpdate: LatencySummary;
  errors: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const perWriterObjects = 10;

export async function runMixedScenario(ctx: BenchContext, options: MixedScenarioOptions): Promise<MixedScenarioResult> {
  const errors: string[] = [];
  const client = new KapiClient(ctx.url, 4);
  const pool = poolFor(ctx.url, options.writers * 2);
  const auth = authHeaders(ctx.url);
  const name = (writer: number, i: number) => `mixed-${writer}-${i % perWriterObjects}`;
  await client.ensureNamespace(mixedNamespace);
  for (let w = 0; w < options.writers; w++) {
    for (let i = 0; i < perWriterObjects; i++) {
      try {
        await client.createConfigMap(mixedNamespace, name(w, i), oneKibData);
      } catch {
        // exists from an earlier run
      }
    }
  }
  const patchOne = async (writer: number, seq: number, value = String(seq)): Promise<number> => {
    const res = await pool.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${mixedNamespace}/configmaps/${name(writer, seq)}`,
      headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', ...auth },
      body: JSON.stringify({ data: { seq: value } }),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`PATCH: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    return Number((JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
  };
  // A value no measured write uses (a PATCH that changes nothing makes no event).
  const startRv = await patchOne(0, 0, `start-${Date.now()}`);

  const acks = new Map<number, number>();
  // Events often arrive before the writer has its acknowledgement: match them afterwards.
  const arrivals = { rvs: new SampleBuffer(), times: new SampleBuffer() };
  const watchers = new WatcherPool(`${ctx.url}/api/v1/namespaces/${mixedNamespace}/configmaps?watch=1&resourceVersion=${startRv}`, (rv, t) => {
    arrivals.rvs.add(rv);
    arrivals.times.add(t);
  });
  const deliveries = new SampleBuffer();
  let delivered = 0;
  const match = () => {
    const deliveredNow = new SampleBuffer();
    let n = 0;
    const rvs = arrivals.rvs.values();
    const times = arrivals.times.values();
    for (let i = 0; i < rvs.length; i++) {
      const ack = acks.get(rvs[i]!);
      if (ack === undefined) continue;
      n++;
      deliveredNow.add(Math.max(times[i]! - ack, 0));
    }
    return { n, deliveredNow };
  };
  const latency = new SampleBuffer();
  const errorSamples = new Set<string>();
  let writeErrors = 0;
  let skipped = 0;
  let writes = 0;
  const rss: number[] = [];
  try {
    await watchers.open(options.watchers);
    const cpuBefore = ctx.kapiPid !== undefined ? readProcess(ctx.kapiPid)?.cpuSeconds : undefined;
    const started = performance.now();
    const deadline = started + options.durationMs;
    const sampler = setInterval(() => {
      const s = ctx.kapiPid !== undefined ? readProcess(ctx.kapiPid) : undefined;
      if (s) rss.push(s.rssBytes);
    }, 1000);
    const perWriter = options.rate / options.writers;
    const writer = async (w: number): Promise<void> => {
      const busy = new Set<number>();
      const pending: Promise<void>[] = [];
      const offset = (w / options.writers) * (1000 / perWriter);
      for (let i = 0; ; i++) {
        const due = started + offset + (i * 1000) / perWriter;
        if (due >= deadline) break;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        const object = i % perWriterObjects;
        if (busy.has(object)) {
          skipped++;
          continue;
        }
        busy.add(object);
        const t0 = performance.now();
        pending.push(
          patchOne(w, i).then(
            (rv) => {
              const now = performance.now();
              acks.set(rv, now);
              latency.add(now - t0);
              writes++;
              busy.delete(object);
            },
            (err: unknown) => {
              writeErrors++;
              if (errorSamples.size < 5) errorSamples.add(err instanceof Error ? err.message : String(err));
              busy.delete(object);
            },
          ),
        );
      }
      await Promise.all(pending);
    };
    await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
    clearInterval(sampler);
    const cpuAfter = ctx.kapiPid !== undefined ? readProcess(ctx.kapiPid)?.cpuSeconds : undefined;
    const expected = writes * options.watchers;
    const drainUntil = performance.now() + 5000;
    while (performance.now() < drainUntil) {
      if (arrivals.rvs.size >= expected && match().n >= expected) break;
      await sleep(arrivals.rvs.size >= expected ? 200 : 50);
    }
    const matched = match();
    delivered = matched.n;
    for (const v of matched.deliveredNow.values()) deliveries.add(v);
    const tenth = Math.max(1, Math.floor(rss.length / 10));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
    const first = mean(rss.slice(0, tenth));
    const last = mean(rss.slice(-tenth));
    const half = Math.floor(rss.length / 2);
    const middle = mean(rss.slice(half, half + tenth));

    // Baseline: the same rate of read + compare-and-put on raw etcd.
    const etcdLatency = new SampleBuffer();
    if (ctx.serverEtcd !== undefined) {
      const raw = new Etcd3({ hosts: ctx.serverEtcd });
      try {
        const keys = Array.from({ length: options.writers * perWriterObjects }, (_, i) => `/kapi-bench-raw/mixed/${i}`);
        for (const k of keys) await raw.put(k).value(JSON.stringify({ data: oneKibData }));
        const until = performance.now() + options.baselineMs;
        const busy = new Set<number>();
        const pending: Promise<void>[] = [];
        const t00 = performance.now();
        for (let i = 0; ; i++) {
          const due = t00 + (i * 1000) / options.rate;
          if (due >= until) break;
          const wait = due - performance.now();
          if (wait > 1) await sleep(wait);
          const object = i % keys.length;
          if (busy.has(object)) continue;
          busy.add(object);
          const key = keys[object]!;
          const t0 = performance.now();
          pending.push(
            (async () => {
              const got = await raw.kv.range({ key: Buffer.from(key) });
              const mod = got.kvs[0]?.mod_revision ?? '0';
              const res = await raw.kv.txn({
                compare: [{ key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: mod }],
                success: [{ request_put: { key: Buffer.from(key), value: Buffer.from(JSON.stringify({ data: { ...oneKibData, seq: String(i) } })) } }],
              });
              if (res.succeeded) etcdLatency.add(performance.now() - t0);
            })().finally(() => busy.delete(object)),
          );
        }
        await Promise.all(pending);
        await raw.delete().prefix('/kapi-bench-raw/mixed/').exec();
      } catch (err) {
        errors.push(`s7 etcd baseline: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        raw.close();
      }
    }
    const result: MixedScenarioResult = {
      writers: options.writers,
      rate: options.rate,
      watchers: options.watchers,
      durationSeconds: options.durationMs / 1000,
      writes,
      writesSkipped: skipped,
      writeErrors,
      errorSamples: [...errorSamples],
      patch: summarize(latency.values()),
      delivery: summarize(deliveries.values()),
      expectedDeliveries: expected,
      missingDeliveries: Math.max(expected - delivered, 0),
      watchersDropped: watchers.terminated,
      rssStartBytes: rss[0] ?? Number.NaN,
      rssEndBytes: rss[rss.length - 1] ?? Number.NaN,
      rssMaxBytes: rss.length > 0 ? Math.max(...rss) : Number.NaN,
      rssDrift: rss.length >= 2 ? (last - first) / first : Number.NaN,
      rssDriftSettled: rss.length >= 4 ? (last - middle) / middle : Number.NaN,
      serverCpuSecondsPerWrite: cpuBefore !== undefined && cpuAfter !== undefined && writes > 0 ? (cpuAfter - cpuBefore) / writes : undefined,
      etcdUpdate: summarize(etcdLatency.values()),
      errors,
    };
    ctx.log(
      `s7: ${writes} PATCHes (${skipped} skipped, ${writeErrors} errors) p50 ${result.patch.p50.toFixed(1)} ms p99 ${result.patch.p99.toFixed(1)} ms; ` +
        `delivery p99 ${result.delivery.p99.toFixed(1)} ms, missing ${result.missingDeliveries}, dropped ${result.watchersDropped}; RSS drift ${(result.rssDrift * 100).toFixed(1)}%; ` +
        `etcd update p99 ${result.etcdUpdate.p99.toFixed(1)} ms`,
    );
    return result;
  } finally {
    watchers.close();
    await pool.close();
    await client.close();
  }
}
