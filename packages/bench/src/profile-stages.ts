/**
 * Splits a V8 CPU profile (the `.cpuprofile` JSON) into request stages: every sample goes to the
 * stage of the innermost frame on its stack that a rule names (so a Buffer copy made by the
 * protobuf encoder counts as protobuf, and node's HTTP/2 write under a handler counts as HTTP/2).
 * Of nested node layers the outermost counts (a socket write made by HTTP/2 is HTTP/2's), except
 * that HTTP/2's compatibility layer (the request/response objects shaped like HTTP/1.1's) keeps
 * what it calls and what calls it, so its stage is what answering on the stream directly would
 * save plus the core calls it makes; node's layers below the etcd client count as the etcd
 * client, whose transport they are. HTTP/2 core work with no caller in kapi (a frame received)
 * counts as HTTP/2 whichever session it is for, the etcd client's included.
 */

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time that was not idle, ms. */
  busyMs: number;
  stages: { stage: string; ms: number }[];
  topFunctions: { name: string; where: string; ms: number }[];
}

/**
 * Stage names shared by kapi's (V8) and kube-apiserver's (Go) profiles, so that the two line up
 * in one table. A few exist on one side only (Go's allocator, scheduler and goroutine stacks, kube's conversion
 * between API versions and its internal version).
 */
export const Stage = {
  gc: 'GC',
  etcdClient: 'etcd client',
  storage: 'storage (etcd store, codec)',
  watchCache: 'watch cache',
  protobuf: 'protobuf codec',
  managedFields: 'managed fields',
  machinery: 'machinery (meta, validation, other)',
  registry: 'registry (store: defaults, admission, validation)',
  authn: 'authn/authz',
  audit: 'audit',
  admission: 'admission plugins',
  body: 'body read/decode',
  filters: 'filters, APF, metrics, tracing',
  apiserver: 'apiserver (routing, handlers, encode)',
  http2Compat: 'HTTP/2 compat layer',
  http2: 'HTTP/2',
  http1: 'HTTP/1.1',
  tls: 'TLS',
  sockets: 'sockets, streams, syscalls',
  allocation: 'allocation (Go malloc)',
  conversion: 'conversion (kube internal version)',
  scheduler: 'scheduler, stacks, runtime (Go)',
  other: 'other (native, program, unmatched)',
} as const;

/**
 * Transport layers: of a run of nested ones the outermost counts (a socket write made by HTTP/2
 * is HTTP/2's work), and under the etcd client they are the etcd client's, whose transport they are.
 */
export const transportStages: ReadonlySet<string> = new Set([Stage.http2Compat, Stage.http2, Stage.http1, Stage.tls, Stage.sockets]);

/** [stage, test on a frame's url or function name], first match wins; order matters. */
const rules: [string, (url: string, fn: string) => boolean][] = [
  [Stage.gc, (_u, f) => f === '(garbage collector)'],
  [Stage.etcdClient, (u) => u.includes('@grpc/') || u.includes('/etcd3/') || u.includes('/protobufjs/') || u.includes('/storage/dist/etcd/etcd-client') || u.includes('/storage/dist/etcd/grpc/')],
  [Stage.storage, (u) => u.includes('/storage/dist/')],
  [Stage.watchCache, (u) => u.includes('/watch-cache/dist/')],
  [Stage.protobuf, (u) => u.includes('/machinery/dist/protobuf/')],
  [Stage.managedFields, (u) => u.includes('/machinery/dist/managed-fields/')],
  [Stage.machinery, (u) => u.includes('/machinery/dist/')],
  [Stage.registry, (u) => u.includes('/registry/dist/')],
  [Stage.authn, (u) => u.includes('/apiserver/dist/auth/')],
  [Stage.audit, (u) => u.includes('/apiserver/dist/audit/')],
  [Stage.admission, (u) => u.includes('/apiserver/dist/admission/')],
  [Stage.body, (u) => u.includes('/apiserver/dist/body/')],
  [Stage.filters, (u) => /\/apiserver\/dist\/(flowcontrol|filters|metrics|tracing|max-in-flight|request-info)/.test(u) || u.includes('/@opentelemetry/') || u.includes('/prom-client/')],
  [Stage.apiserver, (u) => u.includes('/apiserver/dist/')],
  [Stage.http2Compat, (u) => u === 'node:internal/http2/compat'],
  [Stage.http2, (u) => u.startsWith('node:internal/http2') || u === 'node:http2'],
  [Stage.http1, (u) => u.startsWith('node:_http') || u === 'node:http' || u === 'node:https'],
  [Stage.tls, (u) => u.startsWith('node:_tls') || u === 'node:tls' || u.startsWith('node:internal/tls')],
  [Stage.sockets, (u) => u.startsWith('node:net') || u.startsWith('node:internal/stream') || u.startsWith('node:internal/timers') || u === 'node:stream'],
];

const unattributed = Stage.other;
const etcdClient = Stage.etcdClient;
const nodeLayer = (stage: string) => transportStages.has(stage);

/**
 * The stage of one V8 stack, innermost frame first: the innermost frame a rule names, or for
 * node's layers the outermost of a run of them (sockets under HTTP/2 are HTTP/2's work), or the
 * etcd client when it called them.
 */
export function v8StageOf(frames: Iterable<{ url: string; functionName: string }>): string {
  let stage: string | undefined;
  for (const frame of frames) {
    const found = rules.find(([, test]) => test(frame.url, frame.functionName))?.[0];
    if (found === undefined) continue;
    if (stage !== undefined && !nodeLayer(found)) {
      if (found === etcdClient) stage = etcdClient;
      break;
    }
    if (stage !== Stage.http2Compat) stage = found;
    if (!nodeLayer(found)) break;
  }
  return stage ?? unattributed;
}

export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map<number, CpuProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const callFrames = function* (id: number): Iterable<CpuProfileNode['callFrame']> {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) yield byId.get(at)!.callFrame;
  };
  const stageCache = new Map<number, string>();
  const stageOf = (id: number): string => {
    let stage = stageCache.get(id);
    if (stage === undefined) {
      stage = v8StageOf(callFrames(id));
      stageCache.set(id, stage);
    }
    return stage;
  };
  const summary = new SummaryBuilder(1000);
  const capUs = sampleWeightCap(profile.timeDeltas);
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    // A sample's time is the delta to the next sample, at most the cap (see sampleWeightCap).
    const us = Math.min(profile.timeDeltas[i + 1] ?? 0, capUs);
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    const where = frame.url === '' ? '' : `${frame.url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${frame.lineNumber + 1}`;
    summary.add(stageOf(id), us, { name: frame.functionName || '(anonymous)', where });
  }
  return summary.build();
}

/**
 * Adds samples up into a ProfileSummary: busy time, time per stage, and self time per function
 * (the sample's innermost frame), in the profile's own unit (`perMs` of them make a ms).
 */
export class SummaryBuilder {
  private busy = 0;
  private readonly stages = new Map<string, number>();
  private readonly self = new Map<string, { name: string; where: string; time: number }>();

  constructor(private readonly perMs: number) {}

  /** One sample of `time` in `stage`, whose innermost frame is `leaf` (none: busy time without a function). */
  add(stage: string, time: number, leaf: { name: string; where: string } | undefined): void {
    this.busy += time;
    this.stages.set(stage, (this.stages.get(stage) ?? 0) + time);
    if (leaf === undefined) return;
    const key = `${leaf.name}@${leaf.where}`;
    const entry = this.self.get(key) ?? { name: leaf.name, where: leaf.where, time: 0 };
    entry.time += time;
    this.self.set(key, entry);
  }

  /** The summary: stages by time, and the 60 functions with the most self time. */
  build(): ProfileSummary {
    const ms = (time: number) => time / this.perMs;
    return {
      busyMs: ms(this.busy),
      stages: [...this.stages].map(([stage, time]) => ({ stage, ms: ms(time) })).sort((a, b) => b.ms - a.ms),
      topFunctions: [...this.self.values()].sort((a, b) => b.time - a.time).slice(0, 60).map((f) => ({ name: f.name, where: f.where, ms: ms(f.time) })),
    };
  }
}

/**
 * The most time one sample may stand for: four times the median gap between samples. V8 weighs
 * a sample by the wall time until the next one, so a process descheduled on a loaded machine
 * makes one sample stand for up to hundreds of ms of time it did not run — enough to credit half
 * a stage to whatever function happened to be on the stack.
 */
export function sampleWeightCap(timeDeltas: readonly number[]): number {
  const positive = timeDeltas.filter((d) => d > 0).sort((a, b) => a - b);
  if (positive.length === 0) return Infinity;
  return 4 * positive[Math.floor(positive.length / 2)]!;
}
