/**
 * kube's lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min,
 * max, indexOf, lastIndexOf on lists.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { compareValues, celEquals } from './compare.js';

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'google.protobuf.Duration', 'google.protobuf.Timestamp'];

function minMax(list: readonly unknown[], pick: (c: number) => boolean, name: string): unknown {
  if (list.length === 0) throw new Error(`${name}(list) called on empty list`);
  let best = list[0];
  for (let i = 1; i < list.length; i++) if (pick(compareValues(list[i], best))) best = list[i];
  return best;
}

export function installLists(env: Environment): void {
  for (const t of COMPARABLE) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => {
      for (let i = 1; i < l.length; i++) if (compareValues(l[i - 1], l[i]) > 0) return false;
      return true;
    });
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => minMax(l, (c) => c < 0, 'min'));
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => minMax(l, (c) => c > 0, 'max'));
  }
  env.registerFunction('list<int>.sum(): int', (l: bigint[]) => {
    let s = 0n;
    for (const x of l) s += x;
    if (s > 2n ** 63n - 1n || s < -(2n ** 63n)) throw new Error('integer overflow');
    return s;
  });
  env.registerFunction('list<double>.sum(): double', (l: number[]) => l.reduce((a, b) => a + b, 0));
  env.registerFunction('list<uint>.sum(): uint', (l: UnsignedInt[]) => {
    let s = 0n;
    for (const x of l) s += x.value;
    return new UnsignedInt(s);
  });
  env.registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (l: Duration[]) => {
    let ns = 0n;
    for (const d of l) ns += d.seconds * 1_000_000_000n + BigInt(d.nanos);
    const seconds = ns / 1_000_000_000n;
    return new Duration(seconds, Number(ns - seconds * 1_000_000_000n));
  });
  env.registerFunction('list<T>.indexOf(T): int', (l: unknown[], x: unknown) => {
    for (let i = 0; i < l.length; i++) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });
  env.registerFunction('list<T>.lastIndexOf(T): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });
}
