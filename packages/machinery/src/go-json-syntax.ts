/**
 * Go's encoding/json syntax errors, for text that JavaScript's JSON.parse refused: kube's
 * decoders check a whole JSON document with Go's scanner before decoding it, and clients see
 * the scanner's first error (`invalid character '}' after object key`, `unexpected end of JSON
 * input`). This is a byte-for-byte port of the scanner's states and texts (not of its code),
 * used only on the error path, so it favours clarity over speed.
 */

/** Go's quoteChar: a byte of a JSON syntax error as its scanner prints it (`'x'`, `'\\x01'`, `'\\u0081'`). */
export function goQuoteByte(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const escapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (escapes[c] !== undefined) return `'${escapes[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** Go's scanner refuses documents nested deeper than this. */
const MAX_DEPTH = 10_000;

const enum Frame {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

type State =
  | 'beginValueOrEmpty' | 'beginValue' | 'beginStringOrEmpty' | 'beginString' | 'endValue' | 'endTop'
  | 'inString' | 'inStringEsc' | 'inStringEscU' | 'inStringEscU1' | 'inStringEscU12' | 'inStringEscU123'
  | 'neg' | 'one' | 'zero' | 'dot' | 'dot0' | 'e' | 'eSign' | 'e0'
  | 't' | 'tr' | 'tru' | 'f' | 'fa' | 'fal' | 'fals' | 'n' | 'nu' | 'nul';

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** The letters still expected after each literal state, and the literal's name. */
const LITERALS: Partial<Record<State, { expect: number; next: State; literal: string }>> = {
  t: { expect: 0x72, next: 'tr', literal: 'true' },
  tr: { expect: 0x75, next: 'tru', literal: 'true' },
  tru: { expect: 0x65, next: 'endValue', literal: 'true' },
  f: { expect: 0x61, next: 'fa', literal: 'false' },
  fa: { expect: 0x6c, next: 'fal', literal: 'false' },
  fal: { expect: 0x73, next: 'fals', literal: 'false' },
  fals: { expect: 0x65, next: 'endValue', literal: 'false' },
  n: { expect: 0x75, next: 'nu', literal: 'null' },
  nu: { expect: 0x6c, next: 'nul', literal: 'null' },
  nul: { expect: 0x6c, next: 'endValue', literal: 'null' },
};

class SyntaxFailure {
  constructor(readonly message: string) {}
}

/**
 * The text of the first syntax error Go's encoding/json finds in `data` (what json.Unmarshal
 * and json.Valid refuse), or undefined when `data` is one valid JSON value.
 */
export function goJsonSyntaxError(data: Buffer | string): string | undefined {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const stack: Frame[] = [];
  let state: State = 'beginValue';
  const fail = (c: number, context: string): never => {
    throw new SyntaxFailure(`invalid character ${goQuoteByte(c)} ${context}`);
  };
  const push = (c: number, frame: Frame): void => {
    stack.push(frame);
    if (stack.length > MAX_DEPTH) fail(c, 'exceeded max depth');
  };

  const pop = (): State => {
    stack.pop();
    return stack.length === 0 ? 'endTop' : 'endValue';
  };

  // One step of the scanner: the state after byte `c` in `state` (states that only look at
  // `c` to decide where the value ended hand `c` on to the next state, as Go's do).
  const step = (s: State, c: number): State => {
    switch (s) {
      case 'beginValueOrEmpty':
        if (isSpace(c)) return s;
        if (c === 0x5d) return step('endValue', c);
        return step('beginValue', c);
      case 'beginValue':
        if (isSpace(c)) return s;
        switch (c) {
          case 0x7b: push(c, Frame.ObjectKey); return 'beginStringOrEmpty';
          case 0x5b: push(c, Frame.ArrayValue); return 'beginValueOrEmpty';
          case 0x22: return 'inString';
          case 0x2d: return 'neg';
          case 0x30: return 'zero';
          case 0x74: return 't';
          case 0x66: return 'f';
          case 0x6e: return 'n';
        }
        if (c >= 0x31 && c <= 0x39) return 'one';
        return fail(c, 'looking for beginning of value');
      case 'beginStringOrEmpty':
        if (isSpace(c)) return s;
        if (c === 0x7d) {
          stack[stack.length - 1] = Frame.ObjectValue;
          return step('endValue', c);
        }
        return step('beginString', c);
      case 'beginString':
        if (isSpace(c)) return s;
        if (c === 0x22) return 'inString';
        return fail(c, 'looking for beginning of object key string');
      case 'endValue': {
        if (stack.length === 0) return step('endTop', c);
        if (isSpace(c)) return s;
        const top = stack[stack.length - 1]!;
        if (top === Frame.ObjectKey) {
          if (c === 0x3a) {
            stack[stack.length - 1] = Frame.ObjectValue;
            return 'beginValue';
          }
          return fail(c, 'after object key');
        }
        if (top === Frame.ObjectValue) {
          if (c === 0x2c) {
            stack[stack.length - 1] = Frame.ObjectKey;
            return 'beginString';
          }
          if (c === 0x7d) return pop();
          return fail(c, 'after object key:value pair');
        }
        if (c === 0x2c) return 'beginValue';
        if (c === 0x5d) return pop();
        return fail(c, 'after array element');
      }
      case 'endTop':
        if (!isSpace(c)) fail(c, 'after top-level value');
        return s;
      case 'inString':
        if (c === 0x22) return 'endValue';
        if (c === 0x5c) return 'inStringEsc';
        if (c < 0x20) fail(c, 'in string literal');
        return s;
      case 'inStringEsc':
        if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) return 'inString';
        if (c === 0x75) return 'inStringEscU';
        return fail(c, 'in string escape code');
      case 'inStringEscU':
      case 'inStringEscU1':
      case 'inStringEscU12':
      case 'inStringEscU123': {
        if (!isHex(c)) fail(c, 'in \\u hexadecimal character escape');
        const next: Record<string, State> = { inStringEscU: 'inStringEscU1', inStringEscU1: 'inStringEscU12', inStringEscU12: 'inStringEscU123', inStringEscU123: 'inString' };
        return next[s]!;
      }
      case 'neg':
        if (c === 0x30) return 'zero';
        if (c >= 0x31 && c <= 0x39) return 'one';
        return fail(c, 'in numeric literal');
      case 'one':
        if (isDigit(c)) return s;
        return step('zero', c);
      case 'zero':
        if (c === 0x2e) return 'dot';
        if (c === 0x65 || c === 0x45) return 'e';
        return step('endValue', c);
      case 'dot':
        if (isDigit(c)) return 'dot0';
        return fail(c, 'after decimal point in numeric literal');
      case 'dot0':
        if (isDigit(c)) return s;
        if (c === 0x65 || c === 0x45) return 'e';
        return step('endValue', c);
      case 'e':
        if (c === 0x2b || c === 0x2d) return 'eSign';
        return step('eSign', c);
      case 'eSign':
        if (isDigit(c)) return 'e0';
        return fail(c, 'in exponent of numeric literal');
      case 'e0':
        if (isDigit(c)) return s;
        return step('endValue', c);
      default: {
        const literal = LITERALS[s]!;
        if (c === literal.expect) return literal.next;
        return fail(c, `in literal ${literal.literal} (expecting ${goQuoteByte(literal.expect)})`);
      }
    }
  };

  try {
    for (const c of bytes) state = step(state, c);
    // At the end a number may still be open: a space ends it, as Go's scanner does.
    if (state !== 'endTop') state = step(state, 0x20);
    return state === 'endTop' ? undefined : 'unexpected end of JSON input';
  } catch (err) {
    if (err instanceof SyntaxFailure) return err.message;
    throw err;
  }
}
