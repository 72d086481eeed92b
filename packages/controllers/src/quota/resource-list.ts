/**
 * kube's quota helpers over ResourceLists (`name → quantity`): add, subtract, mask, compare
 * against hard limits, and the texts kube's quota errors print.
 */
import { addQuantities as add, compareQuantities as compare, formatQuantity, parseQuantity, subtractQuantities as subtract, ZERO_QUANTITY as ZERO, type Quantity } from '@kapi/machinery';

export type ResourceList = Map<string, Quantity>;

/** A ResourceList from an object's JSON map (entries that are not quantities are left out). */
export function resourceListOf(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [name, text] of Object.entries(value as Record<string, unknown>)) {
    const q = parseQuantity(text);
    if (q !== undefined) out.set(name, q);
  }
  return out;
}

/** The JSON map of a ResourceList, in kube's canonical quantity texts. */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) out[name] = formatQuantity(list.get(name)!);
  return out;
}

export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) out.set(name, out.has(name) ? add(out.get(name)!, q) : q);
  return out;
}

/** a − b per resource of a, never below zero (kube's SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, q] of a) {
    const other = b.get(name);
    const diff = other === undefined ? q : subtract(q, other);
    out.set(name, diff.nanos < 0n ? { ...ZERO, format: q.format } : diff);
  }
  return out;
}

/** The entries of `list` named in `names`. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const name of names) {
    const q = list.get(name);
    if (q !== undefined) out.set(name, q);
  }
  return out;
}

export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, q]) => q.nanos !== 0n));
}

export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, q]) => q.nanos < 0n).map(([name]) => name);
}

/** Whether every entry of `a` that `b` limits is within it; the names that are not. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [name, q] of a) {
    const limit = b.get(name);
    if (limit !== undefined && compare(q, limit) > 0) exceeded.push(name);
  }
  return { allowed: exceeded.length === 0, exceeded };
}

export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [name, q] of a) {
    const other = b.get(name);
    if (other === undefined || compare(q, other) !== 0) return false;
  }
  return true;
}

/** kube's prettyPrint: `name=quantity` sorted by name, joined by commas. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((name) => `${name}=${formatQuantity(list.get(name)!)}`).join(',');
}

/** kube's prettyPrintResourceNames: the names sorted, joined by commas. */
export function prettyPrintNames(names: Iterable<string>): string {
  return [...new Set(names)].sort().join(',');
}
