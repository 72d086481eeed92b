/**
 * YAML exactly as kube-apiserver writes it: sigs.k8s.io/yaml turns the JSON into go-yaml v2
 * values and marshals them with go-yaml v2's emitter (a port of libyaml). This writes JSON
 * values the way that emitter does: block mappings with keys in go-yaml's "natural" order,
 * sequences under a key not indented, `{}`/`[]` for empty collections, each string in the
 * style the emitter picks (plain, single- or double-quoted, literal `|` for lines), lines folded at
 * spaces past column 80, YAML 1.1 look-alikes (`"true"`, `"123"`, timestamps) quoted, and
 * numbers as Go formats ints and float64s.
 */

import { runSteps, yieldBeforeLongStep, type Steps } from './time-slice.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
/** Keys longer than this (in UTF-8 bytes) are written as complex keys (`? key`). */
const MAX_SIMPLE_KEY_LENGTH = 128;

type Style = 'plain' | 'single' | 'double' | 'literal';

/** A string as the emitter sees it: its characters (code points) and each one's class. */
interface Analysis {
  readonly multiline: boolean;
  readonly flowPlainAllowed: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;
const isBreakChar = (c: string): boolean => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlankOrEnd = (c: string | undefined): boolean => c === undefined || c === ' ' || c === '\t' || isBreakChar(c) || c === '\0';

/** libyaml's is_printable, on a code point (go-yaml allows every printable Unicode character raw). */
function isPrintable(c: string): boolean {
  const code = c.codePointAt(0)!;
  if (code === 0x0a) return true;
  if (code >= 0x20 && code <= 0x7e) return true;
  if (code >= 0xa0 && code <= 0xd7ff) return true;
  if (code >= 0xe000 && code <= 0xfffd) return code !== 0xfeff;
  return false;
}

function analyze(chars: readonly string[]): Analysis {
  if (chars.length === 0) return { multiline: false, flowPlainAllowed: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  let flowIndicators = false;
  let blockIndicators = false;
  const text = chars.slice(0, 3).join('');
  if (text === '---' || text === '...') {
    flowIndicators = true;
    blockIndicators = true;
  }
  let precededByWhitespace = true;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const followedByWhitespace = i + 1 >= chars.length || chars[i + 1] === ' ' || chars[i + 1] === '\t' || isBreakChar(chars[i + 1]!);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) {
        flowIndicators = true;
        blockIndicators = true;
      } else if (c === '?' || c === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (c === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else if (',?[]{}'.includes(c)) {
      flowIndicators = true;
    } else if (c === ':') {
      flowIndicators = true;
      if (followedByWhitespace) blockIndicators = true;
    } else if (c === '#' && precededByWhitespace) {
      flowIndicators = true;
      blockIndicators = true;
    }
    if (!isPrintable(c)) specialCharacters = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreakChar(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankOrEnd(c);
  }
  let flowPlainAllowed = true;
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) flowPlainAllowed = blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) flowPlainAllowed = blockPlainAllowed = singleQuotedAllowed = false;
  if (spaceBreak || specialCharacters) flowPlainAllowed = blockPlainAllowed = singleQuotedAllowed = blockAllowed = false;
  if (lineBreaks) flowPlainAllowed = blockPlainAllowed = false;
  if (flowIndicators) flowPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, flowPlainAllowed, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
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
  if (first === '.') return GO_DOT_FLOAT.test(s);
  if (first !== '+' && first !== '-' && !(first >= '0' && first <= '9')) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  return GO_INT.test(plain) || YAML_FLOAT.test(plain) || /^-0[bB][01]+$/.test(plain);
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

const DOUBLE_ESCAPES: Record<string, string> = {
  '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\x0b': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e',
  '"': '"', '\\': '\\', '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P',
};

/** Pieces of output (characters, indicators) joined into one chunk at a time. */
const CHUNK_PIECES = 16 * 1024;

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

class Emitter {
  private readonly out: string[] = [];
  /** The output so far, in chunks (the pieces in `out` follow). */
  readonly chunks: string[] = [];
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
  }

  /** After a sequence item or a mapping entry: a chunk is full, a place to pause. */
  private full(): boolean {
    if (this.out.length < CHUNK_PIECES) return false;
    this.flush();
    return true;
  }

  private put(s: string): void {
    this.out.push(s);
    this.column += Array.from(s).length;
  }

  /** One character (a code point, as Array.from splits a string): one column. */
  private putChar(c: string): void {
    this.out.push(c);
    this.column++;
  }

  private newline(): void {
    this.out.push('\n');
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
   * (yields) after a sequence item or mapping entry that fills a chunk; a scalar is written whole.
   */
  *node(value: unknown, mappingContext: boolean, simpleKey: boolean): Generator<void, void, void> {
    if (!isContainer(value)) {
      this.leaf(value, simpleKey);
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
        else this.leaf(item, false);
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
      const simple = Buffer.byteLength(key) <= MAX_SIMPLE_KEY_LENGTH && !LINE_BREAK.test(key);
      if (simple) {
        this.scalar(key, true, true);
        this.indicator(':', false, false, false);
      } else {
        this.indicator('?', true, false, true);
        this.scalar(key, false, true);
        this.writeIndent();
        this.indicator(':', true, false, true);
      }
      const entry = (value as Record<string, unknown>)[key];
      if (isContainer(entry)) yield* this.node(entry, true, false);
      else this.leaf(entry, false);
      if (this.full()) yield;
    }
    this.popIndent();
  }

  /** A value that is not an object or array. */
  private leaf(value: unknown, simpleKey: boolean): void {
    if (typeof value === 'string') this.scalar(value, simpleKey, true);
    else this.scalar(value === null || value === undefined ? 'null' : typeof value === 'number' ? goYamlNumber(value) : String(value), simpleKey, false);
  }

  /** A scalar; `isString` for string values (non-strings are always written plain). */
  private scalar(value: string, simpleKey: boolean, isString: boolean): void {
    const chars = Array.from(value);
    const analysis = analyze(chars);
    let style: Style = 'plain';
    if (isString && value.includes('\n')) style = 'literal';
    else if (isString && (resolvesToNonString(value) || isBase60Float(value))) style = 'double';
    if (simpleKey && analysis.multiline) style = 'double';
    if (style === 'plain') {
      if (!analysis.blockPlainAllowed) style = 'single';
      if (chars.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    const breaks = !simpleKey;
    if (style === 'plain') this.plain(chars, breaks);
    else if (style === 'single') this.singleQuoted(chars, breaks);
    else if (style === 'literal') this.literal(chars);
    else this.doubleQuoted(chars, breaks);
    this.popIndent();
  }

  private plain(chars: readonly string[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') this.writeIndent();
        else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(chars: readonly string[], allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') this.writeIndent();
        else this.putChar(c);
        spaces = true;
      } else {
        if (c === "'") this.put("'");
        this.putChar(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.indicator("'", false, false, false);
  }

  /** `|` with go-yaml's hints: `2` when the text starts with a space or a break, `-` strip / `+` keep. */
  private literal(chars: readonly string[]): void {
    this.indicator('|', true, false, false);
    if (chars[0] === ' ' || isBreakChar(chars[0]!)) this.indicator(String(BEST_INDENT), false, false, false);
    const last = chars.length - 1;
    const chomp = !isBreakChar(chars[last]!) ? '-' : last === 0 || isBreakChar(chars[last - 1]!) ? '+' : '';
    if (chomp !== '') this.indicator(chomp, false, false, false);
    this.newline();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreakChar(c)) {
        if (c === '\n') this.newline();
        else {
          this.out.push(c);
          this.column = 0;
        }
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) {
          this.writeIndent();
          breaks = false;
        }
        this.putChar(c);
        this.indention = false;
      }
    }
  }

  /** The end of the document: a line break unless the last scalar ended with one. */
  end(): void {
    this.indent = -1;
    this.writeIndent();
  }

  private doubleQuoted(chars: readonly string[], allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (!isPrintable(c) || c === '\ufeff' || isBreakChar(c) || c === '"' || c === '\\') {
        const short = DOUBLE_ESCAPES[c];
        if (short !== undefined) this.put(`\\${short}`);
        else {
          const code = c.codePointAt(0)!;
          const [letter, width] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
          this.put(`\\${letter}${code.toString(16).toUpperCase().padStart(width, '0')}`);
        }
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
  }
}

/** `value` (a JSON value) as kube-apiserver's YAML: what sigs.k8s.io/yaml's Marshal gives, ending in a newline. */
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
  const emitter = new Emitter();
  run(document(emitter, value));
  return emitter.chunks;
}

/**
 * goYamlMarshal's text in chunks (of some 16,000 characters or more), written in steps that
 * leave the event loop to others once it has run a slice (`yieldBeforeLongStep`): a large
 * list's YAML never holds the loop for longer than a slice plus one chunk (or one scalar).
 * The chunks joined are goYamlMarshal's text, byte for byte.
 */
export async function goYamlMarshalSliced(value: unknown): Promise<string[]> {
  const emitter = new Emitter();
  const steps = document(emitter, value);
  for (;;) {
    if (steps.next().done === true) return emitter.chunks;
    const later = yieldBeforeLongStep();
    if (later !== undefined) await later;
  }
}
