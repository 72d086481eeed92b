/**
 * Go's `time.Parse` for the two layouts Kubernetes timestamps use, with Go's error texts:
 * metav1.Time parses RFC 3339 (`2006-01-02T15:04:05Z07:00`), metav1.MicroTime RFC 3339
 * with exactly six fraction digits (`2006-01-02T15:04:05.000000Z07:00`). kube answers an
 * unparsable timestamp with these texts verbatim, e.g.
 * `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`.
 *
 * The port follows Go's general parser (its RFC 3339 fast path accepts a subset of the same
 * strings), quirks included: a one-digit hour, `,` as the fraction separator, fraction
 * digits of any length for Time, a signed six-character fraction for MicroTime (`.+12345`),
 * zone offsets up to +24:60, and day-of-month checked only once everything else parsed.
 * Pure; never throws.
 */

export type GoTimeLayout = 'RFC3339' | 'RFC3339Micro';

/** The layout strings as Go's messages print them. */
export const GO_TIME_LAYOUTS: Readonly<Record<GoTimeLayout, string>> = {
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Micro: '2006-01-02T15:04:05.000000Z07:00',
};

type Element = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micros' | 'zone';

/** A layout as Go's nextStdChunk splits it: a literal prefix, then one element (its layout text). */
interface Chunk {
  readonly prefix: string;
  readonly element: Element;
  readonly text: string;
}

const DATE_TIME: readonly Chunk[] = [
  { prefix: '', element: 'year', text: '2006' },
  { prefix: '-', element: 'month', text: '01' },
  { prefix: '-', element: 'day', text: '02' },
  { prefix: 'T', element: 'hour', text: '15' },
  { prefix: ':', element: 'minute', text: '04' },
  { prefix: ':', element: 'second', text: '05' },
];

const CHUNKS: Readonly<Record<GoTimeLayout, readonly Chunk[]>> = {
  RFC3339: [...DATE_TIME, { prefix: '', element: 'zone', text: 'Z07:00' }],
  RFC3339Micro: [...DATE_TIME, { prefix: '', element: 'micros', text: '.000000' }, { prefix: '', element: 'zone', text: 'Z07:00' }],
};

const HEX_DIGITS = Buffer.from('0123456789abcdef');
/** How many bytes goTimeQuote writes for each byte: `\xNN`, `\"` or the byte itself. */
const QUOTED_LENGTH = Uint8Array.from({ length: 256 }, (_, byte) => (byte < 0x20 || byte >= 0x80 ? 4 : byte === 0x22 || byte === 0x5c ? 2 : 1));

/**
 * Go's time.quote: ASCII kept (`"` and `\` escaped), every other byte of the UTF-8 text as
 * `\xNN`. Written byte by byte into one buffer (a megabyte of text is a few ms; one string
 * concatenation per byte took a second).
 */
export function goTimeQuote(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  let size = 2;
  for (let i = 0; i < bytes.length; i++) size += QUOTED_LENGTH[bytes[i]!]!;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = 0x22;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < 0x20 || byte >= 0x80) {
      out[at++] = 0x5c;
      out[at++] = 0x78;
      out[at++] = HEX_DIGITS[byte >> 4]!;
      out[at++] = HEX_DIGITS[byte & 0xf]!;
    } else {
      if (byte === 0x22 || byte === 0x5c) out[at++] = 0x5c;
      out[at++] = byte;
    }
  }
  out[at] = 0x22;
  return out.toString('latin1');
}

function isDigit(s: string, i: number): boolean {
  return i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;
}

/** Go's getnum: one or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : { n: s.charCodeAt(0) - 0x30, rest: s.slice(1) };
  return { n: (s.charCodeAt(0) - 0x30) * 10 + (s.charCodeAt(1) - 0x30), rest: s.slice(2) };
}

/** Go's atoi: an optional sign, then digits only. */
function atoi(s: string): number | undefined {
  const body = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
  if (!/^[0-9]*$/.test(body)) return undefined;
  const n = body === '' ? 0 : Number(body);
  return s.startsWith('-') ? -n : n;
}

/** Go's parseNanoseconds over `value[0, n)` (`.` or `,` then digits): a negative value is out of range. */
function fraction(value: string, n: number): 'bad' | 'range' | 'ok' {
  if (value[0] !== '.' && value[0] !== ',') return 'bad';
  const digits = atoi(value.slice(1, Math.min(n, 10)));
  if (digits === undefined) return 'bad';
  return digits < 0 ? 'range' : 'ok';
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  return month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** The outcome of one element: the rest of the value, or why it failed. */
type Step = { rest: string; range?: string } | { bad: true };

function parseElement(chunk: Chunk, value: string, following: Chunk | undefined, fields: { year: number; month: number; day: number }): Step {
  switch (chunk.element) {
    case 'year': {
      if (value.length < 4 || !isDigit(value, 0)) return { bad: true };
      const year = atoi(value.slice(0, 4));
      if (year === undefined) return { bad: true };
      fields.year = year;
      return { rest: value.slice(4) };
    }
    case 'month': {
      const got = getnum(value, true);
      if (got === undefined) return { bad: true };
      fields.month = got.n;
      return got.n <= 0 || got.n > 12 ? { rest: got.rest, range: 'month' } : { rest: got.rest };
    }
    case 'day': {
      const got = getnum(value, true);
      if (got === undefined) return { bad: true };
      fields.day = got.n;
      return { rest: got.rest };
    }
    case 'hour': {
      const got = getnum(value, false);
      if (got === undefined) return { bad: true };
      return got.n >= 24 ? { rest: got.rest, range: 'hour' } : { rest: got.rest };
    }
    case 'minute': {
      const got = getnum(value, true);
      if (got === undefined) return { bad: true };
      return got.n >= 60 ? { rest: got.rest, range: 'minute' } : { rest: got.rest };
    }
    case 'second': {
      const got = getnum(value, true);
      if (got === undefined) return { bad: true };
      if (got.n >= 60) return { rest: got.rest, range: 'second' };
      const rest = got.rest;
      // A fraction the layout does not ask for: any number of digits (Time).
      if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1) && following?.element !== 'micros') {
        let n = 2;
        while (isDigit(rest, n)) n++;
        return { rest: rest.slice(n) };
      }
      return { rest };
    }
    case 'micros': {
      if (value.length < 7) return { bad: true };
      const outcome = fraction(value, 7);
      if (outcome === 'bad') return { bad: true };
      return outcome === 'range' ? { rest: value.slice(7), range: 'fractional second' } : { rest: value.slice(7) };
    }
    case 'zone':
      return parseZone(value);
  }
}

/** `Z` or `±hh:mm`; offsets up to 24 hours and 60 minutes are accepted, as Go does. */
function parseZone(value: string): Step {
  if (value.startsWith('Z')) return { rest: value.slice(1) };
  if (value.length < 6 || value[3] !== ':') return { bad: true };
  const hours = getnum(value.slice(1, 3), true);
  const minutes = hours === undefined ? undefined : getnum(value.slice(4, 6), true);
  const rest = value.slice(6);
  let range: string | undefined;
  if (hours !== undefined && hours.n > 24) range = 'time zone offset hour';
  if (minutes !== undefined && minutes.n > 60) range = 'time zone offset minute';
  if (range !== undefined) return { rest, range };
  if (hours === undefined || minutes === undefined || (value[0] !== '+' && value[0] !== '-')) return { bad: true };
  return { rest };
}

/**
 * The error Go's `time.Parse(layout, value)` returns for `value`, or undefined when Go
 * accepts it. `RFC3339` is metav1.Time's layout, `RFC3339Micro` metav1.MicroTime's.
 */
export function goTimeParseError(value: string, layout: GoTimeLayout): string | undefined {
  const layoutText = GO_TIME_LAYOUTS[layout];
  let quotedValue: string | undefined;
  // A value that fails at its first element is quoted twice (whole, and as the rest): once is enough.
  const quoteValue = (): string => (quotedValue ??= goTimeQuote(value));
  const cannotParse = (rest: string, element: string) =>
    `parsing time ${quoteValue()} as ${goTimeQuote(layoutText)}: cannot parse ${rest === value ? quoteValue() : goTimeQuote(rest)} as ${goTimeQuote(element)}`;
  const chunks = CHUNKS[layout];
  const fields = { year: 0, month: 1, day: 1 };
  let rest = value;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    for (let p = 0; p < chunk.prefix.length; p++) {
      if (rest.length === 0 || rest[0] !== chunk.prefix[p]) return cannotParse(rest, chunk.prefix);
      rest = rest.slice(1);
    }
    const step = parseElement(chunk, rest, chunks[i + 1], fields);
    if ('range' in step && step.range !== undefined) return `parsing time ${quoteValue()}: ${step.range} out of range`;
    if ('bad' in step) return cannotParse(rest, chunk.text);
    rest = step.rest;
  }
  if (rest.length !== 0) return `parsing time ${quoteValue()}: extra text: ${goTimeQuote(rest)}`;
  if (fields.day < 1 || fields.day > daysIn(fields.month, fields.year)) return `parsing time ${quoteValue()}: day out of range`;
  return undefined;
}
