/**
 * kapi's CPU profile as its `/debug/pprof/profile` serves it (V8's samples in pprof's format:
 * JavaScript function names, module paths or `node:` URLs as files, idle time left out), split
 * into the same stages as a V8 `.cpuprofile` ({@link v8StageOf}) and drawn as the same flame graph.
 */
import type { PprofFrame, PprofProfile } from '@kapi/machinery';
import type { FlameStack } from './flame-graph.js';
import { SummaryBuilder, v8StageOf, type ProfileSummary } from './profile-stages.js';

const v8Frame = (f: PprofFrame) => ({ url: f.file, functionName: f.function });

/** `.../packages/apiserver/dist/x.js:12` → `packages/apiserver/dist/x.js:12`. */
const where = (f: PprofFrame) => (f.file === '' ? '' : `${f.file.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${f.line}`);

function cpuNanos(profile: PprofProfile): number {
  const index = profile.sampleTypes.findIndex(([type, unit]) => type === 'cpu' && unit === 'nanoseconds');
  if (index < 0) throw new Error(`not a CPU profile: sample types ${profile.sampleTypes.map((t) => t.join('/')).join(', ')}`);
  return index;
}

export function summarizeKapiPprof(profile: PprofProfile): ProfileSummary {
  const value = cpuNanos(profile);
  const summary = new SummaryBuilder(1e6);
  for (const sample of profile.samples) {
    const leaf = sample.stack[0];
    summary.add(v8StageOf(sample.stack.map(v8Frame)), sample.values[value] ?? 0, leaf === undefined ? undefined : { name: leaf.function, where: where(leaf) });
  }
  return summary.build();
}

/** The profile's stacks for a flame graph: outermost frame first, weighted by CPU ms. */
export function kapiPprofFlameStacks(profile: PprofProfile): FlameStack[] {
  const value = cpuNanos(profile);
  return profile.samples.map((s) => ({
    frames: s.stack.map((f) => ({ name: f.function, detail: where(f) })).reverse(),
    weight: (s.values[value] ?? 0) / 1e6,
  }));
}
