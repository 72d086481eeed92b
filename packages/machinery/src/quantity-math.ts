/**
 * Resource quantity arithmetic (kube's resource.Quantity for Add, Sub, Cmp, Value, MilliValue
 * and String), for quota and LimitRanger: a value in nano-units (kube rounds anything finer up to 1n) and the format its
 * text had (DecimalSI, BinarySI or DecimalExponent), which its canonical text keeps: `500m`,
 * `2k`, `1536Mi`, `1e3`. A sum keeps the left operand's format (the right one's when the
 * left is zero), as kube's Add does.
 */
import { quantityParseError } from './quantity.js';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SI_SUFFIX: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const NANO = 1_000_000_000n;

export const ZERO_QUANTITY: Quantity = { nanos: 0n, format: 'DecimalSI' };

export function quantityOf(nanos: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nanos, format };
}

/** Parses a quantity's text (or a JSON number); undefined when it is not one. */
export function parseQuantity(value: unknown): Quantity | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || text === '' || quantityParseError(text) !== undefined) return undefined;
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  let format: QuantityFormat = 'DecimalSI';
  let exponent10 = 0;
  let exponent2 = 0;
  if (BINARY[suffix] !== undefined) {
    format = 'BinarySI';
    exponent2 = BINARY[suffix]!;
  } else if (DECIMAL[suffix] !== undefined) {
    exponent10 = DECIMAL[suffix]!;
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    exponent10 = Number(suffix.slice(1));
  } else {
    return undefined;
  }
  // value = digits × 10^(exponent10 − fraction digits) × 2^exponent2, in nano-units rounded up.
  const numerator = BigInt(`${whole}${fraction}` || '0') * 2n ** BigInt(exponent2);
  const scale = exponent10 - fraction.length + 9;
  let nanos: bigint;
  if (scale >= 0) nanos = numerator * 10n ** BigInt(scale);
  else {
    const divisor = 10n ** BigInt(-scale);
    nanos = numerator / divisor;
    if (numerator % divisor !== 0n) nanos += 1n;
  }
  return { nanos: sign === '-' ? -nanos : nanos, format };
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos - b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** kube's canonical text of a quantity. */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const negative = q.nanos < 0n;
  const magnitude = negative ? -q.nanos : q.nanos;
  const sign = negative ? '-' : '';
  if (q.format === 'BinarySI' && magnitude >= 1024n * NANO && magnitude % NANO === 0n) {
    let value = magnitude / NANO;
    let power = 0;
    while (power < BINARY_SUFFIX.length - 1 && value % 1024n === 0n) {
      value /= 1024n;
      power++;
    }
    return `${sign}${value}${BINARY_SUFFIX[power]}`;
  }
  // The largest exponent (a multiple of 3, from −9) that leaves a whole mantissa.
  let mantissa = magnitude;
  let exponent = -9;
  while (exponent < 18 && mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (q.format === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  return `${sign}${mantissa}${SI_SUFFIX[exponent]}`;
}

/** The largest value whose thousandths an int64 holds (kube's MaxMilliValue). */
export const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

/** Whole units rounded up to an integer, toward +∞ (kube's Value). */
export function quantityValue(q: Quantity): bigint {
  return ceilDiv(q.nanos, NANO);
}

/** Thousandths rounded up, toward +∞ (kube's MilliValue). */
export function quantityMilliValue(q: Quantity): bigint {
  return ceilDiv(q.nanos, 1_000_000n);
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? (a + b - 1n) / b : -(-a / b));
