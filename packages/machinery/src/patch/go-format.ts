/**
 * Go's `fmt` %v rendering of decoded JSON values (map[string]interface{}, []interface{}),
 * which kube's strategic-merge-patch errors embed: `map[a:1 b:map[c:x]]`, `[x y]`, `<nil>`.
 */
import { isPlainObject } from '../object.js';
import { compareStrings } from '../managed-fields/json-value.js';

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

/** Integers print plainly; other numbers as Go's %v of a float64 (shortest form, exponent past 1e21). */
function goFormatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go's reflect type name of a decoded JSON value, as `%s` of reflect.TypeOf prints it. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isPlainObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}
