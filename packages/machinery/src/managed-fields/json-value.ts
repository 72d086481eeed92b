/**
 * JSON values as structured-merge-diff sees them: a total order across types (numbers <
 * strings < booleans < lists < maps < null), order-insensitive equality of maps, and Go's
 * JSON text for the values embedded in FieldsV1 keys. Pure.
 */
import { isPlainObject } from '../object.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Byte-wise UTF-8 order of two strings (Go's strings.Compare), without encoding them. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort after U+E000..U+FFFF in UTF-8, unlike in UTF-16.
    if (x >= 0xd800 && x <= 0xdfff) x += 0x2000;
    else if (x >= 0xe000) x -= 0x800;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x2000;
    else if (y >= 0xe000) y -= 0x800;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isPlainObject(v)) return 4;
  return 5;
}

/** structured-merge-diff's total order of values. */
export function compareJson(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= x.length && i >= y.length) return 0;
        if (i >= x.length) return -1;
        if (i >= y.length) return 1;
        const c = compareJson(x[i], y[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(compareStrings);
      for (const key of keys) {
        if (!(key in x)) return 1;
        if (!(key in y)) return -1;
        const c = compareJson(x[key], y[key]);
        if (c !== 0) return c;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/** Deep equality of JSON values; object key order does not matter. */
export function equalJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalJson(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!Object.prototype.hasOwnProperty.call(b, key) || !equalJson(a[key], b[key])) return false;
    }
    return true;
  }
  return false;
}

const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** A string as Go's encoding/json writes it (HTML-safe escaping of <, > and &). */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!);
}

/** Compact JSON as Go writes it: HTML-safe strings, map keys sorted. */
export function goJson(value: unknown): string {
  if (typeof value === 'string') return goJsonString(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${goJsonString(k)}:${goJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Go's fmt %v for smd values in path strings: strings quoted (%q), numbers and booleans bare. */
export function smdValueString(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(smdValueString).join(',')}]`;
  if (isPlainObject(value)) {
    return Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${k}=${smdValueString(value[k])}`)
      .join('');
  }
  return String(value);
}
