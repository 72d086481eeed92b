/**
 * Equality by declared type, as kube's unstructured values compare: lists with
 * `x-kubernetes-list-type: set` ignore order, `map` lists match items by their keys,
 * objects compare field by field (an absent field equals only an absent field).
 */
import type { DeclType } from './decl-type.js';
import { celEquals } from './library/compare.js';

export function typedEquals(a: unknown, b: unknown, decl: DeclType | undefined): boolean {
  if (a === b) return true;
  if (!decl) return celEquals(a, b);
  switch (decl.kind) {
    case 'list': {
      if (!Array.isArray(a) || !Array.isArray(b)) return celEquals(a, b);
      if (a.length !== b.length) return false;
      const elem = decl.elem;
      if (decl.listType === 'set') return a.every((x) => b.some((y) => typedEquals(x, y, elem)));
      if (decl.listType === 'map' && decl.listMapKeys && decl.listMapKeys.length > 0) {
        const keys = decl.listMapKeys;
        const keyOf = (x: unknown): string => JSON.stringify(keys.map((k) => keyValue(x, k)));
        const byKey = new Map(b.map((y) => [keyOf(y), y]));
        return a.every((x) => {
          const y = byKey.get(keyOf(x));
          return y !== undefined && typedEquals(x, y, elem);
        });
      }
      return a.every((x, i) => typedEquals(x, b[i], elem));
    }
    case 'object': {
      if (!(a instanceof Map) || !(b instanceof Map)) return celEquals(a, b);
      for (const [name, field] of decl.fields ?? []) {
        const x = a.get(name);
        const y = b.get(name);
        if (x === undefined || y === undefined) {
          if (x !== y) return false;
          continue;
        }
        if (!typedEquals(x, y, field.type)) return false;
      }
      return true;
    }
    case 'map': {
      if (!(a instanceof Map) || !(b instanceof Map)) return celEquals(a, b);
      if (a.size !== b.size) return false;
      for (const [k, x] of a) if (!b.has(k) || !typedEquals(x, b.get(k), decl.elem)) return false;
      return true;
    }
    default:
      return celEquals(a, b);
  }
}

function keyValue(item: unknown, key: string): unknown {
  const v = item instanceof Map ? (item as Map<string, unknown> & { raw?: Record<string, unknown> }).raw?.[key] ?? item.get(key) : undefined;
  return typeof v === 'bigint' ? Number(v) : v;
}
