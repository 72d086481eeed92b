/** kube's regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll. */
import type { Environment } from '@marcbachmann/cel-js';
import { compileRe2 } from './regex-cache.js';

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
