import { isPlainObject } from '@kapi/machinery';

/** The keys of `obj` whose values are not null. */
function presentKeys(obj: Record<string, unknown>): string[] {
  return Object.keys(obj).filter((k) => obj[k] !== null && obj[k] !== undefined);
}

/**
 * Deep equality of JSON values that ignores the order of object keys (the order clients
 * send fields in is not meaningful) and treats a member that is null as absent: stored
 * objects carry the `null` Go writes for a zero value time (a template's
 * `metadata.creationTimestamp`), which a client's body may leave out, and kube compares Go
 * values, where the two are one. Arrays compare element by element.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b || ((a === null || a === undefined) && (b === null || b === undefined))) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = presentKeys(a);
    if (keys.length !== presentKeys(b).length) return false;
    return keys.every((k) => semanticEqual(a[k], b[k]));
  }
  return false;
}
