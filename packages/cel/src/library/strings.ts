/**
 * cel-go's strings extension at version 2 (what kube 1.32 enables), for the functions the
 * engine does not already have: charAt, replace, format, strings.quote. The engine provides
 * indexOf, lastIndexOf, lowerAscii, upperAscii, split, substring, trim and join.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

class StringsNamespace {}

function codePoints(s: string): string[] {
  return Array.from(s);
}

function replace(s: string, from: string, to: string, n: bigint): string {
  if (n === 0n) return s;
  if (n < 0n) return from === '' ? codePoints(s).join(to).replace(/^/, to) + (s === '' ? '' : to) : s.split(from).join(to);
  let out = '';
  let rest = s;
  let count = 0n;
  if (from === '') {
    const cps = codePoints(s);
    let i = 0;
    for (; i <= cps.length && count < n; i++, count++) out += to + (cps[i] ?? '');
    return out + cps.slice(i).join('');
  }
  while (count < n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    count++;
  }
  return out + rest;
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\x07': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\v': out += '\\v'; break;
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      default: out += ch;
    }
  }
  return out + '"';
}

function formatValue(v: unknown, verb: string, precision: number | undefined): string {
  switch (verb) {
    case 's': return stringOf(v);
    case 'd':
      if (typeof v === 'bigint') return v.toString();
      if (v instanceof UnsignedInt) return v.value.toString();
      throw new Error(`error during formatting: decimal clause can only be used on integers, was given ${typeName(v)}`);
    case 'f': case 'e': {
      const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v instanceof UnsignedInt ? Number(v.value) : NaN;
      if (Number.isNaN(n) && typeof v !== 'number') throw new Error(`error during formatting: fixed-point clause can only be used on doubles, was given ${typeName(v)}`);
      if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
      if (verb === 'f') return n.toFixed(precision ?? 6);
      const e = n.toExponential(precision ?? 6);
      return e.replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'b':
      if (typeof v === 'bigint') return v.toString(2);
      if (v instanceof UnsignedInt) return v.value.toString(2);
      if (typeof v === 'boolean') return v ? '1' : '0';
      throw new Error(`error during formatting: only integers and bools can be formatted as binary, was given ${typeName(v)}`);
    case 'o':
      if (typeof v === 'bigint') return v.toString(8);
      if (v instanceof UnsignedInt) return v.value.toString(8);
      throw new Error(`error during formatting: octal clause can only be used on integers, was given ${typeName(v)}`);
    case 'x': case 'X': {
      let out: string;
      if (typeof v === 'bigint') out = v < 0n ? '-' + (-v).toString(16) : v.toString(16);
      else if (v instanceof UnsignedInt) out = v.value.toString(16);
      else if (typeof v === 'string') out = Buffer.from(v).toString('hex');
      else if (v instanceof Uint8Array) out = Buffer.from(v).toString('hex');
      else throw new Error(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`);
      return verb === 'X' ? out.toUpperCase() : out;
    }
    default:
      throw new Error(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

function typeName(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (v instanceof UnsignedInt) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return 'dyn';
}

function stringOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : String(v);
  if (v === null) return 'null';
  if (v instanceof UnsignedInt) return v.value.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Duration) return `${Number(v.seconds) + v.nanos / 1e9}s`;
  if (Array.isArray(v)) return `[${v.map(stringOf).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${stringOf(k)}: ${stringOf(x)}`).join(', ')}}`;
  return String(v);
}

function format(s: string, args: readonly unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '%') { out += c; continue; }
    i++;
    if (s[i] === '%') { out += '%'; continue; }
    let precision: number | undefined;
    if (s[i] === '.') {
      let digits = '';
      i++;
      while (i < s.length && /[0-9]/.test(s[i]!)) digits += s[i++];
      precision = Number(digits);
    }
    const verb = s[i];
    if (verb === undefined) throw new Error('could not parse formatting clause: unexpected end of string');
    if (next >= args.length) throw new Error(`index ${next} out of range`);
    out += formatValue(args[next++], verb, precision);
  }
  return out;
}

export function installStrings(env: Environment): void {
  env.registerType('strings', StringsNamespace);
  env.registerConstant('strings', 'strings', new StringsNamespace());
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  env.registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => replace(s, a, b, n));
  env.registerFunction('string.format(list<dyn>): string', (s: string, args: unknown[]) => format(s, args));
  env.registerFunction('strings.quote(string): string', (_ns: unknown, s: string) => quote(s));
}
