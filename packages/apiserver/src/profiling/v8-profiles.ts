/**
 * V8's profiles of this process's main thread as pprof profiles (`@kapi/machinery`'s model):
 * the CPU profiler (Profiler.start/stop) and the sampling heap profiler
 * (HeapProfiler.startSampling/getSamplingProfile), through an inspector session on this
 * thread. Only the main thread is profiled: the YAML worker threads and, with --workers, the
 * other server processes are not. One session serves the whole process, so two servers in one
 * process (tests) share the heap sampler and the one-CPU-profile-at-a-time rule, as Go's
 * profiles are per process.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { PprofFrame, PprofProfile } from '@kapi/machinery';
import { emptyPprof } from '@kapi/machinery';

/** A CPU sample every millisecond (Go samples every 10 ms; V8 costs little more at 1 ms and a short profile gets enough samples). */
export const CPU_SAMPLING_INTERVAL_US = 1000;

/** Bytes allocated between heap samples, on average: Go's default MemProfileRate, which kube-apiserver keeps. */
export const HEAP_SAMPLING_INTERVAL_BYTES = 512 * 1024;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  /** µs from the previous sample (the first: from startTime). */
  timeDeltas?: number[];
}

interface HeapProfileNode {
  id: number;
  callFrame: CallFrame;
  children: HeapProfileNode[];
}

interface HeapProfile {
  head: HeapProfileNode;
  samples?: { size: number; nodeId: number }[];
}

/** Thrown when the CPU profiler is taken; the text is Go's (`Could not enable CPU profiling: ` + it). */
export class CpuProfilerBusy extends Error {
  constructor() {
    super('cpu profiling already in use');
  }
}

let session: Session | undefined;
let cpuBusy = false;
let heapSampling: Promise<void> | undefined;
let heapSamplingStartedAt = 0;

/** The process's inspector session, connected on first use. Throws where node has no inspector. */
function inspector(): Session {
  if (session === undefined) {
    const s = new Session();
    s.connect();
    session = s;
  }
  return session;
}

function frameOf(callFrame: CallFrame): PprofFrame {
  return {
    function: callFrame.functionName === '' ? '(anonymous)' : callFrame.functionName,
    // A module's file:// URL as a path, so that `pprof -list` finds the source.
    file: callFrame.url.startsWith('file://') ? decodeURIComponent(callFrame.url.slice('file://'.length)) : callFrame.url,
    line: callFrame.lineNumber >= 0 ? callFrame.lineNumber + 1 : 0,
  };
}

/** V8's profile root (`(root)`) is no frame of any stack. */
const ROOT = '(root)';

/**
 * Samples the main thread's CPU for `durationMs`, or until `stop` aborts: the samples as a
 * pprof CPU profile (samples/count and cpu/nanoseconds, a period of one sampling interval; see
 * {@link cpuProfileToPprof} for what a sample's nanoseconds are).
 * Samples of an idle thread (V8's `(idle)`: the event loop waiting) are left out, as Go's
 * profile holds CPU time only; `(program)` (native code outside JavaScript: TLS, HTTP parsing,
 * the inspector) and `(garbage collector)` stay. Rejects with {@link CpuProfilerBusy} while
 * another profile runs.
 */
export async function cpuProfile(durationMs: number, stop: AbortSignal): Promise<PprofProfile> {
  if (cpuBusy) throw new CpuProfilerBusy();
  cpuBusy = true;
  try {
    const s = inspector();
    await s.post('Profiler.enable');
    await s.post('Profiler.setSamplingInterval', { interval: CPU_SAMPLING_INTERVAL_US });
    const timeNanos = Date.now() * 1e6;
    const cpuBefore = mainThreadCpuNanos();
    await s.post('Profiler.start');
    await waitFor(durationMs, stop);
    const { profile } = await s.post('Profiler.stop');
    const cpuAfter = mainThreadCpuNanos();
    const threadCpuNanos = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
    return cpuProfileToPprof(profile as CpuProfile, timeNanos, threadCpuNanos);
  } finally {
    cpuBusy = false;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * The main thread's CPU time so far (Linux: /proc, in clock ticks of 10 ms), undefined elsewhere.
 * This is the thread the CPU profiler samples.
 */
function mainThreadCpuNanos(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // After the parenthesized name: state is field 3, utime and stime fields 14 and 15.
    const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * 10_000_000;
  } catch {
    return undefined;
  }
}

/**
 * V8's CPU profile (the `.cpuprofile` JSON) as pprof: one sample per distinct stack.
 *
 * What a sample's CPU is: Go counts one period per SIGPROF of CPU time; V8 has no CPU-time
 * timer. It samples on a wall-clock timer thread which, on a loaded machine, misses ticks
 * (~2,700 samples in 5.4 s at a nominal 1 ms), while a gap between samples may include time the
 * thread was descheduled. Against the main thread's CPU time from /proc over the same busy
 * window, count × period gave 56–60 % of it at load ~22, and the gap to the next sample (capped
 * at four median gaps) 81–83 % there but 160 % under heavier load. So a sample is weighed by its
 * capped gap, and when `threadCpuNanos` (the main thread's CPU over the profile) is known, the
 * weights are scaled to add up to it: the total is the thread's true CPU time, its split over
 * stacks V8's sampling.
 */
export function cpuProfileToPprof(profile: CpuProfile, timeNanos: number, threadCpuNanos?: number): PprofProfile {
  const byId = new Map<number, CpuProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const gaps = deltas.filter((d) => d > 0).sort((a, b) => a - b);
  const medianUs = gaps[Math.floor(gaps.length / 2)] ?? CPU_SAMPLING_INTERVAL_US;
  const sums = new Map<number, [number, number]>();
  for (let i = 0; i < samples.length; i++) {
    const sum = sums.get(samples[i]!) ?? [0, 0];
    sum[0] += 1;
    sum[1] += Math.min(deltas[i + 1] ?? medianUs, 4 * medianUs);
    sums.set(samples[i]!, sum);
  }
  let busyUs = 0;
  for (const [id, [, us]] of sums) if (byId.get(id)?.callFrame.functionName !== '(idle)') busyUs += us;
  const nanosPerUs = threadCpuNanos !== undefined && threadCpuNanos > 0 && busyUs > 0 ? threadCpuNanos / busyUs : 1000;
  const periodNs = CPU_SAMPLING_INTERVAL_US * 1000;
  const out = emptyPprof([['samples', 'count'], ['cpu', 'nanoseconds']], {
    timeNanos,
    durationNanos: Math.max(0, Math.round((profile.endTime - profile.startTime) * 1000)),
    periodType: ['cpu', 'nanoseconds'],
    period: periodNs,
    comments: [`kapi: V8's CPU profiler on the server process's main thread, idle time left out; ${threadCpuNanos !== undefined ? "the samples add up to the thread's CPU time" : 'a sample weighs the time to the next one'}`],
  });
  for (const [id, [count, us]] of sums) {
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') continue;
    const stack: PprofFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.functionName !== ROOT || frame.url !== '') stack.push(frameOf(frame));
    }
    out.samples.push({ stack, values: [count, Math.round(us * nanosPerUs)] });
  }
  return out;
}

/**
 * Starts V8's sampling heap profiler for the rest of the process's life (once per process;
 * later calls return the same promise). A sample every 512 KiB allocated costs nothing
 * measurable (a JSON parse/stringify loop ran 1–2% slower, within noise; at V8's default 32 KiB
 * it ran 10–30% slower). Fails where another inspector client already samples the heap.
 */
export function startHeapSampling(): Promise<void> {
  heapSampling ??= (async () => {
    await inspector().post('HeapProfiler.startSampling', { samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES });
    heapSamplingStartedAt = Date.now();
  })();
  return heapSampling;
}

/** A full garbage collection (Go's `gc=1` before a heap profile). */
export async function collectGarbage(): Promise<void> {
  await inspector().post('HeapProfiler.collectGarbage');
}

/**
 * The live objects the heap sampler has seen since it started, as a pprof heap profile
 * (inuse_objects/count, inuse_space/bytes, both estimates for all objects as Go's are). V8
 * gives each sample the bytes it stands for (an object of s bytes sampled at rate R stands for
 * s / (1 − e^(−s/R)) bytes); the objects it stands for are those bytes over s, s solved back
 * from them. V8 forgets a sample when its object is collected, so there are no allocation
 * totals (Go's alloc_objects and alloc_space).
 */
export async function heapProfile(): Promise<PprofProfile> {
  await startHeapSampling();
  const profile = (await inspector().post('HeapProfiler.getSamplingProfile')).profile as unknown as HeapProfile;
  return heapProfileToPprof(profile, Date.now() * 1e6, heapSamplingStartedAt);
}

export function heapProfileToPprof(profile: HeapProfile, timeNanos: number, sampledSinceMs: number): PprofProfile {
  const stacks = new Map<number, PprofFrame[]>();
  const walk = (node: HeapProfileNode, outer: PprofFrame[]) => {
    const isRoot = node.callFrame.functionName === ROOT && node.callFrame.url === '';
    const stack = isRoot ? outer : [frameOf(node.callFrame), ...outer];
    stacks.set(node.id, stack);
    for (const child of node.children) walk(child, stack);
  };
  walk(profile.head, []);
  const sums = new Map<number, [number, number]>();
  for (const sample of profile.samples ?? []) {
    const sum = sums.get(sample.nodeId) ?? [0, 0];
    sum[0] += sample.size / objectSize(sample.size, HEAP_SAMPLING_INTERVAL_BYTES);
    sum[1] += sample.size;
    sums.set(sample.nodeId, sum);
  }
  const out = emptyPprof([['inuse_objects', 'count'], ['inuse_space', 'bytes']], {
    timeNanos,
    periodType: ['space', 'bytes'],
    period: HEAP_SAMPLING_INTERVAL_BYTES,
    defaultSampleType: 'inuse_space',
    comments: [`kapi: V8's sampling heap profiler on the server process's main thread: live objects sampled since ${new Date(sampledSinceMs).toISOString()}; no allocation totals`],
  });
  for (const [nodeId, [objects, bytes]] of sums) {
    out.samples.push({ stack: stacks.get(nodeId) ?? [], values: [Math.round(objects), Math.round(bytes)] });
  }
  return out;
}

/**
 * The size s of an object whose sample stands for `bytes` at sampling rate `rate`, i.e. the s
 * with s / (1 − e^(−s/rate)) = bytes (that function grows from `rate` at s → 0, so bytes ≤ rate
 * means an object too small to tell: 1 byte).
 */
export function objectSize(bytes: number, rate: number): number {
  if (bytes <= rate) return 1;
  const standsFor = (s: number) => s / -Math.expm1(-s / rate);
  let low = 0;
  let high = bytes;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (standsFor(mid) < bytes) low = mid;
    else high = mid;
  }
  return Math.max(1, high);
}
