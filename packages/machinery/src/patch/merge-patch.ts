/** JSON merge patch (RFC 7386). */
import { isPlainObject } from '../object.js';

/**
 * Applies `patch` to `target` and returns the result; neither input is mutated (unchanged
 * subtrees of `target` may be shared with the result). A non-object patch replaces the
 * target; `null` members delete keys.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
