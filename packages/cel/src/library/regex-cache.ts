/**
 * RE2 patterns (what cel-go and kube use) as JavaScript RegExps, translated by @kapi/machinery's translateRe2.
 * Compiled patterns are cached (bounded), since rules pass the same literal on every evaluation.
 */
import { translateRe2 } from '@kapi/machinery';

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 512;

export class RegexError extends Error {}

/** The RegExp for an RE2 pattern; throws RegexError when it does not compile. */
export function compileRe2(pattern: string, global = false): RegExp {
  const key = (global ? 'g' : '') + pattern;
  const hit = cache.get(key);
  if (hit) {
    hit.lastIndex = 0;
    return hit;
  }
  let re: RegExp;
  try {
    re = new RegExp(translateRe2(pattern), global ? 'gu' : 'u');
  } catch (err) {
    throw new RegexError((err as Error).message);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, re);
  return re;
}
