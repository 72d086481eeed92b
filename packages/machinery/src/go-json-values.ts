/**
 * How Go's encoding/json sees JSON values, for typed decoding (typed-decode.ts): the kind
 * it names in `cannot unmarshal <kind>`, which numbers each Go number type holds, and the
 * numbers JSON.parse could only make ±Infinity of. Pure.
 */
import { isPlainObject } from './object.js';

/** How a JSON value is named in `cannot unmarshal <value>` (numbers get their text added where Go has it). */
export function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isPlainObject(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return 'string';
}

/** A number as messages print it (the literal is gone; JavaScript's shortest form is Go's float formatting too). */
export function goNumberText(value: number): string {
  return String(value);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_BOUND = 2 ** 63;
const FLOAT32_MAX = 3.4028234663852886e38;

/** Whether `value` is an integer an int64 holds and that is stored as a decimal Go reads back as one. */
export function isInt64(value: number): boolean {
  return Number.isInteger(value) && value > -INT64_BOUND && value < INT64_BOUND;
}

export type GoNumberType = 'int32' | 'int64' | 'float32' | 'float64';

/** Whether a Go number of `type` holds `value` (what strconv.ParseInt/ParseFloat and the overflow checks accept). */
export function numberFits(value: number, type: GoNumberType): boolean {
  switch (type) {
    case 'int32':
      return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
    case 'int64':
      return isInt64(value);
    case 'float32':
      return Number.isFinite(value) && Math.abs(value) <= FLOAT32_MAX;
    case 'float64':
      return Number.isFinite(value);
  }
}

/**
 * `json: cannot unmarshal number … into Go value of type float64` when `value` holds a
 * number beyond the double range anywhere (kube's error decoding it into interface{});
 * otherwise undefined.
 */
export function nonFiniteNumberError(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return `json: cannot unmarshal number ${goNumberText(node)} into Go value of type float64`;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (isPlainObject(node)) {
      for (const item of Object.values(node)) stack.push(item);
    }
  }
  return undefined;
}

const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const GO_TRIM = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');

/** Go's strings.TrimSpace: Unicode White_Space at both ends. */
export function goTrimSpace(text: string): string {
  return text.replace(GO_TRIM, '');
}

/** Characters Go's encoding/json escapes in strings that JSON.stringify writes as they are. */
const GO_ESCAPED = /[<>&\u2028\u2029]/g;
const HAS_GO_ESCAPED = /[<>&\u2028\u2029]/;
const goEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `value` as Go's json.Marshal writes a map[string]interface{} (how kube-apiserver stores a
 * custom resource): every object's keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped as
 * `\u003c`…, numbers as JavaScript writes them (which is Go's float and integer formatting).
 */
export function goMapJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!isPlainObject(v)) return v;
    const keys = Object.keys(v);
    let sorted = true;
    for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
    if (sorted) return v;
    const out: Record<string, unknown> = {};
    for (const key of keys.sort()) out[key] = v[key];
    return out;
  });
  return HAS_GO_ESCAPED.test(text) ? text.replace(GO_ESCAPED, goEscape) : text;
}
