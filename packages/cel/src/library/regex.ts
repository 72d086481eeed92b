/**
 * kube's regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll; and
 * CEL's own `matches`, whose engine handler compiles the pattern as a JavaScript regex, made
 * to take RE2 patterns like the rest.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { compileRe2 } from './regex-cache.js';
import { walk, type Node } from '../ast.js';

export function installRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, re: string) => {
    const m = compileRe2(re).exec(s);
    return m ? m[0] : '';
  });
  const findAll = (s: string, re: string, limit: bigint): string[] => {
    if (limit === 0n) return [];
    const g = compileRe2(re, true);
    g.lastIndex = 0;
    const out: string[] = [];
    for (const m of s.matchAll(g)) {
      out.push(m[0]);
      if (limit > 0n && BigInt(out.length) >= limit) break;
    }
    return out;
  };
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => findAll(s, re, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => findAll(s, re, n));
}

type Handle = (args: unknown[], ...rest: unknown[]) => unknown;

/**
 * The engine's `string.matches(string)` compiles its pattern as a JavaScript regex, and it
 * offers no way to replace a built-in overload: the handler each checked `matches` call bound
 * is replaced instead (call after checking `root`), so that patterns are read as RE2.
 */
export function useRe2ForMatches(root: Node): void {
  walk(root, (n) => {
    if (n.op !== 'rcall' || (n.args as unknown as [string])[0] !== 'matches') return;
    const call = n as unknown as { handle?: Handle };
    const engine = call.handle;
    if (typeof engine !== 'function') return;
    call.handle = (args, ...rest) => {
      const [s, re] = args;
      return typeof s === 'string' && typeof re === 'string' && args.length === 2 ? compileRe2(re).test(s) : engine(args, ...rest);
    };
  });
}
