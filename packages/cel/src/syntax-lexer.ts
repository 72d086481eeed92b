/**
 * CEL's tokens as cel-go's lexer cuts them, for reporting syntax errors in cel-go's words.
 * Longest match wins; where no token can be completed the lexer reports a "token recognition
 * error" covering the text up to and including the character it stopped at, skips that
 * character, and goes on (as an ANTLR lexer does).
 */

/** Token kinds, in the order of cel-go's token vocabulary (expected-token sets are listed in this order). */
export const TOKEN_KINDS = [
  '==', '!=', 'in', '<', '<=', '>=', '>', '&&', '||', '[', ']', '{', '}', '(', ')', '.', ',', '-', '!', '?', ':',
  '+', '*', '/', '%', 'true', 'false', 'null', 'NUM_FLOAT', 'NUM_INT', 'NUM_UINT', 'STRING', 'BYTES', 'IDENTIFIER', 'EOF',
] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

const SYMBOLIC = new Set<TokenKind>(['NUM_FLOAT', 'NUM_INT', 'NUM_UINT', 'STRING', 'BYTES', 'IDENTIFIER']);

/** How cel-go names a token kind in "expecting ..." (literal tokens quoted). */
export function kindDisplay(kind: TokenKind): string {
  if (kind === 'EOF') return '<EOF>';
  return SYMBOLIC.has(kind) ? kind : `'${kind}'`;
}

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** UTF-16 offsets into the expression. */
  readonly start: number;
  readonly end: number;
}

export interface LexError {
  readonly offset: number;
  readonly message: string;
}

const OPERATORS: readonly string[] = [
  '==', '!=', '<=', '>=', '&&', '||', '<', '>', '[', ']', '{', '}', '(', ')', '.', ',', '-', '!', '?', ':', '+', '*', '/', '%',
];
const KEYWORDS = new Set(['in', 'true', 'false', 'null']);

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isLetter = (c: string | undefined) => c !== undefined && /^[A-Za-z_]$/.test(c);
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f';

/** A token's text as ANTLR shows it in a message: control characters escaped. */
export function displayText(text: string): string {
  return text.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
}

/** Either the end of a completed match or the index of the character it could not take. */
type Scan = { readonly end: number } | { readonly failAt: number };

function scanNumber(s: string, p: number): { end: number; kind: TokenKind } {
  if (s[p] === '0' && (s[p + 1] === 'x' || s[p + 1] === 'X') && isHex(s[p + 2])) {
    let i = p + 2;
    while (isHex(s[i])) i++;
    if (s[i] === 'u' || s[i] === 'U') return { end: i + 1, kind: 'NUM_UINT' };
    return { end: i, kind: 'NUM_INT' };
  }
  let i = p;
  while (isDigit(s[i])) i++;
  let float = false;
  if (s[i] === '.' && isDigit(s[i + 1])) {
    i++;
    while (isDigit(s[i])) i++;
    float = true;
  }
  if (s[i] === 'e' || s[i] === 'E') {
    let j = i + 1;
    if (s[j] === '+' || s[j] === '-') j++;
    if (isDigit(s[j])) {
      while (isDigit(s[j])) j++;
      return { end: j, kind: 'NUM_FLOAT' };
    }
  }
  if (float) return { end: i, kind: 'NUM_FLOAT' };
  if (s[i] === 'u' || s[i] === 'U') return { end: i + 1, kind: 'NUM_UINT' };
  return { end: i, kind: 'NUM_INT' };
}

/** One escape sequence at s[p] === '\\': its end, or where it breaks. */
function scanEscape(s: string, p: number): Scan {
  const c = s[p + 1];
  if (c === undefined) return { failAt: p + 1 };
  if ('abfnrtv"\'\\?`'.includes(c)) return { end: p + 2 };
  const hexRun = (from: number, n: number): Scan => {
    for (let i = 0; i < n; i++) if (!isHex(s[from + i])) return { failAt: from + i };
    return { end: from + n };
  };
  if (c === 'x' || c === 'X') return hexRun(p + 2, 2);
  if (c === 'u') return hexRun(p + 2, 4);
  if (c === 'U') return hexRun(p + 2, 8);
  if (c >= '0' && c <= '3') {
    for (let i = 2; i <= 3; i++) if (!(s[p + i]! >= '0' && s[p + i]! <= '7')) return { failAt: p + i };
    return { end: p + 4 };
  }
  return { failAt: p + 1 };
}

/** A quoted string body from s[p] (the opening quote), raw or not, single or triple quoted. */
function scanQuoted(s: string, p: number, raw: boolean): Scan {
  const q = s[p]!;
  const triple = s[p + 1] === q && s[p + 2] === q;
  if (triple) {
    let i = p + 3;
    for (;;) {
      if (i >= s.length) break;
      if (s[i] === q && s[i + 1] === q && s[i + 2] === q) return { end: i + 3 };
      if (!raw && s[i] === '\\') {
        const e = scanEscape(s, i);
        if ('failAt' in e) break;
        i = e.end;
      } else i++;
    }
    // An unterminated (or broken) triple quote falls back to the empty string its first two quotes make.
    return { end: p + 2 };
  }
  let i = p + 1;
  for (;;) {
    const c = s[i];
    if (c === undefined || c === '\n' || c === '\r') return { failAt: i };
    if (c === q) return { end: i + 1 };
    if (!raw && c === '\\') {
      const e = scanEscape(s, i);
      if ('failAt' in e) return e;
      i = e.end;
    } else i++;
  }
}

/** A string or bytes literal with its prefix (r, b, br, rb...) at s[p], if it starts one there. */
function scanStringLiteral(s: string, p: number): { scan: Scan; kind: TokenKind } | undefined {
  let i = p;
  let bytes = false;
  let raw = false;
  if (s[i] === 'b' || s[i] === 'B') { bytes = true; i++; }
  if (s[i] === 'r' || s[i] === 'R') { raw = true; i++; }
  if (s[i] !== '"' && s[i] !== "'") return undefined;
  return { scan: scanQuoted(s, i, raw), kind: bytes ? 'BYTES' : 'STRING' };
}

/** Cuts `s` into tokens (without whitespace and comments), ending with EOF. */
export function tokenize(s: string): { tokens: Token[]; errors: LexError[] } {
  const tokens: Token[] = [];
  const errors: LexError[] = [];
  let p = 0;
  const fail = (start: number, failAt: number) => {
    errors.push({ offset: start, message: `token recognition error at: '${displayText(s.slice(start, Math.min(failAt + 1, s.length)))}'` });
    p = failAt < s.length ? failAt + 1 : s.length;
  };
  while (p < s.length) {
    const c = s[p]!;
    if (isSpace(c)) { p++; continue; }
    if (c === '/' && s[p + 1] === '/') {
      while (p < s.length && s[p] !== '\n') p++;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(s[p + 1]))) {
      const n = scanNumber(s, p);
      tokens.push({ kind: n.kind, text: s.slice(p, n.end), start: p, end: n.end });
      p = n.end;
      continue;
    }
    const str = scanStringLiteral(s, p);
    if (str) {
      if ('end' in str.scan) {
        tokens.push({ kind: str.kind, text: s.slice(p, str.scan.end), start: p, end: str.scan.end });
        p = str.scan.end;
        continue;
      }
      // A failed prefixed literal still leaves its prefix as an identifier (the lexer's last accept).
      if (s[p] !== '"' && s[p] !== "'") {
        let end = p;
        while (isLetter(s[end]) || isDigit(s[end])) end++;
        tokens.push({ kind: 'IDENTIFIER', text: s.slice(p, end), start: p, end });
        p = end;
        continue;
      }
      fail(p, str.scan.failAt);
      continue;
    }
    if (isLetter(c)) {
      let end = p + 1;
      while (isLetter(s[end]) || isDigit(s[end])) end++;
      const text = s.slice(p, end);
      tokens.push({ kind: KEYWORDS.has(text) ? (text as TokenKind) : 'IDENTIFIER', text, start: p, end });
      p = end;
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, p));
    if (op) {
      tokens.push({ kind: op as TokenKind, text: op, start: p, end: p + op.length });
      p += op.length;
      continue;
    }
    // '=', '&' and '|' only start two-character operators: the error takes the next character too.
    fail(p, c === '=' || c === '&' || c === '|' ? p + 1 : p);
  }
  tokens.push({ kind: 'EOF', text: '<EOF>', start: s.length, end: s.length });
  return { tokens, errors };
}
