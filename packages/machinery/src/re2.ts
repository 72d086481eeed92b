/**
 * RE2 syntax (Go's regexp/syntax: what kube uses for schema `pattern`s and CEL regexes) translated to a JavaScript RegExp
 * source with the `u` flag. RE2's inline flags apply from where they appear to the end of the
 * enclosing group (`(?i)`, `(?s)`, `(?m)`, `(?U)`, clearing with `-`, and scoped groups
 * `(?i:…)`); JavaScript (Node 20) has no inline flags, so their effect is written out per
 * atom: `i` as both cases of each letter, `s`/`m` as explicit `.`, `^` and `$` forms, `U` as
 * swapped greediness. What RE2 refuses (backreferences, lookaround, possessive or nested
 * repetition, repeat counts over 1000) is refused with Go's error text.
 */

export class Re2Error extends Error {}

interface Flags { i: boolean; m: boolean; s: boolean; U: boolean }

const fail = (code: string, expr: string): never => {
  throw new Re2Error(`error parsing regexp: ${code}: \`${expr}\``);
};

const SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9', graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};
const SPACE = '\\t\\n\\f\\r ';

function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** A code point as a JavaScript class member or literal (escaped where needed). */
function lit(cp: number, inClass: boolean): string {
  const c = String.fromCodePoint(cp);
  if (cp < 0x20 || cp === 0x7f) return hex(cp);
  if (inClass) return '\\]['.includes(c) || c === '-' || c === '^' ? `\\${c}` : c;
  return SYNTAX.has(c) ? `\\${c}` : c;
}

function caseVariants(cp: number): number[] {
  const c = String.fromCodePoint(cp);
  const out = new Set<number>([cp]);
  for (const v of [c.toLowerCase(), c.toUpperCase()]) if ([...v].length === 1) out.add(v.codePointAt(0)!);
  return [...out];
}

/** Extra ranges so that [lo-hi] also matches the other case of its ASCII letters. */
function foldRange(lo: number, hi: number): string {
  let out = '';
  const add = (a: number, b: number, shift: number) => {
    const l = Math.max(lo, a), h = Math.min(hi, b);
    if (l <= h) out += `${lit(l + shift, true)}-${lit(h + shift, true)}`;
  };
  add(0x61, 0x7a, -32);
  add(0x41, 0x5a, 32);
  return out;
}

export function translateRe2(pattern: string): string {
  const cps = [...pattern];
  const n = cps.length;
  let pos = 0;
  let out = '';
  let flags: Flags = { i: false, m: false, s: false, U: false };
  const stack: Flags[] = [];
  let canRepeat = false; // whether the last thing emitted is an atom a quantifier may follow
  let lastRepeat = -1;
  const rest = (from: number) => cps.slice(from).join('');

  const literal = (cp: number) => {
    const vs = flags.i ? caseVariants(cp) : [cp];
    out += vs.length > 1 ? `[${vs.map((v) => lit(v, true)).join('')}]` : lit(cp, false);
  };

  /** Parses an escape at pos (the backslash); returns a class member/atom text, or a code point. */
  const escape = (inClass: boolean): string | number => {
    const start = pos;
    const c = cps[pos + 1];
    if (c === undefined) fail('trailing backslash at end of expression', '');
    pos += 2;
    switch (c) {
      case 'd': case 'D': case 'w': case 'W': return `\\${c}`;
      case 's': return inClass ? SPACE : `[${SPACE}]`;
      case 'S': return `[^${SPACE}]`;
      case 'a': return 7;
      case 'f': return 12;
      case 't': return 9;
      case 'n': return 10;
      case 'r': return 13;
      case 'v': return 11;
      case 'p': case 'P': {
        let name: string;
        if (cps[pos] === '{') {
          const close = cps.indexOf('}', pos);
          if (close < 0) return fail('invalid character class range', rest(start));
          name = cps.slice(pos + 1, close).join('');
          pos = close + 1;
        } else {
          name = cps[pos] ?? '';
          pos += 1;
        }
        let neg = c === 'P';
        if (name.startsWith('^')) { neg = !neg; name = name.slice(1); }
        if (name === 'Any') return neg ? '[^\\s\\S]' : '[\\s\\S]';
        const prop = name.length <= 2 ? name : `Script=${name}`;
        try { new RegExp(`\\p{${prop}}`, 'u'); } catch { fail('invalid character class range', cps.slice(start, pos).join('')); }
        return `\\${neg ? 'P' : 'p'}{${prop}}`;
      }
      case 'x': {
        if (cps[pos] === '{') {
          const close = cps.indexOf('}', pos);
          const h = close < 0 ? '' : cps.slice(pos + 1, close).join('');
          if (!/^[0-9a-fA-F]+$/.test(h) || parseInt(h, 16) > 0x10ffff) fail('invalid escape sequence', cps.slice(start, close < 0 ? n : close + 1).join(''));
          pos = close + 1;
          return parseInt(h, 16);
        }
        const h = cps.slice(pos, pos + 2).join('');
        if (!/^[0-9a-fA-F]{2}$/.test(h)) fail('invalid escape sequence', cps.slice(start, pos + 2).join(''));
        pos += 2;
        return parseInt(h, 16);
      }
      default:
        break;
    }
    if (!inClass) {
      if (c === 'b' || c === 'B') return `\\${c}`;
      if (c === 'A') return '^';
      if (c === 'z') return '$';
    }
    if (c! >= '0' && c! <= '7') {
      // \1-\7 alone are backreferences, which RE2 lacks; with more octal digits they are octal
      if (c !== '0' && !(cps[pos] !== undefined && cps[pos]! >= '0' && cps[pos]! <= '7')) fail('invalid escape sequence', `\\${c}`);
      let v = c!.charCodeAt(0) - 48;
      for (let k = 0; k < 2 && cps[pos] !== undefined && cps[pos]! >= '0' && cps[pos]! <= '7'; k++) v = v * 8 + cps[pos++]!.charCodeAt(0) - 48;
      return v;
    }
    const cp = c!.codePointAt(0)!;
    if (cp < 0x80 && !/[0-9A-Za-z]/.test(c!)) return cp;
    return fail('invalid escape sequence', `\\${c}`);
  };

  const charClass = () => {
    const start = pos;
    pos++;
    let body = '';
    let neg = false;
    if (cps[pos] === '^') { neg = true; pos++; }
    let first = true;
    const single = (): number | string | undefined => {
      if (cps[pos] === '\\') return escape(true);
      return cps[pos++]!.codePointAt(0)!;
    };
    for (;;) {
      if (pos >= n) fail('missing closing ]', rest(start));
      if (cps[pos] === ']' && !first) { pos++; break; }
      first = false;
      if (cps[pos] === '[' && cps[pos + 1] === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(rest(pos));
        if (m) {
          const set = POSIX[m[2]!];
          if (!set) fail('invalid character class range', m[0]);
          if (m[1]) fail('invalid character class range', m[0]); // negated POSIX classes: not translated
          body += set!;
          pos += m[0].length;
          continue;
        }
      }
      const itemStart = pos;
      const lo = single();
      if (typeof lo === 'string') { body += lo; continue; }
      if (cps[pos] === '-' && cps[pos + 1] !== ']' && pos + 1 < n) {
        pos++;
        const hi = single();
        if (typeof hi === 'string' || hi! < lo!) fail('invalid character class range', cps.slice(itemStart, pos).join(''));
        body += `${lit(lo!, true)}-${lit(hi as number, true)}`;
        if (flags.i) body += foldRange(lo!, hi as number);
        continue;
      }
      for (const v of flags.i ? caseVariants(lo!) : [lo!]) body += lit(v, true);
    }
    out += `[${neg ? '^' : ''}${body}]`;
  };

  const repeat = (q: string, from: number) => {
    if (!canRepeat) {
      if (lastRepeat >= 0 && lastRepeat === out.length) fail('invalid nested repetition operator', cps.slice(from - 1, pos).join(''));
      fail('missing argument to repetition operator', cps.slice(from, pos).join(''));
    }
    let lazy = false;
    if (cps[pos] === '?') { lazy = true; pos++; }
    if (flags.U) lazy = !lazy;
    out += q + (lazy ? '?' : '');
    // RE2 refuses a repetition of a repetition (`a**`, `a++`)
    const next = cps[pos];
    if (next === '*' || next === '+' || next === '?' || (next === '{' && /^\{\d+(,\d*)?\}/.test(rest(pos)))) {
      const m = /^(\*|\+|\?|\{\d+(?:,\d*)?\})/.exec(rest(pos))!;
      fail('invalid nested repetition operator', cps.slice(from, pos).join('') + m[1]!);
    }
    canRepeat = false;
    lastRepeat = out.length;
  };

  while (pos < n) {
    const c = cps[pos]!;
    const from = pos;
    switch (c) {
      case '\\': {
        if (cps[pos + 1] === 'Q') {
          pos += 2;
          const end = rest(pos).indexOf('\\E');
          const text = end < 0 ? rest(pos) : rest(pos).slice(0, end);
          for (const ch of text) literal(ch.codePointAt(0)!);
          pos += [...text].length + (end < 0 ? 0 : 2);
          canRepeat = text.length > 0;
          break;
        }
        const e = escape(false);
        if (typeof e === 'number') literal(e);
        else out += e;
        canRepeat = !(e === '^' || e === '$' || e === '\\b' || e === '\\B');
        break;
      }
      case '[':
        charClass();
        canRepeat = true;
        break;
      case '(': {
        if (cps[pos + 1] !== '?') {
          stack.push(flags);
          flags = { ...flags };
          out += '(';
          pos++;
          canRepeat = false;
          break;
        }
        const r = rest(pos);
        const named = /^\(\?P?<([^>]*)>/.exec(r);
        if (r.startsWith('(?P<') || (r.startsWith('(?<') && !r.startsWith('(?<=') && !r.startsWith('(?<!'))) {
          if (!named) fail('invalid named capture', r);
          if (!/^[A-Za-z0-9_]+$/.test(named![1]!)) fail('invalid named capture', named![0]);
          stack.push(flags);
          flags = { ...flags };
          out += `(?<${named![1]!}>`;
          pos += [...named![0]].length;
          canRepeat = false;
          break;
        }
        if (r.startsWith('(?<')) fail('invalid named capture', r);
        const m = /^\(\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(r);
        if (!m || (m[2] !== undefined && m[2] === '') || (m[1] === '' && m[2] === undefined && m[3] === ')')) {
          fail('invalid or unsupported Perl syntax', r.slice(0, m ? m[0].length : Math.min(3, r.length)));
        }
        const next: Flags = { ...flags };
        for (const f of m![1]!) next[f as keyof Flags] = true;
        for (const f of m![2] ?? '') next[f as keyof Flags] = false;
        pos += m![0].length;
        if (m![3] === ')') {
          flags = next;
        } else {
          stack.push(flags);
          flags = next;
          out += '(?:';
          canRepeat = false;
        }
        break;
      }
      case ')':
        if (stack.length === 0) fail('unexpected )', pattern);
        flags = stack.pop()!;
        out += ')';
        pos++;
        canRepeat = true;
        break;
      case '|':
        out += '|';
        pos++;
        canRepeat = false;
        break;
      case '.':
        out += flags.s ? '[^]' : '[^\\n]';
        pos++;
        canRepeat = true;
        break;
      case '^':
        out += flags.m ? '(?:^|(?<=\\n))' : '^';
        pos++;
        canRepeat = false;
        break;
      case '$':
        out += flags.m ? '(?:$|(?=\\n))' : '$';
        pos++;
        canRepeat = false;
        break;
      case '*': case '+': case '?':
        pos++;
        repeat(c, from);
        break;
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(rest(pos));
        if (!m) {
          literal(0x7b);
          pos++;
          canRepeat = true;
          break;
        }
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        if (min > 1000 || max > 1000 || (max >= 0 && max < min)) fail('invalid repeat count', m[0]);
        pos += m[0].length;
        repeat(m[0], from);
        break;
      }
      default:
        literal(c.codePointAt(0)!);
        pos++;
        canRepeat = true;
    }
  }
  if (stack.length > 0) fail('missing closing )', pattern);
  return out;
}
