import { isPlainObject } from '@kapi/machinery';

/**
 * Removes, in place, every object property whose value is `null`, recursively (arrays keep
 * their positions; null items stay). Built-in kinds are decoded into typed structs by kube,
 * where a JSON null is the same as an absent field; this gives the same result.
 */
export function dropNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropNulls(item);
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (value[key] === null) delete value[key];
      else dropNulls(value[key]);
    }
  }
}
