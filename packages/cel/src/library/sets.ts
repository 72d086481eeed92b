/** cel-go's sets extension (kube 1.29+): sets.contains, sets.equivalent, sets.intersects. */
import type { Environment } from '@marcbachmann/cel-js';
import { celEquals } from './compare.js';

class SetsNamespace {}

const has = (list: readonly unknown[], x: unknown): boolean => list.some((y) => celEquals(y, x));

export function installSets(env: Environment): void {
  env.registerType('sets', SetsNamespace);
  env.registerConstant('sets', 'sets', new SetsNamespace());
  env.registerFunction('sets.contains(list<T>, list<T>): bool', (_n: unknown, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)));
  env.registerFunction('sets.equivalent(list<T>, list<T>): bool', (_n: unknown, a: unknown[], b: unknown[]) =>
    b.every((x) => has(a, x)) && a.every((x) => has(b, x)));
  env.registerFunction('sets.intersects(list<T>, list<T>): bool', (_n: unknown, a: unknown[], b: unknown[]) => b.some((x) => has(a, x)));
}
