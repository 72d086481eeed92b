/**
 * Go's `fmt` %v rendering of decoded JSON values (map[string]interface{}, []interface{}),
 * which kube's strategic-merge-patch errors embed: `map[a:1 b:map[c:x]]`, `[x y]`, `<nil>`.
 */
import { isPlainObject } from '../object.js';
import { compareStrings } from '../managed-fields/json-value.js';
import { isInt64 } from '../go-json-values.js';

export function goFormatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormatValue).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `map[${keys.map((k) => `${k}:${goFormatValue(value[k])}`).join(' ')}]`;
  }
  if (typeof value === 'number') return goFormatNumber(value);
  return String(value);
}

/**
 * A decoded JSON number as Go's %v prints it: an int64 (what kube decodes an integer an
 * int64 holds into) plainly; any other number as a float64 — %g with the shortest digits,
 * in exponent form below 1e-4 or from 1e21 (from 10^(digits) when fewer than 21 digits), the
 * exponent at least two digits (`1e+06`, `2.147483648e+09`, `1e-05`).
 */
export function goFormatNumber(n: number): string {
  if (isInt64(n)) return String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, exponentText] = n.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const digits = mantissa.replace(/^-/, '').replace('.', '').length;
  let threshold = 6;
  if (threshold > digits && digits >= exponent + 1) threshold = digits;
  if (exponent < -4 || exponent >= threshold) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's reflect type name of a decoded JSON value, as `%s` of reflect.TypeOf prints it. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isPlainObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return isInt64(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}
