/**
 * The two ranges kube allocates from: service cluster IPs (`--service-cluster-ip-range`, a
 * CIDR) and node ports (`--service-node-port-range`, `base-max`). Each maps values to bitmap
 * offsets as kube's ipallocator and portallocator do, and carries their error texts.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** A range values are allocated from, as offsets of a bitmap. */
export interface AllocationRange<T> {
  /** The RangeAllocation `range` (`10.0.0.0/24`, `30000-32767`). */
  readonly spec: string;
  /** How many values (bitmap bits). */
  readonly size: number;
  /** Where dynamic allocation starts (kube's calculateRangeOffset): lower offsets are left for static picks. */
  readonly offset: number;
  /** The value's offset; undefined when it is not in the range. */
  offsetOf(value: T): number | undefined;
  valueAt(offset: number): T;
  /** kube's ErrNotInRange text for `value`. */
  notInRange(value: T): string;
  /** kube's ErrAllocated text. */
  readonly allocatedMessage: string;
}

export const RANGE_FULL = 'range is full';

/** min(max(min, size/step), max): kube's calculateRangeOffset once a range is large enough to have one. */
function rangeOffset(size: number, min: number, max: number, step: number): number {
  return Math.min(Math.max(Math.floor(size / step), min), max);
}

// ---------------------------------------------------------------- IP addresses

export type IPFamily = 'IPv4' | 'IPv6';

/** An address as a number, or undefined when `text` is not an IP. */
export function parseIP(text: string): { family: IPFamily; value: bigint } | undefined {
  if (isIPv4(text)) {
    return { family: 'IPv4', value: text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n) };
  }
  if (!isIPv6(text)) return undefined;
  let head = text;
  let tail4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tail4 = parseIP(text.slice(lastColon + 1))?.value;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const l = groups(left);
  const r = groups(right);
  const all = right === undefined ? l : [...l, ...new Array<string>(8 - l.length - r.length).fill('0'), ...r];
  let value = all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tail4 !== undefined) value = (value & ~0xffffffffn) | tail4;
  return { family: 'IPv6', value };
}

/** The canonical text of an address (RFC 5952 for IPv6, as Go prints it). */
export function formatIP(family: IPFamily, value: bigint): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** The canonical text of an IP, or undefined when `text` is not one. */
export function canonicalIP(text: string): string | undefined {
  const ip = parseIP(text);
  return ip === undefined ? undefined : formatIP(ip.family, ip.value);
}

export interface ServiceIPRange extends AllocationRange<string> {
  readonly family: IPFamily;
  /** The network's first host address (kube gives it to the `kubernetes` Service). */
  readonly firstIP: string;
}

/**
 * The cluster IP range of a CIDR, as kube's ipallocator.New: the network address is never
 * handed out (offset 0 is the next address), nor an IPv4 broadcast address; IPv6 ranges
 * are capped at 65536 addresses. Throws an Error with kube's flag text for a bad CIDR.
 */
export function serviceIPRange(cidr: string): ServiceIPRange {
  const slash = cidr.indexOf('/');
  const ip = slash < 0 ? undefined : parseIP(cidr.slice(0, slash));
  const bits = ip?.family === 'IPv4' ? 32 : 128;
  const prefix = slash < 0 ? NaN : Number(cidr.slice(slash + 1));
  if (ip === undefined || !/^\d+$/.test(cidr.slice(slash + 1)) || prefix > bits) throw new Error(`invalid CIDR address: ${cidr}`);
  const hostBits = BigInt(bits - prefix);
  const network = (ip.value >> hostBits) << hostBits;
  const rangeSize = 1n << hostBits;
  let max = rangeSize > 1n << 62n ? Number.MAX_SAFE_INTEGER : Number(rangeSize);
  if (ip.family === 'IPv6') max = Math.min(max, 65536);
  else max--;
  max = Math.max(max - 1, 0);
  const base = network + 1n;
  const spec = `${formatIP(ip.family, network)}/${prefix}`;
  const cidrSize = rangeSize - 1n;
  const offset = cidrSize < 16n ? 0 : rangeOffset(Number(cidrSize > 1n << 40n ? 1n << 40n : cidrSize), 16, 256, 16);
  return {
    spec,
    family: ip.family,
    size: max,
    offset,
    firstIP: formatIP(ip.family, base),
    offsetOf(value) {
      const parsed = parseIP(value);
      if (parsed === undefined || parsed.family !== ip.family) return undefined;
      const delta = parsed.value - base;
      return delta >= 0n && delta < BigInt(max) ? Number(delta) : undefined;
    },
    valueAt: (i) => formatIP(ip.family, base + BigInt(i)),
    notInRange: (value) => `the provided IP (${value}) is not in the valid range. The range of valid IPs is ${spec}`,
    allocatedMessage: 'provided IP is already allocated',
  };
}

// ---------------------------------------------------------------- node ports

/**
 * A node port range `base-max` (or `base+size`), as kube's utilnet.ParsePortRange. Throws an
 * Error for a bad one.
 */
export function nodePortRange(text: string): AllocationRange<number> {
  const match = /^\s*(\d+)\s*([-+])\s*(\d+)\s*$/.exec(text) ?? /^\s*(\d+)\s*$/.exec(text);
  if (match === null) throw new Error(`unable to parse port range: ${text}: invalid port range`);
  const base = Number(match[1]);
  let size = 1;
  if (match[2] === '-') size = Number(match[3]) - base + 1;
  else if (match[2] === '+') size = Number(match[3]);
  if (base > 65535 || size < 1 || base + size - 1 > 65535) throw new Error(`unable to parse port range: ${text}: invalid port range`);
  const spec = `${base}-${base + size - 1}`;
  return {
    spec,
    size,
    offset: size <= 16 ? 0 : rangeOffset(size, 16, 128, 32),
    offsetOf: (port) => (Number.isInteger(port) && port >= base && port < base + size ? port - base : undefined),
    valueAt: (i) => base + i,
    notInRange: () => `provided port is not in the valid range. The range of valid ports is ${spec}`,
    allocatedMessage: 'provided port is already allocated',
  };
}
