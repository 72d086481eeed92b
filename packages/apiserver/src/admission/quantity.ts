/**
 * Just enough of kube's resource.Quantity for admission arithmetic: exact values (a reduced
 * fraction), the format a quantity was written in, Value/MilliValue (rounded up, as kube),
 * addition, comparison and kube's canonical String().
 */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL: Readonly<Record<string, number>> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
export const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};
const ceilDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? (a + b - 1n) / b : -(-a / b));

export class Quantity {
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den: bigint, readonly format: QuantityFormat) {
    const g = gcd(num, den) || 1n;
    this.num = num / g;
    this.den = den / g;
  }

  /** Undefined when the text is not a quantity. */
  static parse(text: string): Quantity | undefined {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE])([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(text.trim());
    if (m === null || `${m[2] ?? ''}${m[3] ?? ''}` === '') return undefined;
    const [, sign, whole = '', fraction = '', e, exponent, suffix = ''] = m;
    let num = BigInt(`${whole}${fraction}`) * (sign === '-' ? -1n : 1n);
    let den = 10n ** BigInt(fraction.length);
    let format: QuantityFormat = 'DecimalSI';
    let exp10 = 0;
    if (e !== undefined) {
      exp10 = Number(exponent);
      format = 'DecimalExponent';
    } else if (BINARY[suffix] !== undefined) {
      num *= 2n ** BigInt(BINARY[suffix]);
      format = 'BinarySI';
    } else {
      exp10 = DECIMAL[suffix] ?? 0;
    }
    if (exp10 >= 0) num *= 10n ** BigInt(exp10);
    else den *= 10n ** BigInt(-exp10);
    return new Quantity(num, den, format);
  }

  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, 1n, format);
  }

  add(o: Quantity): Quantity {
    return new Quantity(this.num * o.den + o.num * this.den, this.den * o.den, this.format);
  }

  cmp(o: Quantity): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }

  /** kube's Value(): rounded up to an integer. */
  value(): bigint {
    return ceilDiv(this.num, this.den);
  }

  /** kube's MilliValue(): thousandths, rounded up. */
  milliValue(): bigint {
    return ceilDiv(this.num * 1000n, this.den);
  }

  /** kube's canonical text (values finer than a nano are rounded up to one). */
  toString(): string {
    // At nano precision, rounded up.
    const nanos = ceilDiv(this.num * 1_000_000_000n, this.den);
    let format = this.format;
    if (format === 'BinarySI') {
      const integral = nanos % 1_000_000_000n === 0n;
      const whole = nanos / 1_000_000_000n;
      if (!integral || (whole > -1024n && whole < 1024n)) format = 'DecimalSI';
      else {
        let mantissa = whole;
        let power = 0;
        while (power < BINARY_SUFFIX.length - 1 && mantissa % 1024n === 0n) {
          mantissa /= 1024n;
          power++;
        }
        return `${mantissa}${BINARY_SUFFIX[power]}`;
      }
    }
    if (nanos === 0n) return '0';
    let mantissa = nanos;
    let exponent = -9;
    while (mantissa % 1000n === 0n && exponent < 18) {
      mantissa /= 1000n;
      exponent += 3;
    }
    if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
    return `${mantissa}${DECIMAL_SUFFIX[exponent]}`;
  }
}
