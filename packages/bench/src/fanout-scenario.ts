/**
 * S4: watch fan-out. N chunked watch connections on one collection; one writer updates 1 KiB
 * ConfigMaps at a steady rate (round-robin over {@link objectCount} objects, never two writes
 * to one object at a time, so no write waits on another); the delivery latency of every event at every watcher is
 * measured from the write's acknowledgement. Baseline: a bare Node server writing the same
 * event bytes to N chunked responses (acknowledging each write, then writing the events
 * pending at the end of that event-loop turn to every response in one write, as kapi does).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { authHeaders, poolFor } from './target.js';
import type { BenchContext } from './context.js';
import { KapiClient, oneKibData } from './kapi-client.js';
import { monitorProcess, type ProcessUsage } from './process-stats.js';
import { SampleBuffer, summarize, type LatencySummary } from './stats.js';
import { Http2WatcherPool } from './http2-watcher-pool.js';
import { WatcherPool } from './watcher-pool.js';
import { fanoutVariantNames, type FanoutVariantName } from './options.js';

export const fanoutNamespace = 'kapi-bench-fanout';
const objectCount = 64;
const objectName = (i: number) => `fanout-${i % objectCount}`;

export interface FanoutStep {
  target: 'kapi' | 'bare';
  /**
   * 'all' = every watcher watches the one namespace; 'field-selector' = cluster-wide watches,
   * each with a metadata.namespace field selector over {@link selectorNamespaces} namespaces;
   * 'tls-http1' / 'http2' = 'all' on the server's HTTPS port, one TLS connection per watch,
   * or the watches as HTTP/2 streams multiplexed over few connections.
   */
  variant?: 'all' | 'field-selector' | 'tls-http1' | 'http2';
  /** HTTP/2 variant: connections the watches were multiplexed over. */
  connections?: number;
  watchers: number;
  /** Watchers each event is delivered to. */
  watchersPerEvent?: number;
  /** Writes per second asked for. */
  rate: number;
  durationSeconds: number;
  /** Writes acknowledged during the measured run. */
  writes: number;
  /** Writes not sent because the previous write to the same object was still in flight (the server fell behind). */
  writesSkipped: number;
  writeErrors: number;
  errorSamples: string[];
  /** Write latency (request → acknowledgement), ms. */
  writeLatency: LatencySummary;
  /** Delivery latency (acknowledgement → event at a watcher), ms; an event seen before the ack counts as 0. */
  delivery: LatencySummary;
  /** Delivery latency from the start of the write request, ms. */
  deliveryFromRequest: LatencySummary;
  /** Deliveries that arrived before the writer had the acknowledgement. */
  deliveredBeforeAck: number;
  /** writes × watchers. */
  expectedDeliveries: number;
  /** Expected deliveries not seen within the drain time. */
  missingDeliveries: number;
  /** Watch connections that ended during the run. */
  watchersTerminated: number;
  usage: ProcessUsage | undefined;
  loadGeneratorCpuSeconds: number;
}

export interface FanoutScenarioResult {
  eventBytes: number;
  steps: FanoutStep[];
  errors: string[];
}

export interface FanoutScenarioOptions {
  watchers: number;
  rates: readonly number[];
  durationMs: number;
  /** Writes per second of the field-selector variant (none: not run). */
  selectorRate?: number;
  /** Also run the watches on the HTTPS port over HTTP/1.1 and HTTP/2 (default true, when the server's HTTPS URL is known). */
  tls?: boolean;
  /** The variants to run (default all of them); 'tls' also needs `tls` and the HTTPS URL. */
  variants?: readonly FanoutVariantName[];
}

/** Namespaces of the field-selector variant (one object each; watchers spread evenly). */
export const selectorNamespaces = 100;
const selectorNamespace = (i: number) => `kapi-bench-fsel-${i % selectorNamespaces}`;

/** Several watcher pools counted as one (terminations summed). */
class PoolGroup {
  constructor(readonly pools: WatcherPool[]) {}
  get terminated(): number {
    return this.pools.reduce((n, p) => n + p.terminated, 0);
  }
  close(): void {
    for (const p of this.pools) p.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The writer of one target: sends write `seq` (to object `seq % objectCount`) and resolves the acknowledged resourceVersion. */
type Writer = (seq: number) => Promise<number>;

interface WriteTimes {
  start: number;
  ack: number;
}

/**
 * One measured rate: writes at `rate`/s for `durationMs` (open loop; a write whose object is
 * still being written is skipped and counted),
 * waits up to 5 s for the last deliveries, then matches deliveries to writes.
 */
export async function measureRate(
  ctx: BenchContext,
  target: FanoutStep['target'],
  pool: { readonly terminated: number },
  watchers: number,
  recorder: { reset(): void; rvs: SampleBuffer; times: SampleBuffer },
  writer: Writer,
  rate: number,
  durationMs: number,
  pid: number | undefined,
  seqBase: number,
  options: { variant?: FanoutStep['variant']; watchersPerEvent?: number; objects?: number; quiet?: boolean; connections?: number } = {},
): Promise<FanoutStep> {
  const perEvent = options.watchersPerEvent ?? watchers;
  const objects = options.objects ?? objectCount;
  const writes = new Map<number, WriteTimes>();
  const writeLatency = new SampleBuffer();
  const errorSamples = new Set<string>();
  let writeErrors = 0;
  let skipped = 0;
  const busy = new Set<number>();
  const terminatedBefore = pool.terminated;
  recorder.reset();
  const monitor = pid !== undefined ? monitorProcess(pid) : undefined;
  const cpuBefore = process.cpuUsage();
  const interval = 1000 / rate;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const due = t0 + i * interval;
    if (due >= t0 + durationMs) break;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const object = (seqBase + i) % objects;
    if (busy.has(object)) {
      skipped++;
      continue;
    }
    busy.add(object);
    const start = performance.now();
    pending.push(
      writer(seqBase + i).then(
        (rv) => {
          const ack = performance.now();
          writes.set(rv, { start, ack });
          writeLatency.add(ack - start);
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
  const cpu = process.cpuUsage(cpuBefore);
  const usage = monitor?.finish();
  await Promise.all(pending);
  const expected = writes.size * perEvent;
  const drainDeadline = performance.now() + 5000;
  const matched = () => {
    let n = 0;
    const rvs = recorder.rvs.values();
    for (let i = 0; i < rvs.length; i++) if (writes.has(rvs[i]!)) n++;
    return n;
  };
  // Late deliveries of earlier writes count in rvs.size too: done only when the matched ones are all there.
  while (performance.now() < drainDeadline) {
    if (recorder.rvs.size >= expected && matched() >= expected) break;
    await sleep(recorder.rvs.size >= expected ? 200 : 50);
  }

  const fromAck = new SampleBuffer();
  const fromRequest = new SampleBuffer();
  let beforeAck = 0;
  const rvs = recorder.rvs.values();
  const times = recorder.times.values();
  for (let i = 0; i < rvs.length; i++) {
    const w = writes.get(rvs[i]!);
    if (!w) continue;
    const latency = times[i]! - w.ack;
    if (latency < 0) beforeAck++;
    fromAck.add(Math.max(latency, 0));
    fromRequest.add(times[i]! - w.start);
  }
  const delivered = matched();
  const step: FanoutStep = {
    target,
    variant: options.variant ?? 'all',
    watchers,
    watchersPerEvent: perEvent,
    rate,
    durationSeconds: durationMs / 1000,
    writes: writes.size,
    writesSkipped: skipped,
    writeErrors,
    errorSamples: [...errorSamples],
    writeLatency: summarize(writeLatency.values()),
    delivery: summarize(fromAck.values()),
    deliveryFromRequest: summarize(fromRequest.values()),
    deliveredBeforeAck: beforeAck,
    expectedDeliveries: expected,
    missingDeliveries: Math.max(expected - delivered, 0),
    watchersTerminated: pool.terminated - terminatedBefore,
    usage,
    loadGeneratorCpuSeconds: (cpu.user + cpu.system) / 1e6,
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
  };
  if (options.quiet !== true) ctx.log(fanoutStepLine(target === 'kapi' ? ctx.serverName : target, step));
  return step;
}

/** The log line of one measured rate; `server` names who served it (the server under test, or "bare"). */
export function fanoutStepLine(server: string, step: FanoutStep): string {
  return (
    `fanout ${server.padEnd(4)}${step.variant !== undefined && step.variant !== 'all' ? ` ${step.variant}` : ''} ${step.watchers} watchers ${String(step.rate).padStart(3)}/s: delivery p50 ${step.delivery.p50.toFixed(1)} ms p99 ${step.delivery.p99.toFixed(1)} ms ` +
    `max ${step.delivery.max.toFixed(0)} ms; writes ${step.writes} (skipped ${step.writesSkipped}, errors ${step.writeErrors}); missing ${step.missingDeliveries}; terminated ${step.watchersTerminated}; ` +
    `client cpu ${(step.loadGeneratorCpuSeconds / step.durationSeconds).toFixed(2)} cores${scheduleNote(step.usage)}`
  );
}

/** "; server's busiest thread ran R s, waited W s for a CPU" when the scheduler's times are known. */
function scheduleNote(usage: ProcessUsage | undefined): string {
  const busiest = usage?.schedule?.busiest;
  if (busiest === undefined) return '';
  return `; server's busiest thread ran ${busiest.runSeconds.toFixed(2)} s, waited ${busiest.waitSeconds.toFixed(2)} s for a CPU`;
}

export function makeRecorder() {
  const recorder = {
    rvs: new SampleBuffer(),
    times: new SampleBuffer(),
    reset() {
      recorder.rvs = new SampleBuffer();
      recorder.times = new SampleBuffer();
    },
  };
  return recorder;
}

export async function runFanoutScenario(ctx: BenchContext, options: FanoutScenarioOptions): Promise<FanoutScenarioResult> {
  const steps: FanoutStep[] = [];
  const errors: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-fanout-'));
  const client = new KapiClient(ctx.url, 8);
  const writePool = poolFor(ctx.url, 16);
  const auth = authHeaders(ctx.url);
  let template: Buffer | undefined;
  const variants = options.variants ?? fanoutVariantNames;
  try {
    await client.ensureNamespace(fanoutNamespace);
    const itemPath = (seq: number) => `/api/v1/namespaces/${fanoutNamespace}/configmaps/${objectName(seq)}`;
    for (let i = 0; i < objectCount; i++) {
      try {
        await client.createConfigMap(fanoutNamespace, objectName(i), oneKibData);
      } catch {
        // exists from an earlier run: fine
      }
    }
    const patch = (seq: number) => JSON.stringify({ data: { ...oneKibData, seq: String(seq) } });
    const kapiWriter: Writer = async (seq) => {
      const res = await writePool.request({ method: 'PATCH', path: itemPath(seq), headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', ...auth }, body: patch(seq) });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`PATCH: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      return Number((JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    };
    const startRv = await kapiWriter(0);

    // kapi
    if (variants.includes('all')) {
      const recorder = makeRecorder();
      const pool = new WatcherPool(`${ctx.url}/api/v1/namespaces/${fanoutNamespace}/configmaps?watch=1&resourceVersion=${startRv}`, (rv, t) => {
        recorder.rvs.add(rv);
        recorder.times.add(t);
      });
      try {
        await pool.open(options.watchers);
        ctx.log(`fanout: ${options.watchers} ${ctx.serverName} watchers open`);
        let seq = 1;
        // Warm-up at the first rate; its late deliveries are not matched to measured writes.
        await measureRate(ctx, 'kapi', pool, options.watchers, recorder, kapiWriter, options.rates[0]!, Math.min(ctx.warmupMs, 3000), ctx.kapiPid, seq);
        seq += 100_000;
        for (const rate of options.rates) {
          steps.push(await measureRate(ctx, 'kapi', pool, options.watchers, recorder, kapiWriter, rate, options.durationMs, ctx.kapiPid, seq));
          seq += 100_000;
        }
        template = pool.firstEvent;
      } catch (err) {
        errors.push(`kapi fan-out: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        pool.close();
      }
    }

    // kapi on its HTTPS port: the same watches over HTTP/1.1 (a TLS connection each) and over
    // HTTP/2 (streams multiplexed on few connections, as client-go opens them).
    if (options.tls !== false && ctx.secureUrl !== undefined && variants.includes('tls')) {
      for (const [index, variant] of (['tls-http1', 'http2'] as const).entries()) {
        const recorder = makeRecorder();
        const watchUrl = `${ctx.secureUrl}/api/v1/namespaces/${fanoutNamespace}/configmaps?watch=1&resourceVersion=${await kapiWriter(0)}`;
        const onEvent = (rv: number, t: number) => {
          recorder.rvs.add(rv);
          recorder.times.add(t);
        };
        const pool = variant === 'http2' ? new Http2WatcherPool(watchUrl, onEvent) : new WatcherPool(watchUrl, onEvent);
        try {
          await pool.open(options.watchers);
          const connections = pool instanceof Http2WatcherPool ? pool.connections : options.watchers;
          ctx.log(`fanout: ${options.watchers} ${ctx.serverName} watchers open over ${variant} (${connections} connections)`);
          // Patches of their own: one that repeats an earlier step's patch of the same object is
          // a no-op (no event), which at small sizes is every one of them.
          let seq = 1_000_000 * (index + 1) + 1;
          await measureRate(ctx, 'kapi', pool, options.watchers, recorder, kapiWriter, options.rates[0]!, Math.min(ctx.warmupMs, 3000), ctx.kapiPid, seq, { variant, quiet: true });
          seq += 100_000;
          for (const rate of options.rates) {
            steps.push(await measureRate(ctx, 'kapi', pool, options.watchers, recorder, kapiWriter, rate, options.durationMs, ctx.kapiPid, seq, { variant, connections }));
            seq += 100_000;
          }
        } catch (err) {
          errors.push(`kapi fan-out (${variant}): ${err instanceof Error ? err.message : String(err)}`);
        } finally {
          pool.close();
        }
      }
    }

    // kapi, variant: cluster-wide watches with a metadata.namespace field selector each
    const perEvent = Math.max(1, Math.floor(options.watchers / selectorNamespaces));
    const selectorRate = variants.includes('field-selector') ? options.selectorRate : undefined;
    if (selectorRate !== undefined) {
      const recorder = makeRecorder();
      const group = new PoolGroup([]);
      try {
        for (let i = 0; i < selectorNamespaces; i++) {
          await client.ensureNamespace(selectorNamespace(i));
          try {
            await client.createConfigMap(selectorNamespace(i), 'fsel', oneKibData);
          } catch {
            // exists from an earlier run: fine
          }
        }
        const selectorWriter: Writer = async (seq) => {
          const res = await writePool.request({
            method: 'PATCH',
            path: `/api/v1/namespaces/${selectorNamespace(seq)}/configmaps/fsel`,
            headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', ...auth },
            body: patch(seq),
          });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`PATCH: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
          return Number((JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
        };
        const rv = await selectorWriter(0);
        for (let i = 0; i < selectorNamespaces; i++) {
          const pool = new WatcherPool(`${ctx.url}/api/v1/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.namespace%3D${selectorNamespace(i)}`, (r, t) => {
            recorder.rvs.add(r);
            recorder.times.add(t);
          });
          group.pools.push(pool);
          await pool.open(perEvent);
        }
        ctx.log(`fanout: ${perEvent * selectorNamespaces} field-selector watchers open over ${selectorNamespaces} namespaces`);
        const variant = { variant: 'field-selector' as const, watchersPerEvent: perEvent, objects: selectorNamespaces };
        // The whole --warmup (the other variants cap theirs at 3 s): on a loaded machine a Node
        // server still compiles its write path (TurboFan, on its helper threads) seconds into
        // the run, which a steady-state comparison with a Go server should not count.
        await measureRate(ctx, 'kapi', group, perEvent * selectorNamespaces, recorder, selectorWriter, selectorRate, ctx.warmupMs, ctx.kapiPid, 100, { ...variant, quiet: true });
        steps.push(await measureRate(ctx, 'kapi', group, perEvent * selectorNamespaces, recorder, selectorWriter, selectorRate, options.durationMs, ctx.kapiPid, 200_000, variant));
      } catch (err) {
        errors.push(`kapi fan-out (field selectors): ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        group.close();
      }
    }

    // bare node fan-out with kapi's event bytes (or a synthetic event of the same shape)
    const captured = template?.toString('utf8');
    const line = captured !== undefined && isJson(captured) ? captured : `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${objectName(0)}","namespace":"${fanoutNamespace}","resourceVersion":"1"},"data":${JSON.stringify(oneKibData)}}}`;
    const templated = line.replace(/"resourceVersion":"\d+"/, '"resourceVersion":"{{RV}}"');
    const eventBytes = Buffer.byteLength(line) + 1;
    writeFileSync(join(dir, 'event.json'), `${templated}\n`);
    const bare = await ctx.startBare('fanout', join(dir, 'event.json'));
    const barePool = new Pool(bare.url, { connections: 8, pipelining: 1 });
    const recorder = makeRecorder();
    const pool = new WatcherPool(`${bare.url}/watch`, (rv, t) => {
      recorder.rvs.add(rv);
      recorder.times.add(t);
    });
    try {
      const bareWriter: Writer = async (seq) => {
        const res = await barePool.request({ method: 'POST', path: '/event', body: String(seq) });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`bare POST: HTTP ${res.statusCode}`);
        return seq;
      };
      let seq = 1;
      if (variants.includes('all')) {
        await pool.open(options.watchers);
        await measureRate(ctx, 'bare', pool, options.watchers, recorder, bareWriter, options.rates[0]!, Math.min(ctx.warmupMs, 3000), bare.pid, seq);
        seq += 100_000;
        for (const rate of options.rates) {
          steps.push(await measureRate(ctx, 'bare', pool, options.watchers, recorder, bareWriter, rate, options.durationMs, bare.pid, seq));
          seq += 100_000;
        }
      }
      if (selectorRate !== undefined) {
        // The variant's floor: each event written to as many watchers as receive it there.
        pool.close();
        await sleep(300);
        const small = new WatcherPool(`${bare.url}/watch`, (rv, t) => {
          recorder.rvs.add(rv);
          recorder.times.add(t);
        });
        try {
          await small.open(perEvent);
          steps.push(
            await measureRate(ctx, 'bare', small, perEvent, recorder, bareWriter, selectorRate, options.durationMs, bare.pid, seq, { variant: 'field-selector', watchersPerEvent: perEvent }),
          );
        } finally {
          small.close();
        }
      }
    } catch (err) {
      errors.push(`bare fan-out: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      pool.close();
      await barePool.close();
      await bare.stop();
    }
    return { eventBytes, steps, errors };
  } finally {
    await writePool.close();
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
