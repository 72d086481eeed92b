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

/** [stage, test on a frame's url or function name], first match wins; order matters. */
const rules: [string, (url: string, fn: string) => boolean][] = [
  ['GC', (_u, f) => f === '(garbage collector)'],
  ['etcd client (grpc-js, etcd3)', (u) => u.includes('@grpc/') || u.includes('/etcd3/') || u.includes('/protobufjs/') || u.includes('/storage/dist/etcd/etcd-client') || u.includes('/storage/dist/etcd/grpc/')],
  ['storage (etcd store, codec)', (u) => u.includes('/storage/dist/')],
  ['watch cache', (u) => u.includes('/watch-cache/dist/')],
  ['protobuf codec', (u) => u.includes('/machinery/dist/protobuf/')],
  ['managed fields', (u) => u.includes('/machinery/dist/managed-fields/')],
  ['machinery (meta, validation, other)', (u) => u.includes('/machinery/dist/')],
  ['registry (store: defaults, admission, validation)', (u) => u.includes('/registry/dist/')],
  ['authn/authz', (u) => u.includes('/apiserver/dist/auth/')],
  ['audit', (u) => u.includes('/apiserver/dist/audit/')],
  ['admission plugins', (u) => u.includes('/apiserver/dist/admission/')],
  ['body read/decode', (u) => u.includes('/apiserver/dist/body/')],
  ['filters, APF, metrics, tracing', (u) => /\/apiserver\/dist\/(flowcontrol|filters|metrics|tracing|max-in-flight|request-info)/.test(u) || u.includes('/@opentelemetry/') || u.includes('/prom-client/')],
  ['apiserver (routing, handlers, encode)', (u) => u.includes('/apiserver/dist/')],
  ['HTTP/2 compat layer (node)', (u) => u === 'node:internal/http2/compat'],
  ['HTTP/2 (node)', (u) => u.startsWith('node:internal/http2') || u === 'node:http2'],
  ['HTTP/1.1 (node)', (u) => u.startsWith('node:_http') || u === 'node:http' || u === 'node:https'],
  ['TLS (node)', (u) => u.startsWith('node:_tls') || u === 'node:tls' || u.startsWith('node:internal/tls')],
  ['sockets, streams, timers (node)', (u) => u.startsWith('node:net') || u.startsWith('node:internal/stream') || u.startsWith('node:internal/timers') || u === 'node:stream'],
];

const unattributed = 'other (native, program, unmatched)';
const etcdClient = rules[1]![0];
const compatLayer = 'HTTP/2 compat layer (node)';
const nodeLayer = (stage: string) => stage.endsWith('(node)');

export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map<number, CpuProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const ruleCache = new Map<number, string | undefined>();
  const ruleOf = (id: number): string | undefined => {
    if (ruleCache.has(id)) return ruleCache.get(id);
    const frame = byId.get(id)!.callFrame;
    const stage = rules.find(([, test]) => test(frame.url, frame.functionName))?.[0];
    ruleCache.set(id, stage);
    return stage;
  };
  const stageCache = new Map<number, string>();
  const stageOf = (id: number): string => {
    const cached = stageCache.get(id);
    if (cached !== undefined) return cached;
    // The innermost named frame, or for node's layers the outermost of a run of them (sockets
    // under HTTP/2 are HTTP/2's work), or the etcd client when it called them.
    let stage: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const found = ruleOf(at);
      if (found === undefined) continue;
      if (stage !== undefined && !nodeLayer(found)) {
        if (found === etcdClient) stage = etcdClient;
        break;
      }
      if (stage !== compatLayer) stage = found;
      if (!nodeLayer(found)) break;
    }
    stage ??= unattributed;
    stageCache.set(id, stage);
    return stage;
  };
  const stageUs = new Map<string, number>();
  const selfUs = new Map<string, { name: string; where: string; us: number }>();
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    // A sample's time is the delta to the next sample.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busyUs += us;
    const stage = stageOf(id);
    stageUs.set(stage, (stageUs.get(stage) ?? 0) + us);
    const where = frame.url === '' ? '' : `${frame.url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${frame.lineNumber + 1}`;
    const key = `${frame.functionName}@${where}`;
    const entry = selfUs.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    selfUs.set(key, entry);
  }
  return {
    busyMs: busyUs / 1000,
    stages: [...stageUs].map(([stage, us]) => ({ stage, ms: us / 1000 })).sort((a, b) => b.ms - a.ms),
    topFunctions: [...selfUs.values()].sort((a, b) => b.us - a.us).slice(0, 60).map((f) => ({ name: f.name, where: f.where, ms: f.us / 1000 })),
  };
}
