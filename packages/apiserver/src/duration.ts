/** Go's time.ParseDuration and Duration.String for flag values such as `1m0s` and `5m`. */

/** Nanoseconds per unit (Go's unitMap). */
const UNIT_NANOS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const MAX_NANOS = 2 ** 63;

/** Go's time package quote: printable ASCII kept (`"` and `\` escaped), every other byte as `\xNN`. */
function timeQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const byte of Buffer.from(ch, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

/**
 * Go's time.ParseDuration (`300ms`, `1.5h`, `1h2m3s`, `-5s`, `0`), in milliseconds. Throws an
 * Error with Go's text: `time: invalid duration "x"`, `time: missing unit in duration "5"`,
 * `time: unknown unit "x" in duration "1x"`.
 */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration ${timeQuote(text)}`);
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const number = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest)!;
    const [consumed, whole = '', fraction] = number;
    if (consumed === '' || (whole === '' && (fraction === undefined || fraction === ''))) throw invalid();
    rest = rest.slice(consumed.length);
    const unitLength = /^[^0-9.]*/.exec(rest)![0].length;
    if (unitLength === 0) throw new Error(`time: missing unit in duration ${timeQuote(text)}`);
    const unit = rest.slice(0, unitLength);
    rest = rest.slice(unitLength);
    const nanos = UNIT_NANOS[unit];
    if (nanos === undefined) throw new Error(`time: unknown unit ${timeQuote(unit)} in duration ${timeQuote(text)}`);
    total += Number(`${whole === '' ? '0' : whole}.${fraction ?? ''}0`) * nanos;
    if (total > MAX_NANOS) throw invalid();
  }
  if (!negative && total > MAX_NANOS - 1) throw invalid();
  return ((negative ? -1 : 1) * total) / 1e6;
}

/** Go's Duration.String for whole milliseconds: `1m0s`, `5m0s`, `1h0m0s`, `1.5s`, `0s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const negative = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${negative ? '-' : ''}${rest}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  let out = `${seconds}s`;
  if (hours > 0 || minutes > 0) out = `${minutes}m${out}`;
  if (hours > 0) out = `${hours}h${out}`;
  return `${negative ? '-' : ''}${out}`;
}
