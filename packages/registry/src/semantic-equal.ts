import { isPlainObject } from '@kapi/machinery';

/**
 * Deep equality of JSON values that ignores the order of object keys (the order clients
 * send fields in is not meaningful). Arrays compare element by element.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && semanticEqual(a[k], b[k]));
  }
  return false;
}
