/** Pieces every built-in kind shares. */
import type { KubeObject } from '@kapi/machinery';
import type { Strategy } from '../definition.js';
import { dropNulls } from '../drop-nulls.js';

/**
 * A strategy for a built-in kind: its `decode` first treats JSON nulls as absent fields
 * (typed decoding; not inside RawExtension fields), then runs the kind's own decode step, if any.
 */
export function builtinStrategy(strategy: Strategy): Strategy {
  const decodeKind = strategy.decode;
  return {
    ...strategy,
    decode(obj, typed): void {
      dropNulls(obj, typed?.schema, typed?.definitions);
      decodeKind?.(obj, typed);
    },
  };
}

/** The eight verbs every built-in here serves. */
export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** Reads a string at a dotted path of plain objects; `undefined` when absent or not a string. */
export function stringAt(obj: KubeObject, path: readonly string[]): string | undefined {
  let cur: unknown = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return typeof cur === 'string' ? cur : undefined;
}

/** The object's property as a plain record, or undefined. */
export function recordAt(obj: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = obj[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
