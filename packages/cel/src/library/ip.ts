/**
 * kube's IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go), with Go
 * netip's parsing: dotted-quad IPv4 without leading zeros, IPv6 with `::` and an optional
 * trailing IPv4; IPv4-mapped IPv6 addresses and zones are refused, as kube does.
 */
import type { Environment } from '@marcbachmann/cel-js';

export class IP {
  constructor(readonly bytes: Uint8Array) {}
  get family(): 4 | 6 { return this.bytes.length === 4 ? 4 : 6; }
  equals(o: unknown): boolean { return o instanceof IP && Buffer.compare(this.bytes, o.bytes) === 0; }
  toString(): string { return formatIP(this.bytes); }
}

export class CIDR {
  constructor(readonly ip: IP, readonly prefix: number) {}
  equals(o: unknown): boolean { return o instanceof CIDR && o.prefix === this.prefix && this.ip.equals(o.ip); }
  toString(): string { return `${this.ip.toString()}/${this.prefix}`; }
  masked(): CIDR { return new CIDR(new IP(maskBytes(this.ip.bytes, this.prefix)), this.prefix); }
  contains(ip: IP): boolean {
    if (ip.family !== this.ip.family) return false;
    return Buffer.compare(maskBytes(ip.bytes, this.prefix), maskBytes(this.ip.bytes, this.prefix)) === 0;
  }
}

function maskBytes(b: Uint8Array, prefix: number): Uint8Array {
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    out[i] = b[i]! & (0xff << (8 - bits)) & 0xff;
  }
  return out;
}

function parseV4(s: string): Uint8Array | string {
  const parts = s.split('.');
  if (parts.length !== 4) return 'IPv4 address too short';
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^[0-9]{1,3}$/.test(p)) return 'unexpected character';
    if (p.length > 1 && p[0] === '0') return 'IPv4 field has octet with leading zero';
    const n = Number(p);
    if (n > 255) return 'IPv4 field has value >255';
    out[i] = n;
  }
  return out;
}

function parseV6(s: string): Uint8Array | string {
  const out = new Uint8Array(16);
  let head = s;
  let tail = '';
  const dbl = s.indexOf('::');
  if (dbl >= 0) {
    head = s.slice(0, dbl);
    tail = s.slice(dbl + 2);
    if (tail.includes('::')) return 'multiple ::';
  }
  const groups = (text: string): number[] | string => {
    if (text === '') return [];
    const parts = text.split(':');
    const vals: number[] = [];
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (typeof v4 === 'string') return v4;
        vals.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return 'each colon-separated field must have at least one digit';
      vals.push(parseInt(p, 16));
    }
    return vals;
  };
  const h = groups(head);
  const t = groups(tail);
  if (typeof h === 'string') return h;
  if (typeof t === 'string') return t;
  if (dbl < 0 && h.length !== 8) return 'address string too short';
  if (dbl >= 0 && h.length + t.length > 7) return 'address string too long';
  const all = dbl >= 0 ? [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
  for (let i = 0; i < 8; i++) { out[i * 2] = all[i]! >> 8; out[i * 2 + 1] = all[i]! & 0xff; }
  return out;
}

/** Parses an address as kube's ip() does; a string is the error. */
export function parseIP(s: string): IP | string {
  if (s.includes('%')) return `IP address ${JSON.stringify(s)} with zone value is not allowed`;
  const bytes = s.includes(':') ? parseV6(s) : parseV4(s);
  if (typeof bytes === 'string') return `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): ${bytes}`;
  if (bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`;
  }
  return new IP(bytes);
}

export function parseCIDR(s: string): CIDR | string {
  const slash = s.indexOf('/');
  const fail = (why: string): string => `network address ${JSON.stringify(s)} parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): ${why}`;
  if (slash < 0) return fail('no \'/\'');
  const ip = parseIP(s.slice(0, slash));
  if (typeof ip === 'string') return fail('bad IP');
  const bits = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bits) || Number(bits) > (ip.family === 4 ? 32 : 128)) return fail(`bad bits after slash: ${JSON.stringify(bits)}`);
  return new CIDR(ip, Number(bits));
}

function formatIP(b: Uint8Array): string {
  if (b.length === 4) return Array.from(b).join('.');
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((b[i]! << 8) | b[i + 1]!);
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) { bestAt = i; bestLen = j - i; }
    i = j;
  }
  if (bestAt < 0) return g.map((x) => x.toString(16)).join(':');
  return `${g.slice(0, bestAt).map((x) => x.toString(16)).join(':')}::${g.slice(bestAt + bestLen).map((x) => x.toString(16)).join(':')}`;
}

class IPNamespace {}

const orThrow = <T>(v: T | string): T => {
  if (typeof v === 'string') throw new Error(v);
  return v;
};

export function installIP(env: Environment): void {
  const I = 'net.IP';
  const C = 'net.CIDR';
  env.registerType(I, IP);
  env.registerType(C, CIDR);
  env.registerFunction(`ip(string): ${I}`, (s: string) => orThrow(parseIP(s)));
  env.registerFunction('isIP(string): bool', (s: string) => typeof parseIP(s) !== 'string');
  env.registerType('ip', IPNamespace);
  env.registerConstant('ip', 'ip', new IPNamespace());
  env.registerFunction('ip.isCanonical(string): bool', (_ns: unknown, s: string) => orThrow(parseIP(s)).toString() === s);
  env.registerFunction(`string(${I}): string`, (ip: IP) => ip.toString());
  env.registerFunction(`${I}.family(): int`, (ip: IP) => BigInt(ip.family));
  env.registerFunction(`${I}.isUnspecified(): bool`, (ip: IP) => ip.bytes.every((x) => x === 0));
  env.registerFunction(`${I}.isLoopback(): bool`, (ip: IP) => ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((x) => x === 0) && ip.bytes[15] === 1);
  env.registerFunction(`${I}.isLinkLocalMulticast(): bool`, (ip: IP) => ip.family === 4
    ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0
    : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02);
  env.registerFunction(`${I}.isLinkLocalUnicast(): bool`, (ip: IP) => ip.family === 4
    ? ip.bytes[0] === 169 && ip.bytes[1] === 254
    : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80);
  env.registerFunction(`${I}.isGlobalUnicast(): bool`, (ip: IP) => {
    const b = ip.bytes;
    if (b.every((x) => x === 0)) return false;
    if (ip.family === 4) return !(b[0] === 127 || b[0]! >= 224 || (b[0] === 169 && b[1] === 254) || b.every((x) => x === 255));
    return !(b[0] === 0xff || (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) || (b.slice(0, 15).every((x) => x === 0) && b[15] === 1));
  });
  env.registerOperator(`${I} == ${I}`, (a: IP, b: IP) => a.equals(b));

  env.registerFunction(`cidr(string): ${C}`, (s: string) => orThrow(parseCIDR(s)));
  env.registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string');
  env.registerFunction(`string(${C}): string`, (c: CIDR) => c.toString());
  env.registerFunction(`${C}.containsIP(${I}): bool`, (c: CIDR, ip: IP) => c.contains(ip));
  env.registerFunction(`${C}.containsIP(string): bool`, (c: CIDR, s: string) => c.contains(orThrow(parseIP(s))));
  env.registerFunction(`${C}.containsCIDR(${C}): bool`, (c: CIDR, o: CIDR) => o.prefix >= c.prefix && c.contains(o.ip));
  env.registerFunction(`${C}.containsCIDR(string): bool`, (c: CIDR, s: string) => {
    const o = orThrow(parseCIDR(s));
    return o.prefix >= c.prefix && c.contains(o.ip);
  });
  env.registerFunction(`${C}.ip(): ${I}`, (c: CIDR) => c.ip);
  env.registerFunction(`${C}.masked(): ${C}`, (c: CIDR) => c.masked());
  env.registerFunction(`${C}.prefixLength(): int`, (c: CIDR) => BigInt(c.prefix));
  env.registerOperator(`${C} == ${C}`, (a: CIDR, b: CIDR) => a.equals(b));
}
