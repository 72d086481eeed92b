/**
 * kube's quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go): quantity(),
 * isQuantity(), and the Quantity methods. A quantity is kept exactly, as a fraction.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { quantityParseError } from '@kapi/machinery';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const DECIMAL: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Ti: 40, Gi: 30, Pi: 50, Ei: 60 };

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A kube resource.Quantity value in CEL: num/den, reduced, den > 0. */
export class Quantity {
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den = 1n) {
    if (den < 0n) { num = -num; den = -den; }
    const g = gcd(num, den) || 1n;
    this.num = num / g;
    this.den = den / g;
  }
  static parse(text: string): Quantity {
    const err = quantityParseError(text);
    if (err !== undefined) throw new Error(err);
    const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text)!;
    const sign = m[1] === '-' ? -1n : 1n;
    const int = m[2] || '0';
    const frac = m[3] ?? '';
    let num = BigInt(int + frac) * sign;
    let den = 10n ** BigInt(frac.length);
    const suffix = m[4]!;
    if (suffix in BINARY) num *= 2n ** BigInt(BINARY[suffix]!);
    else {
      const exp = suffix in DECIMAL ? DECIMAL[suffix]! : Number(suffix.slice(1));
      if (exp >= 0) num *= 10n ** BigInt(exp); else den *= 10n ** BigInt(-exp);
    }
    return new Quantity(num, den);
  }
  compare(o: Quantity): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  equals(o: unknown): boolean {
    return o instanceof Quantity && this.compare(o) === 0;
  }
  /** kube's AsInt64: the value when it is a whole number within int64. */
  asInt64(): bigint | undefined {
    if (this.den !== 1n) {
      // kube rounds up to the nearest integer at scale 0 only when exact; fractions are not integers.
      return undefined;
    }
    return this.num > INT64_MAX || this.num < INT64_MIN ? undefined : this.num;
  }
  add(o: Quantity): Quantity { return new Quantity(this.num * o.den + o.num * this.den, this.den * o.den); }
  sub(o: Quantity): Quantity { return new Quantity(this.num * o.den - o.num * this.den, this.den * o.den); }
}

export function installQuantity(env: Environment): void {
  env.registerType('kubernetes.Quantity', Quantity);
  env.registerFunction('quantity(string): kubernetes.Quantity', (s: string) => Quantity.parse(s));
  env.registerFunction('isQuantity(string): bool', (s: string) => quantityParseError(s) === undefined);
  const Q = 'kubernetes.Quantity';
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.num > 0n ? 1 : q.num < 0n ? -1 : 0));
  env.registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
  env.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => {
    const v = q.asInt64();
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  });
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => Number(q.num) / Number(q.den));
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) > 0);
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) < 0);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compare(b)));
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
  env.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(new Quantity(b)));
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.sub(b));
  env.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.sub(new Quantity(b)));
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.equals(b));
}
