/**
 * The items of an `x-kubernetes-list-type: map` list by their keys (kube's common.MapList):
 * how an updated list's item finds its old self for `oldSelf` and for ratcheting. Keys are
 * the item's `x-kubernetes-list-map-keys` values (scalars only; an item missing one has no
 * key); the first old item with a key wins. Other lists never match.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { isPlainObject } from '@kapi/machinery';

export interface MapList {
  /** The old item with the same keys as `item`, or undefined. */
  get(item: unknown): unknown;
}

const NO_MATCHES: MapList = { get: () => undefined };

function compositeKey(item: Record<string, unknown>, keys: readonly string[]): string | undefined {
  let out = '';
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(item, key)) return undefined;
    const v = item[key];
    if (typeof v === 'string') out += `\x00s${v}`;
    else if (typeof v === 'number') out += `\x00n${v}`;
    else if (typeof v === 'boolean') out += `\x00b${v}`;
    else return undefined;
  }
  return out;
}

/** The map list of `items` (the old list) under `schema` (the list's node). */
export function mapListOf(schema: JSONSchemaProps | undefined, items: readonly unknown[] | undefined): MapList {
  const keys = schema?.['x-kubernetes-list-map-keys'] ?? [];
  if (schema?.type !== 'array' || schema['x-kubernetes-list-type'] !== 'map' || keys.length === 0 || items === undefined || items.length === 0) return NO_MATCHES;
  const keyed = new Map<string, Record<string, unknown>>();
  let next = 0;
  return {
    get(item) {
      if (!isPlainObject(item)) return undefined;
      const key = compositeKey(item, keys);
      if (key === undefined) return undefined;
      const known = keyed.get(key);
      if (known !== undefined) return known;
      // Index the old items lazily, up to the first match.
      while (next < items.length) {
        const candidate = items[next++];
        if (!isPlainObject(candidate)) continue;
        const candidateKey = compositeKey(candidate, keys);
        if (candidateKey === undefined) continue;
        if (!keyed.has(candidateKey)) keyed.set(candidateKey, candidate);
        if (candidateKey === key) return candidate;
      }
      return undefined;
    },
  };
}
