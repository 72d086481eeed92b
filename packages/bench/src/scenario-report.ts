/** Report tables of the list (S3), fan-out (S4) and memory (S5) scenarios. */
import { ratio } from './stats.js';
import type { SuiteResult } from './suite.js';

const fixed = (n: number | undefined, digits: number): string => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits));

/** One row per list step, with throughput and p50 relative to the bare node:http server at the same concurrency. */
export function listRows(result: SuiteResult): string[][] {
  const steps = result.lists?.steps ?? [];
  const bare = (c: number) => steps.find((s) => s.source === 'bare' && s.concurrency === c);
  return [
    ['source', 'request', 'conc', 'lists/s', 'p50 ms', 'p99 ms', 'max ms', 'MB/s', 'body MB', 'server cpu ms/list', 'errors', 'throughput ÷ bare', 'p50 ÷ bare'],
    ...steps.map((s) => [
      s.source,
      s.request,
      String(s.concurrency),
      fixed(s.opsPerSecond, 1),
      fixed(s.latency.p50, 1),
      fixed(s.latency.p99, 1),
      fixed(s.latency.max, 1),
      fixed(s.megabytesPerSecond, 0),
      fixed(s.bodyBytes / 1e6, 2),
      fixed(s.serverCpuMsPerOp, 1),
      String(s.errors),
      fixed(ratio(s.opsPerSecond, bare(s.concurrency)?.opsPerSecond ?? Number.NaN), 3),
      fixed(ratio(s.latency.p50, bare(s.concurrency)?.latency.p50 ?? Number.NaN), 1),
    ]),
  ];
}

/** One row per fan-out step; the last column divides kapi's p99 by the bare fan-out's at the same rate. */
export function fanoutRows(result: SuiteResult): string[][] {
  const steps = result.fanout?.steps ?? [];
  const bare = (rate: number) => steps.find((s) => s.target === 'bare' && s.rate === rate);
  return [
    ['target', 'watchers', 'writes/s', 'writes', 'p50 ms', 'p99 ms', 'max ms', 'p99 from request ms', 'write p99 ms', 'missing', 'terminated', 'skipped writes', 'server cores', 'client cores', 'p99 ÷ bare'],
    ...steps.map((s) => [
      s.target,
      String(s.watchers),
      String(s.rate),
      String(s.writes),
      fixed(s.delivery.p50, 1),
      fixed(s.delivery.p99, 1),
      fixed(s.delivery.max, 0),
      fixed(s.deliveryFromRequest.p99, 1),
      fixed(s.writeLatency.p99, 1),
      String(s.missingDeliveries),
      String(s.watchersTerminated),
      String(s.writesSkipped),
      fixed(s.usage ? s.usage.cpuSeconds / s.durationSeconds : undefined, 2),
      fixed(s.loadGeneratorCpuSeconds / s.durationSeconds, 2),
      fixed(ratio(s.delivery.p99, bare(s.rate)?.delivery.p99 ?? Number.NaN), 1),
    ]),
  ];
}

/** One row per cache size: bytes per cached ConfigMap against its JSON size. */
export function memoryRows(result: SuiteResult): string[][] {
  const steps = result.memory?.steps ?? [];
  return [
    ['objects', 'JSON B/object', 'heap+external B/object', '÷ JSON', 'RSS B/object', 'RSS ÷ JSON', 'after list: heap+external B', '÷ JSON', 'after list: RSS B', 'RSS ÷ JSON'],
    ...steps.map((s) => [
      String(s.objects),
      fixed(s.itemBytes, 0),
      fixed(s.cached.heapAndExternalBytes, 0),
      fixed(s.cached.ratio, 2),
      fixed(s.cached.rssBytes, 0),
      fixed(s.cached.rssRatio, 2),
      fixed(s.afterList.heapAndExternalBytes, 0),
      fixed(s.afterList.ratio, 2),
      fixed(s.afterList.rssBytes, 0),
      fixed(s.afterList.rssRatio, 2),
    ]),
  ];
}

/** Error lines of the scenarios (never hidden). */
export function scenarioErrors(result: SuiteResult): string[] {
  const out: string[] = [];
  if (result.lists && result.lists.loadErrors > 0) out.push(`list: ${result.lists.loadErrors} failed creates while loading`);
  for (const s of result.lists?.steps ?? []) if (s.errors > 0) out.push(`list ${s.source} c=${s.concurrency}: ${s.errors} errors, e.g. ${s.errorSamples.join(' | ')}`);
  for (const e of result.fanout?.errors ?? []) out.push(e);
  for (const s of result.fanout?.steps ?? []) {
    if (s.writeErrors > 0) out.push(`fanout ${s.target} ${s.rate}/s: ${s.writeErrors} failed writes, e.g. ${s.errorSamples.join(' | ')}`);
    if (s.missingDeliveries > 0) out.push(`fanout ${s.target} ${s.rate}/s: ${s.missingDeliveries} of ${s.expectedDeliveries} deliveries missing`);
    if (s.watchersTerminated > 0) out.push(`fanout ${s.target} ${s.rate}/s: ${s.watchersTerminated} watchers terminated`);
  }
  for (const e of result.memory?.errors ?? []) out.push(e);
  return out;
}
