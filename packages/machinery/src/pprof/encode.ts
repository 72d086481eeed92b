/**
 * Writes a {@link PprofProfile} as profile.proto, gzip'd, which is what Go's `/debug/pprof/*`
 * serve and `go tool pprof` reads. Functions are interned by name, file and line, locations by
 * function and line, strings in one table whose entry 0 is '' (as the format requires).
 * Field numbers (github.com/google/pprof/proto/profile.proto): Profile 1 sample_type, 2 sample,
 * 4 location, 5 function, 6 string_table, 9 time_nanos, 10 duration_nanos, 11 period_type,
 * 12 period, 13 comment, 14 default_sample_type; ValueType 1 type, 2 unit; Sample 1 location_id,
 * 2 value; Location 1 id, 4 line; Line 1 function_id, 2 line; Function 1 id, 2 name,
 * 3 system_name, 4 filename, 5 start_line.
 */
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import type { PprofProfile } from './profile.js';

const LENGTH_DELIMITED = 2;
const VARINT = 0;
const tag = (field: number, wireType: number) => (field << 3) | wireType;

/** The profile as uncompressed profile.proto bytes. */
export function encodePprofProto(profile: PprofProfile): Uint8Array {
  const strings = new Map<string, number>([['', 0]]);
  const str = (s: string): number => {
    let id = strings.get(s);
    if (id === undefined) {
      id = strings.size;
      strings.set(s, id);
    }
    return id;
  };
  const functions = new Map<string, { id: number; name: number; file: number; line: number }>();
  const locations = new Map<string, { id: number; functionId: number; line: number }>();
  const locationOf = (fn: string, file: string, line: number): number => {
    const fnKey = `${fn}\u0000${file}\u0000${line}`;
    let f = functions.get(fnKey);
    if (f === undefined) {
      f = { id: functions.size + 1, name: str(fn), file: str(file), line };
      functions.set(fnKey, f);
    }
    const locKey = `${f.id}:${line}`;
    let l = locations.get(locKey);
    if (l === undefined) {
      l = { id: locations.size + 1, functionId: f.id, line };
      locations.set(locKey, l);
    }
    return l.id;
  };
  const w = protobuf.Writer.create();
  const valueType = (field: number, [type, unit]: [string, string]) => {
    w.uint32(tag(field, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, VARINT)).int64(str(type));
    w.uint32(tag(2, VARINT)).int64(str(unit));
    w.ldelim();
  };
  for (const t of profile.sampleTypes) valueType(1, t);
  for (const sample of profile.samples) {
    w.uint32(tag(2, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, LENGTH_DELIMITED)).fork();
    for (const frame of sample.stack) w.uint64(locationOf(frame.function, frame.file, frame.line));
    w.ldelim();
    w.uint32(tag(2, LENGTH_DELIMITED)).fork();
    for (const value of sample.values) w.int64(value);
    w.ldelim();
    w.ldelim();
  }
  for (const l of locations.values()) {
    w.uint32(tag(4, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, VARINT)).uint64(l.id);
    w.uint32(tag(4, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, VARINT)).uint64(l.functionId);
    w.uint32(tag(2, VARINT)).int64(l.line);
    w.ldelim();
    w.ldelim();
  }
  for (const f of functions.values()) {
    w.uint32(tag(5, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, VARINT)).uint64(f.id);
    w.uint32(tag(2, VARINT)).int64(f.name);
    w.uint32(tag(3, VARINT)).int64(f.name);
    w.uint32(tag(4, VARINT)).int64(f.file);
    w.uint32(tag(5, VARINT)).int64(f.line);
    w.ldelim();
  }
  // Interned before the table is written: the period type, the comments, the default type.
  const tail: [number, number][] = [];
  for (const s of profile.periodType ?? []) str(s);
  for (const c of profile.comments) tail.push([13, str(c)]);
  if (profile.defaultSampleType !== '') tail.push([14, str(profile.defaultSampleType)]);
  for (const s of strings.keys()) w.uint32(tag(6, LENGTH_DELIMITED)).string(s);
  if (profile.timeNanos !== 0) w.uint32(tag(9, VARINT)).int64(profile.timeNanos);
  if (profile.durationNanos !== 0) w.uint32(tag(10, VARINT)).int64(profile.durationNanos);
  if (profile.periodType !== undefined) valueType(11, profile.periodType);
  if (profile.period !== 0) w.uint32(tag(12, VARINT)).int64(profile.period);
  for (const [field, id] of tail) w.uint32(tag(field, VARINT)).int64(id);
  return w.finish();
}

/** The profile as served: gzip'd profile.proto. */
export function encodePprof(profile: PprofProfile): Buffer {
  return gzipSync(encodePprofProto(profile));
}
