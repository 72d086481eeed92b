/** Ordering and equality of CEL values as the engine represents them. */

export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  const av = (a as { valueOf(): unknown }).valueOf();
  const bv = (b as { valueOf(): unknown }).valueOf();
  if (typeof av === 'number' && typeof bv === 'number') return av - bv;
  if (typeof av === 'bigint' && typeof bv === 'bigint') return av < bv ? -1 : av > bv ? 1 : 0;
  return 0;
}

/** CEL equality of two values of the same type. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    if (typeof a === 'bigint' && typeof b === 'number') return Number(a) === b;
    if (typeof a === 'number' && typeof b === 'bigint') return a === Number(b);
    return false;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  const eq = (a as { equals?: (o: unknown) => boolean }).equals;
  if (typeof eq === 'function') return eq.call(a, b);
  const av = (a as { valueOf(): unknown }).valueOf();
  const bv = (b as { valueOf(): unknown }).valueOf();
  if (av !== a && bv !== b) return av === bv;
  if (a.constructor === Object && b.constructor === Object) {
    const ak = Object.keys(a);
    if (ak.length !== Object.keys(b).length) return false;
    return ak.every((k) => celEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}
