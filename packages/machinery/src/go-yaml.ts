/**
 * YAML exactly as kube-apiserver writes it: sigs.k8s.io/yaml turns the JSON into go-yaml v2
 * values and marshals them with go-yaml v2's emitter (a port of libyaml). This writes JSON
 * values the way that emitter does: block mappings with keys in go-yaml's "natural" order,
 * sequences under a key not indented, `{}`/`[]` for empty collections, each string in the
 * style the emitter picks (plain, single- or double-quoted, literal `|` for lines), lines folded at
 * spaces past column 80, YAML 1.1 look-alikes (`"true"`, `"123"`, timestamps) quoted, and
 * numbers as Go formats ints and float64s.
 */

import { StatusError } from './status.js';
import { runSteps, yieldBeforeLongStep, type Steps } from './time-slice.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
/** Keys longer than this (in UTF-8 bytes) are written as complex keys (`? key`). */
const MAX_SIMPLE_KEY_LENGTH = 128;

type Style = 'plain' | 'single' | 'double' | 'literal';

/** A string as the emitter sees it: which styles may carry it. */
interface Analysis {
  readonly multiline: boolean;
  /** Whether it holds a line feed (go-yaml writes such a string as a literal block when it can). */
  readonly lineFeed: boolean;
  readonly flowPlainAllowed: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;
const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isBlankOrBreak = (c: number): boolean => c === 0x20 || c === 0x09 || isBreak(c);
const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** A table of the ASCII characters for which `member` holds (1) or not (0). */
function asciiTable(member: (c: number) => boolean): Uint8Array {
  return Uint8Array.from({ length: 0x80 }, (_, c) => (member(c) ? 1 : 0));
}

/**
 * The code units of the character (code point, as Array.from splits a string) at `at`, whose
 * first unit is `c`: 2 for a surrogate pair, 1 otherwise (a lone surrogate is a character).
 */
function charWidth(value: string, at: number, c: number): number {
  return isHighSurrogate(c) && isLowSurrogate(value.charCodeAt(at + 1)) ? 2 : 1;
}

/** The code point of the character at `at`, whose first unit is `c` and width `width`. */
function codePoint(value: string, at: number, c: number, width: number): number {
  return width === 1 ? c : 0x10000 + ((c - 0xd800) << 10) + (value.charCodeAt(at + 1) - 0xdc00);
}

/** libyaml's is_printable, on a code point (go-yaml allows every printable Unicode character raw). */
function isPrintable(code: number): boolean {
  if (code === 0x0a) return true;
  if (code >= 0x20 && code <= 0x7e) return true;
  if (code >= 0xa0 && code <= 0xd7ff) return true;
  if (code >= 0xe000 && code <= 0xfffd) return code !== 0xfeff;
  return false;
}

/** Indicators that make a plain scalar impossible when they start it: `#,[]{}&*!|>'"%@` and the backquote. */
const isLeadingIndicator = (c: number): boolean =>
  c === 0x23 || c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x26 || c === 0x2a ||
  c === 0x21 || c === 0x7c || c === 0x3e || c === 0x27 || c === 0x22 || c === 0x25 || c === 0x40 || c === 0x60;
/** Flow indicators anywhere but first: `,?[]{}`. */
const isFlowIndicator = (c: number): boolean => c === 0x2c || c === 0x3f || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d;

/**
 * Printable ASCII characters that are no indicator anywhere but first (`,?[]{}:#` are) and
 * neither a space nor a break: past the first character, one only ends a run of spaces or breaks.
 */
const ORDINARY = asciiTable((c) => c > 0x20 && c < 0x7f && !',?[]{}:#'.includes(String.fromCharCode(c)));
const isOrdinary = (c: number): boolean => c < 0x80 && ORDINARY[c] === 1;

/** Printable ASCII a double-quoted scalar writes as it is: all but spaces, quotes and backslashes. */
const VERBATIM = asciiTable((c) => c > 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c);
const isVerbatim = (c: number): boolean => c < 0x80 && VERBATIM[c] === 1;

/**
 * libyaml's analyze_scalar, fed a string in pieces (`scan`, in order, each ending between two
 * characters) so that a long string is analysed in several steps; `result` once all is scanned.
 */
class ScalarAnalysis {
  private flowIndicators = false;
  private blockIndicators = false;
  private precededByWhitespace = true;
  private lineBreaks = false;
  private lineFeed = false;
  private specialCharacters = false;
  private leadingSpace = false;
  private leadingBreak = false;
  private trailingSpace = false;
  private trailingBreak = false;
  private breakSpace = false;
  private spaceBreak = false;
  private previousSpace = false;
  private previousBreak = false;
  /** A NEL or a character go-yaml's reader refuses: the string does not go through JSON as it is. */
  throughJsonChanged = false;

  constructor(private readonly value: string) {
    if (value.startsWith('---') || value.startsWith('...')) {
      this.flowIndicators = true;
      this.blockIndicators = true;
    }
  }

  /** Scans the characters that start in [from, to). */
  scan(from: number, to: number): void {
    const value = this.value;
    const length = value.length;
    let { flowIndicators, blockIndicators, precededByWhitespace, lineBreaks, lineFeed, specialCharacters, breakSpace, spaceBreak, previousSpace, previousBreak } = this;
    for (let i = from; i < to; ) {
      if (i > 0) {
        // A run of ordinary characters only ends what came before (a space, a break).
        const start = i;
        while (i < to && isOrdinary(value.charCodeAt(i))) i++;
        if (i > start) {
          previousSpace = false;
          previousBreak = false;
          precededByWhitespace = false;
          continue;
        }
      }
      const unit = value.charCodeAt(i);
      const width = charWidth(value, i, unit);
      const c = codePoint(value, i, unit, width);
      const next = i + width;
      const last = next >= length;
      const followedByWhitespace = last || isBlankOrBreak(value.charCodeAt(next));
      if (i === 0) {
        if (isLeadingIndicator(c)) {
          flowIndicators = true;
          blockIndicators = true;
        } else if (c === 0x3f || c === 0x3a) {
          flowIndicators = true;
          if (followedByWhitespace) blockIndicators = true;
        } else if (c === 0x2d && followedByWhitespace) {
          flowIndicators = true;
          blockIndicators = true;
        }
      } else if (isFlowIndicator(c)) {
        flowIndicators = true;
      } else if (c === 0x3a) {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (c === 0x23 && precededByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
      if (!isPrintable(c)) {
        specialCharacters = true;
        if ((c >= 0x7f && c <= 0x9f) || c === 0xfffe || c === 0xffff) this.throughJsonChanged = true;
      }
      if (c === 0x20) {
        if (i === 0) this.leadingSpace = true;
        if (last) this.trailingSpace = true;
        if (previousBreak) breakSpace = true;
        previousSpace = true;
        previousBreak = false;
      } else if (isBreak(c)) {
        lineBreaks = true;
        if (c === 0x0a) lineFeed = true;
        if (i === 0) this.leadingBreak = true;
        if (last) this.trailingBreak = true;
        if (previousSpace) spaceBreak = true;
        previousSpace = false;
        previousBreak = true;
      } else {
        previousSpace = false;
        previousBreak = false;
      }
      precededByWhitespace = isBlankOrBreak(c) || c === 0;
      i = next;
    }
    this.flowIndicators = flowIndicators;
    this.blockIndicators = blockIndicators;
    this.precededByWhitespace = precededByWhitespace;
    this.lineBreaks = lineBreaks;
    this.lineFeed = lineFeed;
    this.specialCharacters = specialCharacters;
    this.breakSpace = breakSpace;
    this.spaceBreak = spaceBreak;
    this.previousSpace = previousSpace;
    this.previousBreak = previousBreak;
  }

  result(): Analysis {
    if (this.value.length === 0) return { multiline: false, lineFeed: false, flowPlainAllowed: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
    let flowPlainAllowed = true;
    let blockPlainAllowed = true;
    let singleQuotedAllowed = true;
    let blockAllowed = true;
    if (this.leadingSpace || this.leadingBreak || this.trailingSpace || this.trailingBreak) flowPlainAllowed = blockPlainAllowed = false;
    if (this.trailingSpace) blockAllowed = false;
    if (this.breakSpace) flowPlainAllowed = blockPlainAllowed = singleQuotedAllowed = false;
    if (this.spaceBreak || this.specialCharacters) flowPlainAllowed = blockPlainAllowed = singleQuotedAllowed = blockAllowed = false;
    if (this.lineBreaks) flowPlainAllowed = blockPlainAllowed = false;
    if (this.flowIndicators) flowPlainAllowed = false;
    if (this.blockIndicators) blockPlainAllowed = false;
    return { multiline: this.lineBreaks, lineFeed: this.lineFeed, flowPlainAllowed, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
  }
}

// What a plain scalar would be read back as (go-yaml v2's resolve): anything but a string
// must be quoted to stay a string.
const YAML11_KEYWORDS = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '<<',
]);
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/;
const TIMESTAMP = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?))?$/;

/** Go's ParseFloat on a string starting with `.` (what go-yaml tries for such plain scalars). */
const GO_DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  const [h, min, sec] = m[4] !== undefined ? [m[4], m[5], m[6]] : [m[7], m[8], m[9]];
  if (h === undefined) return true;
  return Number(h) < 24 && Number(min) < 60 && Number(sec) < 60;
}

/** Whether go-yaml would read `s`, written plain, as something other than this string. */
function resolvesToNonString(s: string): boolean {
  if (YAML11_KEYWORDS.has(s)) return s !== '<<';
  const first = s[0]!;
  if (first === '.') return GO_DOT_FLOAT.test(s) && Number.isFinite(Number(s));
  if (first !== '+' && first !== '-' && !(first >= '0' && first <= '9')) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  // An int is one only if Go's ParseInt or ParseUint takes it, a float if ParseFloat takes it
  // (in range): `0x` and 20 digits or `1e400` stay strings.
  return (GO_INT.test(plain) && goIntInRange(plain)) || (YAML_FLOAT.test(plain) && Number.isFinite(Number(plain)));
}

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Whether strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) takes `s` (which matches GO_INT). */
function goIntInRange(s: string): boolean {
  const sign = s[0] === '-' || s[0] === '+' ? s[0] : '';
  let digits = s.slice(sign.length);
  // A leading 0 before more digits is octal (JavaScript's BigInt would read it as decimal).
  if (/^0[0-7]/.test(digits)) digits = `0o${digits.slice(1)}`;
  const magnitude = BigInt(digits);
  if (sign === '-') return magnitude <= INT64_MAX + 1n;
  return magnitude <= (sign === '+' ? INT64_MAX : UINT64_MAX);
}

function isBase60Float(s: string): boolean {
  const c = s[0];
  if (c === undefined || !(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

/** go-yaml v2's key order: digit runs compare as numbers, a non-letter sorts before a letter. */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  const isLetter = (c: string): boolean => /\p{L}/u.test(c);
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai]!.charCodeAt(0) - 48);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi]!.charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isAsciiDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdfff;
/** Digit runs longer than this are compared as BigInts (by goYamlKeyLess). */
const SAFE_DIGITS = 15;

/**
 * goYamlKeyLess as a sort comparator (-1, 0, 1), in one pass over UTF-16 code units where the
 * keys differ at ASCII characters (Kubernetes' keys almost always), with no allocation;
 * anything else is left to goYamlKeyLess. Sorting 20,000 keys with goYamlKeyLess twice per
 * comparison took tens of ms.
 */
export function goYamlKeyCompare(a: string, b: string): number {
  const slow = (): number => (goYamlKeyLess(a, b) ? -1 : goYamlKeyLess(b, a) ? 1 : 0);
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) {
    if (n > 0 && isSurrogate(a.charCodeAt(n - 1))) return slow();
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if (ca >= 0x80 || cb >= 0x80) return slow();
  const al = isAsciiLetter(ca);
  const bl = isAsciiLetter(cb);
  if (al && bl) return ca < cb ? -1 : 1;
  if (al || bl) return bl ? -1 : 1;
  let an = 0;
  let bn = 0;
  if (ca === 0x30 || cb === 0x30) {
    for (let j = i - 1; j >= 0 && isAsciiDigit(a.charCodeAt(j)); j--) {
      if (a.charCodeAt(j) !== 0x30) {
        an = 1;
        bn = 1;
        break;
      }
    }
  }
  let ai = i;
  let bi = i;
  for (; ai < a.length && isAsciiDigit(a.charCodeAt(ai)); ai++) an = an * 10 + a.charCodeAt(ai) - 0x30;
  for (; bi < b.length && isAsciiDigit(b.charCodeAt(bi)); bi++) bn = bn * 10 + b.charCodeAt(bi) - 0x30;
  if (ai - i > SAFE_DIGITS || bi - i > SAFE_DIGITS) return slow();
  if (an !== bn) return an < bn ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  return ca < cb ? -1 : 1;
}

const INT64_BOUND = 2 ** 63;

/** A JSON number as go-yaml writes the int64 or float64 it reads it as. */
export function goYamlNumber(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
  if (Number.isInteger(value) && Math.abs(value) < INT64_BOUND) return BigInt(value).toString();
  // strconv.FormatFloat(v, 'g', -1, 64): exponent form below 1e-4 and from 1e6 on.
  const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(value);
}

const DOUBLE_ESCAPES: ReadonlyMap<number, string> = new Map(
  Object.entries({
    '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\x0b': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e',
    '"': '"', '\\': '\\', '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P',
  }).map(([c, letter]) => [c.charCodeAt(0), `\\${letter}`]),
);

/** A code point as a double-quoted scalar escapes it: `\n`, `\x07`, `\uFEFF`, `\U0001F600`. */
function doubleEscape(code: number): string {
  const short = DOUBLE_ESCAPES.get(code);
  if (short !== undefined) return short;
  const [letter, width] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
  return `\\${letter}${code.toString(16).toUpperCase().padStart(width, '0')}`;
}

/**
 * A string as go-yaml reads it back from the JSON that sigs.k8s.io/yaml first writes: Go's JSON
 * escapes every line break but U+0085 (NEL), and go-yaml's scanner folds a raw one inside the
 * double-quoted JSON string like any line break. In a run of spaces and NELs the spaces before
 * the first NEL and after it are dropped; one NEL becomes a space, n of them n - 1 line feeds.
 */
function goYamlJsonString(value: string): string {
  if (!value.includes('\u0085')) return value;
  return value.replace(/[ \u0085]*\u0085[ \u0085]*/g, (run) => {
    let breaks = 0;
    for (let i = 0; i < run.length; i++) if (run.charCodeAt(i) === 0x85) breaks++;
    return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
  });
}

/**
 * Characters go-yaml's reader refuses (`control characters are not allowed`) that Go's JSON
 * leaves raw: DEL, the C1 controls but NEL, U+FFFE and U+FFFF.
 */
const YAML_REFUSED = /[\x7f-\x84\x86-\x9f\ufffe\uffff]/;
/** A raw NEL starts a line in the JSON go-yaml reads: `---` or `...` and a blank there ends the document. */
const DOCUMENT_INDICATOR = /\u0085(?:---|\.\.\.)[ \u0085]/;

/** sigs.k8s.io/yaml's Marshal failing: kube-apiserver's 500 Status, the error as its message and no reason. */
export class GoYamlError extends StatusError {
  constructor(message: string) {
    super({ code: 500, message });
  }
}

/**
 * Whether sigs.k8s.io/yaml fails on a value holding `text` (a key if `key`): see goYamlJsonError.
 */
function failsInJson(text: string, key: boolean): boolean {
  return YAML_REFUSED.test(text) || (text.includes('\u0085') && (key || DOCUMENT_INDICATOR.test(text)));
}

/**
 * The error sigs.k8s.io/yaml's Marshal gives for `root` (a JSON value) when go-yaml cannot
 * read back the JSON it writes first, as kube-apiserver answers it (500, the error's text as
 * the message, no reason): a character its reader refuses anywhere; else, the first in the
 * JSON's text (in `root`'s order) of `---`/`...` and a blank just after a raw NEL (a
 * document's end), or a key holding a NEL (a key across lines). Lines are the JSON text's,
 * which only NELs break: the indicator's (1-based), the key's last (0-based, as go-yaml prints
 * a parser error's).
 */
function goYamlJsonError(root: unknown): GoYamlError | undefined {
  const fail = (message: string): GoYamlError => new GoYamlError(message);
  let refused = false;
  let line = 1;
  let first: string | undefined;
  const nels = (s: string): number => {
    let n = 0;
    for (let at = s.indexOf('\u0085'); at !== -1; at = s.indexOf('\u0085', at + 1)) n++;
    return n;
  };
  const text = (s: string, key: boolean): void => {
    if (YAML_REFUSED.test(s)) refused = true;
    if (first !== undefined || !s.includes('\u0085')) return;
    const indicator = DOCUMENT_INDICATOR.exec(s);
    if (indicator !== null) first = `yaml: line ${line + nels(s.slice(0, indicator.index + 1))}: found unexpected document indicator`;
    // A parser error: the line is the 0-based one of the `:` after the key.
    else if (key) first = `yaml: line ${line - 1 + nels(s)}: did not find expected ',' or '}'`;
    line += nels(s);
  };
  const walk = (value: unknown): void => {
    if (typeof value === 'string') text(value, false);
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) {
        if (member === undefined) continue;
        text(key, true);
        walk(member);
      }
    }
  };
  walk(root);
  if (refused) return fail('yaml: control characters are not allowed');
  return first === undefined ? undefined : fail(first);
}

/** `value` analysed in steps of SCALAR_STEP, with a pause (a yield) between two. */
function* analyse(value: string): Steps<ScalarAnalysis> {
  const scan = new ScalarAnalysis(value);
  for (let from = 0; from < value.length; ) {
    const to = stepEnd(value, from);
    scan.scan(from, to);
    from = to;
    if (from < value.length) yield;
  }
  return scan;
}

/** Code units of a string analysed or written in one step: a longer one pauses between steps. */
const SCALAR_STEP = 64 * 1024;

/** Where the step of `value` that starts at `from` ends: SCALAR_STEP on, never inside a surrogate pair. */
function stepEnd(value: string, from: number): number {
  const to = Math.min(from + SCALAR_STEP, value.length);
  return to < value.length && isHighSurrogate(value.charCodeAt(to - 1)) && isLowSurrogate(value.charCodeAt(to)) ? to + 1 : to;
}

/** Where a scalar's writer is, between two steps. */
interface WriteState {
  /** Whether long lines may be folded (not in a simple key). */
  readonly allowBreaks: boolean;
  /** The last character written was a space. */
  spaces: boolean;
  /** The last character written was a line break, or (single-quoted) a space after one. */
  breaks: boolean;
  /**
   * The value starts with a BOM: go-yaml's double-quoted writer then escapes every character
   * (its BOM test looks at the value's first bytes, not the current character's).
   */
  readonly bomFirst: boolean;
}

/** Characters of output joined into one chunk at a time (at the next place to pause). */
const CHUNK_CHARS = 16 * 1024;

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

class Emitter {
  /** The document's value (to find the error sigs.k8s.io/yaml would give, if any). */
  constructor(private readonly root: unknown) {}

  private readonly out: string[] = [];
  /** The output so far, in chunks (the pieces in `out` follow). */
  readonly chunks: string[] = [];
  /** The length of the pieces in `out`. */
  private pending = 0;
  private column = 0;
  private indent = -1;
  private readonly indents: number[] = [];
  private whitespace = true;
  private indention = true;

  /** Joins the pieces written since the last flush into a chunk. */
  flush(): void {
    if (this.out.length === 0) return;
    this.chunks.push(this.out.join(''));
    this.out.length = 0;
    this.pending = 0;
  }

  /** After a sequence item or a mapping entry: a chunk is full, a place to pause. */
  private full(): boolean {
    if (this.pending < CHUNK_CHARS) return false;
    this.flush();
    return true;
  }

  /** ASCII text (indicators, indentation, escapes): a column per character. */
  private put(s: string): void {
    this.out.push(s);
    this.pending += s.length;
    this.column += s.length;
  }

  /** value[from, to), whose characters' columns the caller has counted. */
  private copy(value: string, from: number, to: number): void {
    if (to <= from) return;
    this.out.push(value.slice(from, to));
    this.pending += to - from;
  }

  private newline(): void {
    this.out.push('\n');
    this.pending++;
    this.column = 0;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.newline();
    if (this.column < indent) this.put(' '.repeat(indent - this.column));
    this.whitespace = true;
    this.indention = true;
  }

  private indicator(s: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(s);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  /**
   * A node: `mappingContext` for a mapping's value (a sequence there is not indented). Pauses
   * (yields) after a sequence item or mapping entry that fills a chunk, and inside a long scalar.
   */
  *node(value: unknown, mappingContext: boolean, simpleKey: boolean): Generator<void, void, void> {
    if (!isContainer(value)) {
      yield* this.leaf(value, simpleKey);
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) {
        this.indicator('[]', true, false, false);
        return;
      }
      this.increaseIndent(false, mappingContext && !this.indention);
      for (const item of value as unknown[]) {
        this.writeIndent();
        this.indicator('-', true, false, true);
        if (isContainer(item)) yield* this.node(item, false, false);
        else yield* this.leaf(item, false);
        if (this.full()) yield;
      }
      this.popIndent();
      return;
    }
    const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined).sort(goYamlKeyCompare);
    if (keys.length === 0) {
      this.indicator('{}', true, false, false);
      return;
    }
    this.increaseIndent(false, false);
    for (const key of keys) {
      this.writeIndent();
      // A key holding a NEL fails (one holding a character go-yaml refuses fails in scalar).
      const multiline = LINE_BREAK.test(key);
      if (multiline && failsInJson(key, true)) this.fail();
      const simple = !multiline && Buffer.byteLength(key) <= MAX_SIMPLE_KEY_LENGTH;
      if (simple) {
        yield* this.scalar(key, true, true);
        this.indicator(':', false, false, false);
      } else {
        this.indicator('?', true, false, true);
        yield* this.scalar(key, false, true);
        this.writeIndent();
        this.indicator(':', true, false, true);
      }
      const entry = (value as Record<string, unknown>)[key];
      if (isContainer(entry)) yield* this.node(entry, true, false);
      else yield* this.leaf(entry, false);
      if (this.full()) yield;
    }
    this.popIndent();
  }

  /** A value that is not an object or array, as a scalar. */
  private leaf(value: unknown, simpleKey: boolean): Steps<void> {
    if (typeof value === 'string') return this.scalar(value, simpleKey, true);
    return this.scalar(value === null || value === undefined ? 'null' : typeof value === 'number' ? goYamlNumber(value) : String(value), simpleKey, false);
  }

  /** Throws the error sigs.k8s.io/yaml gives for the document (a string in it fails to go through JSON). */
  private fail(): never {
    throw goYamlJsonError(this.root) ?? new Error('go-yaml: no error found for a string that fails');
  }

  /** The end of the document: a line break unless the last scalar ended with one. */
  end(): void {
    this.indent = -1;
    this.writeIndent();
  }

  /**
   * A scalar; `isString` for string values (non-strings are always written plain). A string
   * longer than SCALAR_STEP is analysed and written in several steps, with a pause (a yield)
   * between two.
   */
  private *scalar(text: string, simpleKey: boolean, isString: boolean): Steps<void> {
    let value = text;
    let scan = yield* analyse(value);
    if (isString && scan.throughJsonChanged) {
      // Rare: a NEL or a character go-yaml refuses. The string as go-yaml reads it, analysed again.
      if (failsInJson(text, false)) this.fail();
      value = goYamlJsonString(text);
      scan = yield* analyse(value);
    }
    const analysis = scan.result();
    let style: Style = 'plain';
    if (isString && analysis.lineFeed) style = 'literal';
    else if (isString && (resolvesToNonString(value) || isBase60Float(value))) style = 'double';
    if (simpleKey && analysis.multiline) style = 'double';
    if (style === 'plain') {
      if (!analysis.blockPlainAllowed) style = 'single';
      if (value.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    const state: WriteState = { allowBreaks: !simpleKey, spaces: false, breaks: style === 'literal', bomFirst: value.charCodeAt(0) === 0xfeff };
    this.open(style, value);
    for (let from = 0; from < value.length; ) {
      const to = stepEnd(value, from);
      if (style === 'plain') this.plain(value, from, to, state);
      else if (style === 'single') this.singleQuoted(value, from, to, state);
      else if (style === 'literal') this.literal(value, from, to, state);
      else this.doubleQuoted(value, from, to, state);
      from = to;
      if (from < value.length) {
        this.flush();
        yield;
      }
    }
    this.close(style);
    this.popIndent();
  }

  /** What comes before a scalar's text in `style`: a separating space, a quote, a literal block's header. */
  private open(style: Style, value: string): void {
    if (style === 'plain') {
      if (!this.whitespace) this.put(' ');
    } else if (style === 'single') this.indicator("'", true, false, false);
    else if (style === 'double') this.indicator('"', true, false, false);
    else {
      // `|` with go-yaml's hints: `2` when the text starts with a space or a break, `-` strip / `+` keep.
      this.indicator('|', true, false, false);
      if (value.charCodeAt(0) === 0x20 || isBreak(value.charCodeAt(0))) this.indicator(String(BEST_INDENT), false, false, false);
      const last = value.length - 1;
      const chomp = !isBreak(value.charCodeAt(last)) ? '-' : last === 0 || isBreak(value.charCodeAt(last - 1)) ? '+' : '';
      if (chomp !== '') this.indicator(chomp, false, false, false);
      this.newline();
      this.indention = true;
      this.whitespace = true;
    }
  }

  /** What comes after a scalar's text in `style`. */
  private close(style: Style): void {
    if (style === 'plain') {
      this.whitespace = false;
      this.indention = false;
    } else if (style === 'single') this.indicator("'", false, false, false);
    else if (style === 'double') this.indicator('"', false, false, false);
  }

  /**
   * The writers of the four styles: each writes the characters of `value` that start in
   * [from, to), continuing `state`. Characters written as they are go out as slices of
   * `value` (`copy`). Plain, single-quoted and literal text holds printable characters only,
   * none past U+FFFF (those are escaped, in double quotes): there a code unit is a column.
   */
  private plain(value: string, from: number, to: number, state: WriteState): void {
    let run = from;
    for (let i = from; i < to; ) {
      const c = value.charCodeAt(i);
      if (c === 0x20) {
        run = this.space(value, i, run, state, true);
        i++;
      } else {
        const start = i;
        while (i < to && value.charCodeAt(i) !== 0x20) i++;
        this.column += i - start;
        this.indention = false;
        state.spaces = false;
      }
    }
    this.copy(value, run, to);
  }

  /**
   * A space of plain or single-quoted text at `i`: past the best width, where the line may fold
   * (`foldable`, after a non-space, before a non-space), the line breaks there instead of the
   * space. Returns where the next run of text to copy starts.
   */
  private space(value: string, i: number, run: number, state: WriteState, foldable: boolean): number {
    let next = run;
    if (foldable && state.allowBreaks && !state.spaces && this.column > BEST_WIDTH && value.charCodeAt(i + 1) !== 0x20) {
      this.copy(value, run, i);
      this.writeIndent();
      next = i + 1;
    } else this.column++;
    state.spaces = true;
    return next;
  }

  /** A line break of single-quoted or literal text is written (or goes out with the run): a line starts. */
  private lineBroken(state: WriteState): void {
    this.column = 0;
    this.indention = true;
    state.breaks = true;
  }

  /**
   * The first character after line breaks, at `i`: the run so far is written and the new line
   * indented before it. Returns where the next run of text to copy starts.
   */
  private indentAfterBreaks(value: string, i: number, run: number, state: WriteState): number {
    if (!state.breaks) return run;
    this.copy(value, run, i);
    this.writeIndent();
    state.breaks = false;
    return i;
  }

  private singleQuoted(value: string, from: number, to: number, state: WriteState): void {
    let run = from;
    for (let i = from; i < to; ) {
      const c = value.charCodeAt(i);
      if (c === 0x20) {
        run = this.space(value, i, run, state, i > 0 && i < value.length - 1);
        i++;
      } else if (isBreak(c)) {
        // A line break (U+2028, U+2029: a line feed takes another style) is written as it is
        // and starts a line; the next character other than a space or break is indented.
        if (c === 0x0a) {
          this.copy(value, run, i);
          if (!state.breaks) this.newline();
          this.newline();
          run = i + 1;
        }
        this.lineBroken(state);
        i++;
      } else {
        run = this.indentAfterBreaks(value, i, run, state);
        if (c === 0x27) {
          // A quote is written twice: this one now, the character itself with the run.
          this.copy(value, run, i + 1);
          run = i;
          this.column += 2;
          i++;
        } else {
          const start = i;
          while (i < to && value.charCodeAt(i) !== 0x20 && value.charCodeAt(i) !== 0x27 && !isBreak(value.charCodeAt(i))) i++;
          this.column += i - start;
        }
        this.indention = false;
        state.spaces = false;
      }
    }
    this.copy(value, run, to);
  }

  private literal(value: string, from: number, to: number, state: WriteState): void {
    let run = from;
    for (let i = from; i < to; ) {
      const c = value.charCodeAt(i);
      if (isBreak(c)) {
        // The break goes out with the run, as it is: a new line.
        this.lineBroken(state);
        i++;
      } else {
        run = this.indentAfterBreaks(value, i, run, state);
        const start = i;
        while (i < to && !isBreak(value.charCodeAt(i))) i++;
        this.column += i - start;
        this.indention = false;
      }
    }
    this.copy(value, run, to);
  }

  private doubleQuoted(value: string, from: number, to: number, state: WriteState): void {
    let run = from;
    for (let i = from; i < to; ) {
      if (isVerbatim(value.charCodeAt(i)) && !state.bomFirst) {
        const start = i;
        while (i < to && isVerbatim(value.charCodeAt(i))) i++;
        this.column += i - start;
        state.spaces = false;
        continue;
      }
      const unit = value.charCodeAt(i);
      const width = charWidth(value, i, unit);
      const c = codePoint(value, i, unit, width);
      if (state.bomFirst || !isPrintable(c) || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.copy(value, run, i);
        this.put(doubleEscape(c));
        run = i + width;
        state.spaces = false;
      } else if (c === 0x20) {
        if (state.allowBreaks && !state.spaces && this.column > BEST_WIDTH && i > 0 && i < value.length - 1) {
          this.copy(value, run, i);
          this.writeIndent();
          if (value.charCodeAt(i + 1) === 0x20) this.put('\\');
          run = i + 1;
        } else this.column++;
        state.spaces = true;
      } else {
        this.column++;
        state.spaces = false;
      }
      i += width;
    }
    this.copy(value, run, to);
  }
}

/**
 * `value` (a JSON value) as kube-apiserver's YAML: what sigs.k8s.io/yaml's Marshal gives, ending
 * in a newline. Throws the 500 StatusError kube answers where Marshal fails (a string go-yaml
 * cannot read back from the JSON: see goYamlJsonError).
 */
export function goYamlMarshal(value: unknown): string {
  return goYamlChunks(value, runSteps).join('');
}

/** The emitter's steps for `value`, ending with the document's end; its output is `emitter.chunks`. */
function* document(emitter: Emitter, value: unknown): Steps<void> {
  yield* emitter.node(value, false, false);
  emitter.end();
  emitter.flush();
}

function goYamlChunks(value: unknown, run: (steps: Steps<void>) => void): string[] {
  const emitter = new Emitter(value);
  run(document(emitter, value));
  return emitter.chunks;
}

/**
 * goYamlMarshal's text in chunks (of some 16,000 characters or more; a long string's of some
 * 64 Ki), written in steps that leave the event loop to others once it has run a slice
 * (`yieldBeforeLongStep`): a large list's YAML, or a string of megabytes, never holds the
 * loop for longer than a slice plus one step (a chunk, or 64 Ki code units of one string).
 * The chunks joined are goYamlMarshal's text, byte for byte.
 */
export async function goYamlMarshalSliced(value: unknown): Promise<string[]> {
  const emitter = new Emitter(value);
  const steps = document(emitter, value);
  for (;;) {
    if (steps.next().done === true) return emitter.chunks;
    const later = yieldBeforeLongStep();
    if (later !== undefined) await later;
  }
}
