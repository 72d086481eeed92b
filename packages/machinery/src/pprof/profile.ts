/**
 * The profile that Go's `/debug/pprof/*` endpoints serve (github.com/google/pprof's
 * profile.proto), as far as kapi reads and writes it: sample types, samples as stacks of named
 * frames, the period and the duration. Ids, string tables, mappings and addresses are the wire
 * format's business (`encode.ts`, `decode.ts`); a profile here is symbolized already.
 */

/** One frame of a stack; a call inlined into another is a frame of its own. */
export interface PprofFrame {
  /** The function's name as the runtime knows it, e.g. `k8s.io/apiserver/pkg/storage/etcd3.(*store).Create` or a JavaScript function's name. */
  function: string;
  /** The source file, as the runtime recorded it. */
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
}

export interface PprofSample {
  /** Innermost frame first. */
  stack: PprofFrame[];
  /** One value per sample type, in `sampleTypes`' order. */
  values: number[];
}

export interface PprofProfile {
  /** `[type, unit]` per value of a sample, e.g. `[['samples', 'count'], ['cpu', 'nanoseconds']]`. */
  sampleTypes: [string, string][];
  samples: PprofSample[];
  /** When the profile was collected, ns since the Unix epoch (0: unknown). */
  timeNanos: number;
  durationNanos: number;
  /** What one sampling event stands for, e.g. `['cpu', 'nanoseconds']`; undefined when the profile names none. */
  periodType?: [string, string];
  period: number;
  /** Free-form notes a reader shows with the profile (`go tool pprof` prints them). */
  comments: string[];
  /** The sample type a reader shows first ('' = the last one). */
  defaultSampleType: string;
}

/** A profile without samples: the fields a builder has to set, the rest empty. */
export function emptyPprof(sampleTypes: [string, string][], fields: Partial<Omit<PprofProfile, 'sampleTypes' | 'samples'>> = {}): PprofProfile {
  return { sampleTypes, samples: [], timeNanos: 0, durationNanos: 0, period: 0, comments: [], defaultSampleType: '', ...fields };
}

function stackKey(stack: readonly PprofFrame[]): string {
  return stack.map((f) => `${f.function}\u0000${f.file}\u0000${f.line}`).join('\u0001');
}

/**
 * What changed from `before` to `after` (two profiles of the same sample types, e.g. two heap
 * profiles taken some seconds apart): per stack, `after`'s values minus `before`'s; stacks whose
 * values all cancel out are left out. The result has `after`'s time and the time between the two.
 */
export function pprofDelta(before: PprofProfile, after: PprofProfile): PprofProfile {
  const sums = new Map<string, PprofSample>();
  const add = (profile: PprofProfile, sign: number) => {
    for (const sample of profile.samples) {
      const key = stackKey(sample.stack);
      let sum = sums.get(key);
      if (sum === undefined) {
        sum = { stack: sample.stack, values: after.sampleTypes.map(() => 0) };
        sums.set(key, sum);
      }
      for (let i = 0; i < sum.values.length; i++) sum.values[i]! += sign * (sample.values[i] ?? 0);
    }
  };
  add(before, -1);
  add(after, 1);
  return {
    ...after,
    samples: [...sums.values()].filter((s) => s.values.some((v) => v !== 0)),
    durationNanos: Math.max(0, after.timeNanos - before.timeNanos),
  };
}
