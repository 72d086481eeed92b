/**
 * A reader for pprof profiles (what Go's `/debug/pprof/*` serve): gzip'd or plain protobuf of
 * github.com/google/pprof's profile.proto, resolved into a {@link PprofProfile}: each sample's
 * stack as function names, files and lines. Mappings, addresses, labels and other fields are
 * skipped by wire type. Field numbers: see `encode.ts`.
 */
import { gunzipSync } from 'node:zlib';
import type { PprofFrame, PprofProfile } from './profile.js';

/** Reads varints and length-delimited fields of one protobuf message. */
class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** A varint as a number (exact up to 2^53, which profile ids and nanosecond totals stay under). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('pprof: truncated varint');
      const byte = this.buf[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
  }

  /**
   * An int64 varint (a sample value may be negative in a delta profile): exact for values within
   * ±2^53, which profile values stay in.
   */
  int64(): number {
    const start = this.pos;
    const value = this.varint();
    if (this.pos - start < 10) return value;
    let big = 0n;
    for (let i = this.pos - 1; i >= start; i--) big = (big << 7n) | BigInt(this.buf[i]! & 0x7f);
    return Number(BigInt.asIntN(64, big));
  }

  /** The next field's number and wire type, or undefined at the end of the message. */
  tag(): [number, number] | undefined {
    if (this.pos >= this.end) return undefined;
    const tag = this.varint();
    return [Math.floor(tag / 8), tag % 8];
  }

  /** A sub-reader over a length-delimited field. */
  sub(): Reader {
    const length = this.varint();
    if (this.pos + length > this.end) throw new Error('pprof: field runs past its message');
    const reader = new Reader(this.buf, this.pos, this.pos + length);
    this.pos += length;
    return reader;
  }

  /** Repeated integers, packed (wire type 2) or one at a time (0); `signed`: int64s. */
  integers(wireType: number, into: number[], signed = false): void {
    const read = (r: Reader) => (signed ? r.int64() : r.varint());
    if (wireType === 0) into.push(read(this));
    else for (const packed = this.sub(); packed.pos < packed.end; ) into.push(read(packed));
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) {
      const length = this.varint();
      this.pos += length;
    }
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`pprof: unsupported wire type ${wireType}`);
    if (this.pos > this.end) throw new Error('pprof: field runs past its message');
  }
}

/** Decodes a profile, gzip'd (as served) or not. Throws on malformed input. */
export function decodePprof(data: Uint8Array): PprofProfile {
  const bytes = data[0] === 0x1f && data[1] === 0x8b ? gunzipSync(data) : data;
  const strings: string[] = [];
  const sampleTypes: [number, number][] = [];
  const rawSamples: { locations: number[]; values: number[] }[] = [];
  const locations = new Map<number, { functionId: number; line: number }[]>();
  const functions = new Map<number, { name: number; file: number }>();
  let durationNanos = 0;
  let timeNanos = 0;
  let period = 0;
  let periodType: [number, number] | undefined;
  const comments: number[] = [];
  let defaultSampleType = 0;
  const message = new Reader(bytes, 0, bytes.length);
  for (let t = message.tag(); t !== undefined; t = message.tag()) {
    const [field, wireType] = t;
    if ((field === 1 || field === 11) && wireType === 2) {
      const vt = message.sub();
      const pair: [number, number] = [0, 0];
      for (let f = vt.tag(); f !== undefined; f = vt.tag()) {
        if (f[0] === 1 || f[0] === 2) pair[f[0] - 1] = vt.varint();
        else vt.skip(f[1]);
      }
      if (field === 1) sampleTypes.push(pair);
      else periodType = pair;
    } else if (field === 2 && wireType === 2) {
      const s = message.sub();
      const sample = { locations: [] as number[], values: [] as number[] };
      for (let f = s.tag(); f !== undefined; f = s.tag()) {
        if (f[0] === 1) s.integers(f[1], sample.locations);
        else if (f[0] === 2) s.integers(f[1], sample.values, true);
        else s.skip(f[1]);
      }
      rawSamples.push(sample);
    } else if (field === 4 && wireType === 2) {
      const l = message.sub();
      let id = 0;
      const lines: { functionId: number; line: number }[] = [];
      for (let f = l.tag(); f !== undefined; f = l.tag()) {
        if (f[0] === 1) id = l.varint();
        else if (f[0] === 4 && f[1] === 2) {
          const ln = l.sub();
          const line = { functionId: 0, line: 0 };
          for (let g = ln.tag(); g !== undefined; g = ln.tag()) {
            if (g[0] === 1) line.functionId = ln.varint();
            else if (g[0] === 2) line.line = ln.varint();
            else ln.skip(g[1]);
          }
          lines.push(line);
        } else l.skip(f[1]);
      }
      locations.set(id, lines);
    } else if (field === 5 && wireType === 2) {
      const fn = message.sub();
      let id = 0;
      const entry = { name: 0, file: 0 };
      for (let f = fn.tag(); f !== undefined; f = fn.tag()) {
        if (f[0] === 1) id = fn.varint();
        else if (f[0] === 2) entry.name = fn.varint();
        else if (f[0] === 4) entry.file = fn.varint();
        else fn.skip(f[1]);
      }
      functions.set(id, entry);
    } else if (field === 6 && wireType === 2) {
      const s = message.sub();
      strings.push(Buffer.from(s.buf.buffer, s.buf.byteOffset + s.pos, s.end - s.pos).toString('utf8'));
    } else if (field === 9 && wireType === 0) timeNanos = message.int64();
    else if (field === 10 && wireType === 0) durationNanos = message.int64();
    else if (field === 12 && wireType === 0) period = message.int64();
    else if (field === 13) message.integers(wireType, comments);
    else if (field === 14 && wireType === 0) defaultSampleType = message.varint();
    else message.skip(wireType);
  }
  const str = (i: number) => strings[i] ?? '';
  const frames = new Map<number, PprofFrame[]>();
  const framesOf = (locationId: number): PprofFrame[] => {
    let cached = frames.get(locationId);
    if (cached === undefined) {
      // A location's lines run from the innermost inlined call out to the function it was inlined into.
      cached = (locations.get(locationId) ?? []).map((l) => {
        const fn = functions.get(l.functionId);
        return { function: fn ? str(fn.name) : '?', file: fn ? str(fn.file) : '', line: l.line };
      });
      frames.set(locationId, cached);
    }
    return cached;
  };
  return {
    sampleTypes: sampleTypes.map(([type, unit]) => [str(type), str(unit)]),
    samples: rawSamples.map((s) => ({ stack: s.locations.flatMap(framesOf), values: s.values })),
    timeNanos,
    durationNanos,
    ...(periodType !== undefined ? { periodType: [str(periodType[0]), str(periodType[1])] as [string, string] } : {}),
    period,
    comments: comments.map(str),
    defaultSampleType: str(defaultSampleType),
  };
}
