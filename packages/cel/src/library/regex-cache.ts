/**
 * RE2 patterns (what cel-go and kube use) as JavaScript RegExps: RE2's leading inline flags
 * `(?i)`, `(?s)`, `(?m)` become RegExp flags and `(?P<name>` becomes `(?<name>`. Compiled
 * patterns are cached (bounded), since rules pass the same literal on every evaluation.
 */

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
  let source = pattern;
  let flags = global ? 'g' : '';
  const lead = /^\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    source = source.slice(lead[0].length);
    for (const f of lead[1]!) if (f !== 'U' && !flags.includes(f)) flags += f;
  }
  source = source.replace(/\(\?P</g, '(?<').replace(/\\z/g, '$(?![\\s\\S])');
  let re: RegExp;
  try {
    re = new RegExp(source, flags + 'u');
  } catch {
    try {
      re = new RegExp(source, flags);
    } catch (err) {
      throw new RegexError((err as Error).message);
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, re);
  return re;
}
