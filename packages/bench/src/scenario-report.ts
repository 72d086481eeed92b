/** Report tables of the list (S3), fan-out (S4) and memory (S5) scenarios. */
import { ratio } from './stats.js';
import type { SuiteResult } from './suite.js';
import type { ListScenarioResult, ListStep } from './list-scenario.js';
import type { RestartScenarioResult } from './restart-scenario.js';
import type { MixedScenarioResult } from './mixed-scenario.js';
import type { LargeScenarioResult } from './large-scenario.js';
import type { PodsScenarioResult } from './pods-scenario.js';
import type { ReplicaScenarioResult } from './replica-scenario.js';
import type { AdmissionScenarioResult } from './admission-scenario.js';

const mib = (bytes: number | undefined): string => fixed(bytes === undefined ? undefined : bytes / 2 ** 20, 0);

/** S6: one row per figure — kapi, its baseline, the ratio and the target. */
export function restartRows(r: RestartScenarioResult): string[][] {
  return [
    ['figure', 'kapi', 'baseline', 'baseline is', 'kapi ÷ baseline', 'target'],
    ['cache ready after process start, ms', fixed(r.cacheReadyMs, 0), fixed(r.etcdRangeMs, 0), `raw etcd range of the ${r.objects} keys`, fixed(ratio(r.cacheReadyMs, r.etcdRangeMs), 1), '≤ 2,000 ms'],
    ['first HTTP answer after process start (Node boot, TLS, routes), ms', fixed(r.listeningMs, 0), '—', '', '—', ''],
    ['of which the ConfigMap cache filling (its cacher created → ready, server metric), ms', fixed(r.cacheFillMs, 0), fixed(r.etcdRangeMs, 0), `raw etcd range of the ${r.objects} keys`, fixed(ratio(r.cacheFillMs, r.etcdRangeMs), 1), ''],
    ['server CPU used by the time the cache answered, ms', fixed(r.cacheReadyCpuMs, 0), '—', 'independent of machine load, unlike the wall times', '—', ''],
    ['cache ready after the first HTTP answer, ms', fixed(r.cacheReadyMs - r.listeningMs, 0), fixed(r.etcdRangeMs, 0), `raw etcd range of the ${r.objects} keys`, fixed(ratio(r.cacheReadyMs - r.listeningMs, r.etcdRangeMs), 1), ''],
    ['/readyz ok after process start, ms', fixed(r.readyMs, 0), '—', '', '—', ''],
    [`all ${r.informers} informers watching again after the kill, ms`, fixed(r.allSyncedMs, 0), fixed(r.bareRelistMs, 0), `${r.informers} lists at once from bare node:http`, fixed(ratio(r.allSyncedMs, r.bareRelistMs), 1), '≤ 30,000 ms'],
    ['informer back after the kill p50 / p99, ms', `${fixed(r.synced.p50, 0)} / ${fixed(r.synced.p99, 0)}`, '—', 'client-go backoff 0.8–1.6 s first', '—', ''],
    ['peak RSS during the storm, MiB', mib(r.peakRssBytes), mib(r.steadyRssBytes), 'steady RSS before the kill', fixed(ratio(r.peakRssBytes, r.steadyRssBytes), 2), '≤ 2×'],
    ['relists / 410s / failed attempts', `${r.relists} / ${r.gone} / ${r.failedAttempts}`, '—', '', '—', ''],
  ];
}

/** S7 as rows: PATCH latency against the raw etcd update at the same rate, deliveries, drift. */
export function mixedRows(r: MixedScenarioResult): string[][] {
  return [
    ['figure', 'kapi', 'baseline', 'baseline is', 'kapi ÷ baseline', 'target'],
    ['PATCH p50 / p99, ms', `${fixed(r.patch.p50, 1)} / ${fixed(r.patch.p99, 1)}`, `${fixed(r.etcdUpdate.p50, 1)} / ${fixed(r.etcdUpdate.p99, 1)}`, 'raw etcd range + compare-and-put txn, same rate', fixed(ratio(r.patch.p99, r.etcdUpdate.p99), 1), 'p99 ≤ 50 ms'],
    ['writes done / skipped / failed', `${r.writes} / ${r.writesSkipped} / ${r.writeErrors}`, '', `${r.writers} writers, ${r.rate}/s, ${r.durationSeconds} s`, '', ''],
    [`delivery to ${r.watchers} watchers p50 / p99, ms`, `${fixed(r.delivery.p50, 1)} / ${fixed(r.delivery.p99, 1)}`, '—', '', '—', ''],
    ['watchers dropped / deliveries missing', `${r.watchersDropped} / ${r.missingDeliveries}`, '', '', '', '0 dropped'],
    ['RSS start / end / max, MiB', `${mib(r.rssStartBytes)} / ${mib(r.rssEndBytes)} / ${mib(r.rssMaxBytes)}`, '', '', '', ''],
    ['RSS drift (last tenth vs first tenth)', `${fixed(r.rssDrift * 100, 1)}%`, '', '', '', '< 5%'],
    ['RSS drift once the watch history is full (last tenth vs the tenth from half-way)', r.rssDriftSettled === undefined ? '—' : `${fixed(r.rssDriftSettled * 100, 1)}%`, '', '', '', '< 5%'],
    ['server CPU ms per PATCH (incl. its watch deliveries)', fixed(r.serverCpuSecondsPerWrite === undefined ? undefined : r.serverCpuSecondsPerWrite * 1000, 2), '', '', '', ''],
  ];
}

/** Admission: each step, then the ratio of creates/s with the rule and policy to without. */
export function admissionRows(r: AdmissionScenarioResult): string[][] {
  return [
    ['round', 'mode', 'conc', 'creates/s', 'p50 ms', 'p99 ms', 'server cpu ms/create', 'errors'],
    ...r.steps.map((s) => [String(s.round), s.mode, String(s.concurrency), fixed(s.opsPerSecond, 1), fixed(s.latency.p50, 1), fixed(s.latency.p99, 1), fixed(s.serverCpuMsPerOp, 2), String(s.errors)]),
    ['', `with ÷ without (rule ${r.ruleEnforced ? 'enforced' : 'NOT enforced'}, policy ${r.policyEnforced ? 'enforced' : 'NOT enforced'})`, '', fixed(r.ratio, 2), '', '', `${fixed(r.cpuRatio, 2)} (without ÷ with)`, 'target ≥ 0.80'],
  ];
}

/** S8: kapi's cache vs the bare server at the same concurrency. */
export function largeRows(r: LargeScenarioResult): string[][] {
  const bare = r.steps.find((s) => s.source === 'bare');
  return [
    ['source', 'conc', 'lists/s', 'p50 ms', 'p99 ms', 'max ms', 'body MB', 'MB/s', 'server cpu ms/list', 'peak server RSS MiB', 'errors', 'p99 ÷ bare'],
    ...r.steps.map((s) => [
      s.source,
      String(s.concurrency),
      fixed(s.opsPerSecond, 2),
      fixed(s.latency.p50, 0),
      fixed(s.latency.p99, 0),
      fixed(s.latency.max, 0),
      fixed(s.bodyBytes / 1e6, 0),
      fixed((s.bodyBytes * s.opsPerSecond) / 1e6, 0),
      fixed(s.serverCpuMsPerOp, 0),
      mib(s.peakServerRssBytes),
      String(s.errors),
      fixed(ratio(s.latency.p99, bare?.latency.p99 ?? Number.NaN), 1),
    ]),
  ];
}

/** S9: watch delay and consistent reads, B (the other replica) against A (the writer). */
export function replicaRows(r: ReplicaScenarioResult): string[][] {
  const watchA = r.watch.find((w) => w.replica === 'A')?.step;
  const readA = r.reads.find((x) => x.replica === 'A (writer)');
  return [
    ['figure', 'p50 ms', 'p99 ms', 'max ms', 'samples', 'missing / stale', 'p99 ÷ same replica (A)', 'target'],
    ...r.watch.map((w) => [
      `watch delivery on ${w.replica} after A's ack (${w.step.watchers} watchers, ${w.step.rate} writes/s)`,
      fixed(w.step.delivery.p50, 1),
      fixed(w.step.delivery.p99, 1),
      fixed(w.step.delivery.max, 0),
      String(w.step.delivery.count),
      String(w.step.missingDeliveries),
      w.replica === 'B' ? fixed(ratio(w.step.delivery.p99, watchA?.delivery.p99 ?? Number.NaN), 1) : '1.0',
      w.replica === 'B' ? '≤ 50 ms' : '',
    ]),
    ...r.reads.map((x) => [
      `consistent LIST on ${x.replica} right after a write on A`,
      fixed(x.latency.p50, 1),
      fixed(x.latency.p99, 1),
      fixed(x.latency.max, 0),
      String(x.latency.count),
      String(x.stale),
      x.replica === 'A (writer)' ? '1.0' : fixed(ratio(x.latency.p99, readA?.latency.p99 ?? Number.NaN), 1),
      x.replica === 'B (other replica)' ? '≤ 50 ms' : '',
    ]),
  ];
}

const fixed = (n: number | undefined, digits: number): string => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits));

/** `before → peak` in MiB (before the warm-up, peak while measured), or — when unknown. */
function rssRise(before: number | undefined, peak: number | undefined): string {
  if (before === undefined || peak === undefined) return '—';
  return `${(before / 2 ** 20).toFixed(0)} → ${(peak / 2 ** 20).toFixed(0)}`;
}

/** One row per list step, with throughput and p50 relative to the bare node:http server at the same concurrency. */
export function listRows(result: SuiteResult): string[][] {
  return listRowsOf(result.lists);
}

/** listRows for one list pass (one size); pages and selector misses have no bare counterpart. */
export function listRowsOf(lists: ListScenarioResult | undefined): string[][] {
  const steps = lists?.steps ?? [];
  const whole = (s: ListStep) => s.source !== 'kapi-page' && s.source !== 'kapi-selector-miss';
  const bare = (s: ListStep) => (whole(s) ? steps.find((b) => b.source === 'bare' && b.concurrency === s.concurrency) : undefined);
  return [
    ['source', 'request', 'conc', 'lists/s', 'p50 ms', 'p99 ms', 'max ms', 'MB/s', 'body MB', 'server cpu ms/list', 'server RSS MiB before → peak', 'errors', 'throughput ÷ bare', 'p50 ÷ bare'],
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
      rssRise(s.rssBeforeBytes?.['server'], s.usage['server']?.peakRssBytes),
      String(s.errors),
      fixed(ratio(s.opsPerSecond, bare(s)?.opsPerSecond ?? Number.NaN), 3),
      fixed(ratio(s.latency.p50, bare(s)?.latency.p50 ?? Number.NaN), 1),
    ]),
  ];
}

/** One row per fan-out step; the last column divides kapi's p99 by the bare fan-out's at the same rate. */
export function fanoutRows(result: SuiteResult): string[][] {
  const steps = result.fanout?.steps ?? [];
  const variantOf = (s: (typeof steps)[number]) => s.variant ?? 'all';
  // The TLS variants compare with the bare fan-out of the plain one (it has no TLS variant).
  const bare = (rate: number, variant: string) =>
    steps.find((s) => s.target === 'bare' && s.rate === rate && variantOf(s) === (variant === 'tls-http1' || variant === 'http2' ? 'all' : variant));
  const label = (s: (typeof steps)[number]): string => {
    switch (variantOf(s)) {
      case 'field-selector':
        return `${s.target}, field selector (${s.watchersPerEvent ?? '?'} per event)`;
      case 'tls-http1':
        return `${s.target}, HTTPS, HTTP/1.1 (a connection per watch)`;
      case 'http2':
        return `${s.target}, HTTPS, HTTP/2 (${s.connections ?? '?'} connections)`;
      default:
        return s.target;
    }
  };
  return [
    ['target', 'watchers', 'writes/s', 'writes', 'p50 ms', 'p99 ms', 'max ms', 'p99 from request ms', 'write p99 ms', 'missing', 'terminated', 'skipped writes', 'server cores', 'client cores', 'p99 ÷ bare'],
    ...steps.map((s) => [
      label(s),
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
      fixed(ratio(s.delivery.p99, bare(s.rate, variantOf(s))?.delivery.p99 ?? Number.NaN), 1),
    ]),
  ];
}

/** S10: creates, watch delivery by node, LIST by spec.nodeName. */
export function podsRows(r: PodsScenarioResult): string[][] {
  const w = r.watch;
  return [
    ['step', 'ops/s', 'p50 ms', 'p99 ms', 'server cpu ms/op', 'errors', 'notes'],
    ['create pod (c=16)', fixed(r.creates.opsPerSecond, 0), fixed(r.creates.latency.p50, 1), fixed(r.creates.latency.p99, 1), fixed(r.createCpuMs, 2), String(r.creates.errors), `${r.nodes} node watches open`],
    w === undefined
      ? ['watch by node', '', '', '', '', 'not run', '']
      : ['watch by node: delivery', String(w.rate), fixed(w.delivery.p50, 1), fixed(w.delivery.p99, 1), fixed(w.usage ? (w.usage.cpuSeconds * 1000) / Math.max(w.writes, 1) : undefined, 2), String(w.writeErrors + w.missingDeliveries + w.watchersTerminated), `${w.writes} PATCHes, 1 of ${w.watchers} watchers each (cache offered ${fixed(r.offersPerWrite, 1)}); ${w.missingDeliveries} missing`],
    ['LIST spec.nodeName=… RV=0 (c=16)', fixed(r.lists.opsPerSecond, 0), fixed(r.lists.latency.p50, 1), fixed(r.lists.latency.p99, 1), fixed(r.listCpuMs, 2), String(r.lists.errors), `${r.itemsPerList} of ${r.podsCreated} pods per list`],
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
  for (const lists of result.moreLists ?? []) for (const s of lists.steps) if (s.errors > 0) out.push(`list ${lists.objects} ${s.source} c=${s.concurrency}: ${s.errors} errors, e.g. ${s.errorSamples.join(' | ')}`);
  for (const e of result.restart?.errors ?? []) out.push(e);
  if (result.mixed) {
    out.push(...result.mixed.errors);
    if (result.mixed.writeErrors > 0) out.push(`mixed: ${result.mixed.writeErrors} failed PATCHes, e.g. ${result.mixed.errorSamples.join(' | ')}`);
    if (result.mixed.missingDeliveries > 0) out.push(`mixed: ${result.mixed.missingDeliveries} of ${result.mixed.expectedDeliveries} deliveries missing`);
    if (result.mixed.watchersDropped > 0) out.push(`mixed: ${result.mixed.watchersDropped} watchers dropped`);
  }
  if (result.admission) {
    out.push(...result.admission.errors);
    for (const s of result.admission.steps) if (s.errors > 0) out.push(`admission round ${s.round} ${s.mode}: ${s.errors} errors, e.g. ${s.errorSamples.join(' | ')}`);
  }
  if (result.large) {
    out.push(...result.large.errors);
    for (const s of result.large.steps) if (s.errors > 0) out.push(`large ${s.source}: ${s.errors} errors, e.g. ${s.errorSamples.join(' | ')}`);
  }
  if (result.pods) {
    out.push(...result.pods.errors);
    for (const [step, run] of [['creates', result.pods.creates], ['lists', result.pods.lists]] as const) if (run.errors > 0) out.push(`pods ${step}: ${run.errors} errors, e.g. ${run.errorSamples.join(' | ')}`);
    const w = result.pods.watch;
    if (w !== undefined && w.writeErrors + w.missingDeliveries + w.watchersTerminated > 0) out.push(`pods watch: ${w.missingDeliveries} missing, ${w.writeErrors} failed writes, ${w.watchersTerminated} terminated`);
  }
  if (result.replicas) {
    out.push(...result.replicas.errors);
    for (const x of result.replicas.reads) if (x.errors + x.stale > 0) out.push(`replicas: ${x.replica}: ${x.errors} failed and ${x.stale} stale consistent LISTs`);
    for (const w of result.replicas.watch) if (w.step.missingDeliveries + w.step.writeErrors + w.step.watchersTerminated > 0) out.push(`replicas: watch on ${w.replica}: ${w.step.missingDeliveries} missing, ${w.step.writeErrors} failed writes, ${w.step.watchersTerminated} terminated`);
  }
  return out;
}
