/**
 * kube's QoS class of a pod (GetPodQOS, without pod-level resources): BestEffort when no
 * container requests or limits cpu or memory, Guaranteed when every container limits both
 * and the summed requests equal the summed limits, else Burstable.
 */
import type { KubeObject } from '@kapi/machinery';

type Rec = Record<string, unknown>;

const SUPPORTED = ['cpu', 'memory'];
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** A quantity in nano-units (sub-nano digits dropped); undefined when it does not parse. */
export function quantityNanos(text: string): bigint | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE])([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(text.trim());
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', e, exponent, suffix = ''] = match;
  let digits = BigInt(`${whole}${fraction}` === '' ? '0' : `${whole}${fraction}`);
  let scale10 = 9 - fraction.length;
  let scale2 = 0;
  if (e !== undefined) scale10 += Number(exponent);
  else if (BINARY[suffix] !== undefined) scale2 = BINARY[suffix]!;
  else scale10 += DECIMAL[suffix] ?? 0;
  digits *= 2n ** BigInt(scale2);
  digits = scale10 >= 0 ? digits * 10n ** BigInt(scale10) : digits / 10n ** BigInt(-scale10);
  return sign === '-' ? -digits : digits;
}

function resourceList(container: Rec, key: 'requests' | 'limits'): Rec {
  const resources = container['resources'];
  if (typeof resources !== 'object' || resources === null) return {};
  const list = (resources as Rec)[key];
  return typeof list === 'object' && list !== null ? (list as Rec) : {};
}

function containersOf(spec: Rec): Rec[] {
  const all = [...(Array.isArray(spec['containers']) ? spec['containers'] : []), ...(Array.isArray(spec['initContainers']) ? spec['initContainers'] : [])];
  return all.filter((c): c is Rec => typeof c === 'object' && c !== null);
}

export function podQOSClass(pod: KubeObject): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const spec = (typeof pod['spec'] === 'object' && pod['spec'] !== null ? pod['spec'] : {}) as Rec;
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const add = (sums: Map<string, bigint>, name: string, value: unknown): boolean => {
    if (!SUPPORTED.includes(name) || (typeof value !== 'string' && typeof value !== 'number')) return false;
    const nanos = quantityNanos(String(value)) ?? 0n;
    if (nanos === 0n) return false;
    sums.set(name, (sums.get(name) ?? 0n) + nanos);
    return true;
  };
  for (const container of containersOf(spec)) {
    for (const [name, value] of Object.entries(resourceList(container, 'requests'))) add(requests, name, value);
    const found = new Set<string>();
    for (const [name, value] of Object.entries(resourceList(container, 'limits'))) if (add(limits, name, value)) found.add(name);
    if (!SUPPORTED.every((r) => found.has(r))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, value] of requests) if (limits.get(name) !== value) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
