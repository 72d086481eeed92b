/** Go's time.ParseDuration and Duration.String for flag values such as `1m0s` and `5m`. */

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration (`300ms`, `1.5h`, `1h2m3s`, `-5s`, `0`) into milliseconds. Throws an
 * Error with Go's text (`time: invalid duration "x"`) for anything else.
 */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  const part = /^([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const match = part.exec(rest);
    if (match === null || match[1] === '' || match[1] === '.') {
      if (match === null && /^[0-9.]+$/.test(rest)) throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`);
      throw invalid();
    }
    total += Number(match[1]) * UNITS[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return sign * total;
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
