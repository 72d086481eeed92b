/**
 * Building blocks of fuzzed objects: valid Kubernetes names, label keys, timestamps and data,
 * and the odd values mutations put in their place (wrong types, numbers beyond int32, int64 or
 * a double, unparsable timestamps, deep nesting, unicode, nulls, empty and oversize strings).
 */
import fc from 'fast-check';
import { DuplicateKeys, RawLiteral } from './wire-text.js';

/** The names of the objects the fuzzer writes: a small pool, so writes hit existing objects. */
export const objectNames = fc.constantFrom('t0', 't1', 't2', 't3', 't4', 'fz-long-name-'.padEnd(63, 'x'));

/** A DNS-1123 label. */
export const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);

/** A label or annotation key: optional DNS prefix, then a name part. */
export const labelKey = fc
  .tuple(fc.option(fc.constantFrom('example.com', 'fuzz.io', 'a.b.c'), { nil: undefined }), fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,15}[A-Za-z0-9])?$/))
  .map(([prefix, name]) => (prefix ? `${prefix}/${name}` : name));

export const labelValue = fc.stringMatching(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?)?$/);

/** A ConfigMap or Secret key: `[-._a-zA-Z0-9]+`, not `.` or `..`. */
export const configKey = fc.stringMatching(/^[-_a-zA-Z0-9][-._a-zA-Z0-9]{0,20}$/);

/** RFC 3339 timestamps (seconds) and micro timestamps (microseconds), as kube writes them. */
export const timestamp = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
export const microTimestamp = fc
  .tuple(timestamp, fc.integer({ min: 0, max: 999_999 }))
  .map(([t, us]) => t.replace(/Z$/, `.${String(us).padStart(6, '0')}Z`));

/** Text with a mix of printable ASCII and unicode (including astral characters). */
export const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom('a', 'é', 'ß', '漢', '😀', '\u200b', '\u202e', '\n', '\t', '"', '\\', '\u0000', ': ', '- ', '#', '{'), maxLength: 30 }),
);

export const base64Data = fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64'));

const MiB = 1024 * 1024;

/** Strings at and around the lengths kube validates (names 63/253, values, 1 MiB objects, etcd's 1.5 MiB request). */
export const oversizeString = fc
  .tuple(fc.constantFrom(64, 254, 256, 4096, 65_537, MiB - 200, MiB + 1, 1.5 * MiB + 1, 3 * MiB + 1), fc.constantFrom('a', 'é', '0'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / Buffer.byteLength(unit))));

/** Numbers that are not a small int: beyond int32/int64/double, fractions, negative zero, exponents. */
export const oddNumber = fc.oneof(
  fc.constantFrom(2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 2, -(2 ** 63), 2 ** 64, 1e29, -1e29, 1.5, 0.1, -1, 1e-7, Number.MAX_VALUE),
  fc.constantFrom('1e400', '-0', '1E2', '1.0', '-1e-400', '123456789012345678901234567890', '9223372036854775808', '1e29').map((t) => new RawLiteral(t)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Timestamps that do not parse as RFC 3339 (or only loosely). */
export const badTimestamp = fc.constantFrom('', 'yesterday', '2024-13-45T99:99:99Z', '2024-01-01', '0000-00-00T00:00:00Z', '2024-01-01T00:00:00', '2024-01-01 00:00:00Z', '2024-01-01T00:00:00+25:00', '9999-12-31T23:59:60Z', '+275760-09-13T00:00:00Z', '1970-01-01T00:00:00.1234567890Z', '１９７０-01-01T00:00:00Z');

/**
 * A value nested `depth` levels deep in objects or arrays, as JSON text (which is also YAML
 * flow style), so that nothing here recurses that deep.
 */
export function nested(depth: number, array: boolean): RawLiteral {
  return new RawLiteral(array ? `${'['.repeat(depth)}"x"${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`);
}

export const deepValue = fc.tuple(fc.constantFrom(10, 100, 1000, 10_001), fc.boolean()).map(([depth, array]) => nested(depth, array));

/** The replacement values of a mutation, labelled for the shape report. */
export const oddValue: fc.Arbitrary<{ label: string; value: unknown }> = fc.oneof(
  { arbitrary: oversizeString.map((value) => ({ label: 'oversize-string', value })), weight: 1 },
  { arbitrary: deepValue.map((value) => ({ label: 'deep-nesting', value })), weight: 2 },
  { arbitrary: fc.constant({ label: 'null', value: null }), weight: 4 },
  { arbitrary: fc.constantFrom('', 'true', '0', 'null', '[]').map((value) => ({ label: 'string-for-other', value })), weight: 4 },
  { arbitrary: fc.boolean().map((value) => ({ label: 'boolean', value })), weight: 4 },
  { arbitrary: oddNumber.map((value) => ({ label: 'odd-number', value })), weight: 4 },
  { arbitrary: badTimestamp.map((value) => ({ label: 'bad-timestamp', value })), weight: 4 },
  { arbitrary: text.map((value) => ({ label: 'unicode', value })), weight: 4 },
  { arbitrary: fc.constantFrom({}, [], [null], { '': '' }, [{}]).map((value) => ({ label: 'empty-collection', value })), weight: 4 },
  { arbitrary: fc.constantFrom('\ud800', 'a\udfffb', '\u0000', '\uffff', '\u{10ffff}').map((value) => ({ label: 'lone-surrogate', value })), weight: 4 },
  { arbitrary: fc.tuple(fc.constantFrom('a', 'name', 'kind'), fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 })).map(([k, a, b]) => ({ label: 'duplicate-keys', value: new DuplicateKeys([[k, a], [k, b]]) })), weight: 4 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ label: 'random-json', value })), weight: 4 },
);
