/**
 * kube's checks of an endpoint address (IsValidIP, then ValidateNonSpecialIP): the address
 * must parse (IPv4 with leading zeros is accepted, as Go's sloppy parser does) and may not be
 * unspecified, loopback, link-local or link-local multicast, which make no sense as a
 * Service's backend. IPv4-mapped IPv6 addresses are judged by their IPv4 address.
 */
import { isIPv6 } from 'node:net';
import { fieldInvalid, type FieldError } from '@kapi/machinery';

const IP_EXAMPLE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

function ipv4Octets(text: string): number[] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!m) return undefined;
  const octets = m.slice(1).map(Number);
  return octets.some((o) => o > 255) ? undefined : octets;
}

/** The 16 bytes of `text` (IPv4 as ::ffff:a.b.c.d), or undefined when it is not an address. */
function ipBytes(text: string): number[] | undefined {
  const v4 = ipv4Octets(text);
  if (v4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let hex = text;
  const dotted = /^(.*:)([^:]*\.[^:]*)$/.exec(text);
  if (dotted) {
    const four = ipv4Octets(dotted[2]!);
    if (four === undefined) return undefined;
    hex = `${dotted[1]!}${((four[0]! << 8) | four[1]!).toString(16)}:${((four[2]! << 8) | four[3]!).toString(16)}`;
  }
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const [left, right] = hex.split('::') as [string, string | undefined];
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const all = right === undefined ? l : [...l, ...new Array<string>(8 - l.length - r.length).fill('0'), ...r];
  return all.flatMap((g) => { const v = parseInt(g, 16); return [v >> 8, v & 0xff]; });
}

function isMappedIPv4(b: readonly number[]): boolean {
  return b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

/** Why `ip` may not be an endpoint address, as kube words it (empty: it may). */
export function nonSpecialIPErrors(ip: string): string[] {
  const b = ipBytes(ip);
  if (b === undefined) return ['must be a valid IP address'];
  const errs: string[] = [];
  const v4 = isMappedIPv4(b) ? b.slice(12) : undefined;
  if (v4 ? v4.every((x) => x === 0) : b.every((x) => x === 0)) errs.push(`may not be unspecified (${ip})`);
  if (v4 ? v4[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1) errs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if (v4 ? v4[0] === 169 && v4[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) errs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if (v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02) errs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return errs;
}

/** kube's errors for an endpoint address's `ip` at `path`. */
export function endpointIPErrors(path: string, ip: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ipBytes(ip) === undefined) errs.push(fieldInvalid(path, ip, IP_EXAMPLE));
  for (const message of nonSpecialIPErrors(ip)) errs.push(fieldInvalid(path, ip, message));
  return errs;
}
