/**
 * Which strings kube's `resource.ParseQuantity` accepts (resource requests and limits,
 * capacities, ...), with its three error texts. kube refuses a body whose Quantity field
 * does not parse with the error text as the decode error, e.g.
 * `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`.
 *
 * The port follows ParseQuantity's scanner rather than the regular expression it quotes:
 * `+`, `.`, `1.` and `+k` are zero, `1e3` and `1E-3` are decimal exponents (an exponent must
 * fit in int64), `E` alone is exa, and a number with no digits that needs the slow
 * arbitrary-precision path (`Ei`, `Pi`, `.e-10`) fails as non-numeric. Pure; never throws.
 */

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_LETTERS = 'eEinumkKMGTP';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** kube's maxInt64Factors: the decimal digits an int64 always holds. */
const MAX_INT64_FACTORS = 18;
/** The smallest scale the fast path handles (kube's Nano). */
const NANO = -9;

/** The parts ParseQuantity's scanner finds; `value` is the signed number as written (digits may be absent). */
interface Scanned {
  value: string;
  numerator: string;
  denominator: string;
  suffix: string;
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** kube's parseQuantityString: undefined when the text cannot be split into number and suffix. */
function scan(str: string): Scanned | undefined {
  const end = str.length;
  let pos = 0;
  if (str[0] === '-' || str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { value: '0', numerator: '0', denominator: '', suffix: '' };
  const numeratorStart = pos;
  while (pos < end && isDigitCode(str.charCodeAt(pos))) pos++;
  const numerator = pos === numeratorStart ? '0' : str.slice(numeratorStart, pos);
  if (pos >= end) return { value: str, numerator, denominator: '', suffix: '' };
  let denominator = '';
  if (str[pos] === '.') {
    const denominatorStart = ++pos;
    while (pos < end && isDigitCode(str.charCodeAt(pos))) pos++;
    denominator = str.slice(denominatorStart, pos);
    if (pos >= end) return { value: str, numerator, denominator, suffix: '' };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(str[pos]!)) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigitCode(str.charCodeAt(pos))) pos++;
  return pos < end ? undefined : { value, numerator, denominator, suffix: str.slice(suffixStart) };
}

/** kube's suffixer: base-10 exponent or power of two, or undefined for an unknown suffix. */
function interpret(suffix: string): { format: Format; exponent: number } | undefined {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { format: 'DecimalSI', exponent: decimal };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { format: 'BinarySI', exponent: binary };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const exponent = BigInt(digits);
    if (exponent < INT64_MIN || exponent > INT64_MAX) return undefined;
    // ParseQuantity keeps the exponent as an int32 (wrapping, as Go's conversion does).
    return { format: 'DecimalExponent', exponent: Number(BigInt.asIntN(32, exponent)) };
  }
  return undefined;
}

/** Whether ParseQuantity takes its int64 fast path (which never fails) rather than inf.Dec's. */
function fastPath(scanned: Scanned, format: Format, exponent: number): boolean {
  const digits = scanned.numerator.length + scanned.denominator.length;
  if (format === 'BinarySI') {
    if (exponent < 0 || scanned.denominator.length !== 0) return false;
    const precision = 15 - scanned.numerator.length - Math.trunc(Math.fround(exponent) * 3 / 10) - 1;
    if (precision < 0) return false;
    // The mantissa (a power of two) times the numerator must fit in an int64.
    return BigInt(scanned.numerator) * 2n ** BigInt(exponent) <= INT64_MAX;
  }
  return MAX_INT64_FACTORS - digits >= 0 && exponent - scanned.denominator.length >= NANO;
}

/**
 * The error kube's `resource.ParseQuantity(str)` returns, or undefined when it accepts
 * `str`: QUANTITY_FORMAT_ERROR, QUANTITY_SUFFIX_ERROR or QUANTITY_NUMERIC_ERROR.
 */
export function quantityParseError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT_ERROR;
  if (str === '0') return undefined;
  const scanned = scan(str);
  if (scanned === undefined) return QUANTITY_FORMAT_ERROR;
  const meaning = interpret(scanned.suffix);
  if (meaning === undefined) return QUANTITY_SUFFIX_ERROR;
  if (fastPath(scanned, meaning.format, meaning.exponent)) return undefined;
  // inf.Dec's SetString needs at least one digit.
  return /[0-9]/.test(scanned.value) ? undefined : QUANTITY_NUMERIC_ERROR;
}
