/**
 * What a Service holds outside its object — its cluster IP and node ports — reserved,
 * changed and released as kube's service REST does around its storage (alloc.go):
 * reservations are written before the Service is, undone when its write fails, and values
 * an update gave up are released only once the update is stored.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { internalError, invalid } from '@kapi/machinery';
import type { Reservation, Reserver } from '../../../reservation.js';
import type { AllocationBitmap } from './bitmap.js';
import { RANGE_FULL, canonicalIP, type AllocationRange, type ServiceIPRange } from './ranges.js';
import type { RangeStore } from './range-store.js';

export interface ServiceNetwork {
  readonly ips: RangeStore<string> & { readonly range: ServiceIPRange };
  readonly nodePorts: RangeStore<number>;
  /** Called when a release fails (the repair pass frees the value later). */
  readonly onReleaseError?: (err: unknown) => void;
}

type Spec = Record<string, unknown>;
type Port = Record<string, unknown>;

const SERVICE = { group: '', kind: 'Service' };

export const specOf = (svc: KubeObject): Spec => (typeof svc['spec'] === 'object' && svc['spec'] !== null ? (svc['spec'] as Spec) : {});
export const typeOf = (svc: KubeObject): string => (typeof specOf(svc)['type'] === 'string' ? (specOf(svc)['type'] as string) : 'ClusterIP');
export const portsOf = (svc: KubeObject): Port[] => (Array.isArray(specOf(svc)['ports']) ? (specOf(svc)['ports'] as Port[]) : []);
export const clusterIPsOf = (svc: KubeObject): string[] => {
  const ips = specOf(svc)['clusterIPs'];
  return Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [];
};
export const needsClusterIP = (svc: KubeObject): boolean => typeOf(svc) !== 'ExternalName';
export const needsNodePorts = (svc: KubeObject): boolean => typeOf(svc) === 'NodePort' || typeOf(svc) === 'LoadBalancer';
export const needsHealthCheckNodePort = (svc: KubeObject): boolean =>
  typeOf(svc) === 'LoadBalancer' && specOf(svc)['externalTrafficPolicy'] === 'Local';

/** kube's shouldAllocateNodePorts: NodePort always, LoadBalancer unless allocateLoadBalancerNodePorts is false. */
function allocatesNodePorts(svc: KubeObject): boolean {
  if (typeOf(svc) === 'NodePort') return true;
  return typeOf(svc) === 'LoadBalancer' && specOf(svc)['allocateLoadBalancerNodePorts'] !== false;
}

const numberOf = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** The node ports a Service holds (ports' nodePorts and healthCheckNodePort), without repeats. */
export function nodePortsOf(svc: KubeObject): number[] {
  const out = new Set<number>();
  for (const port of portsOf(svc)) if (numberOf(port['nodePort']) !== 0) out.add(numberOf(port['nodePort']));
  const hc = numberOf(specOf(svc)['healthCheckNodePort']);
  if (hc !== 0) out.add(hc);
  return [...out];
}

/** The allocated cluster IPs of a Service (not `None`). */
export function allocatedIPsOf(svc: KubeObject): string[] {
  return needsClusterIP(svc) ? clusterIPsOf(svc).filter((ip) => ip !== 'None' && ip !== '') : [];
}

/** A list of strings as Go's %#v prints it in field errors: `[]string{"a", "b"}`. */
export function goStrings(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function nameOf(svc: KubeObject): string {
  return svc.metadata.name ?? '';
}

/** Sets a specific value's bit, or throws kube's 422 at `field`. */
function takeSpecific<T>(bitmap: AllocationBitmap, range: AllocationRange<T>, value: T, fail: (detail: string) => never): void {
  const offset = range.offsetOf(value);
  if (offset === undefined) fail(range.notInRange(value));
  if (!bitmap.set(offset)) fail(range.allocatedMessage);
}

/** The IP family fields kube's allocator initialises (single-stack cluster). Mutates `svc`. */
export function initIPFamilyFields(svc: KubeObject, family: string): FieldError[] {
  const spec = specOf(svc);
  if (!needsClusterIP(svc)) {
    delete spec['ipFamilies'];
    delete spec['ipFamilyPolicy'];
    return [];
  }
  const families = Array.isArray(spec['ipFamilies']) ? (spec['ipFamilies'] as unknown[]) : [];
  const selector = spec['selector'];
  const selectorless = typeof selector !== 'object' || selector === null || Object.keys(selector).length === 0;
  if (clusterIPsOf(svc)[0] === 'None' && selectorless) {
    // kube: a headless Service without selector takes both families, whatever the cluster serves.
    spec['ipFamilyPolicy'] ??= 'RequireDualStack';
    if (families.length === 0) spec['ipFamilies'] = spec['ipFamilyPolicy'] === 'SingleStack' ? [family] : [family, family === 'IPv4' ? 'IPv6' : 'IPv4'];
    return [];
  }
  const errs: FieldError[] = [];
  if (spec['ipFamilyPolicy'] === 'RequireDualStack') {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.ipFamilyPolicy', message: 'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services' });
  }
  families.forEach((f, i) => {
    if (f !== family && typeof f === 'string') errs.push({ type: 'FieldValueInvalid', field: `spec.ipFamilies[${i}]`, message: `Invalid value: "${f}": not configured on this cluster` });
  });
  if (errs.length > 0) return errs;
  // Single-stack cluster: PreferDualStack stays as asked, with the one family there is.
  spec['ipFamilyPolicy'] ??= 'SingleStack';
  spec['ipFamilies'] = [family];
  return [];
}

/** A reservation made of steps to run on success and on failure. */
function reservation(onCommit: (() => Promise<void>)[], onRevert: (() => Promise<void>)[]): Reservation {
  return {
    commit: async () => {
      for (const step of onCommit) await step();
    },
    revert: async () => {
      for (const step of onRevert) await step();
    },
  };
}

/**
 * The node ports a Service gets, as kube's initNodePorts (create) and updateNodePorts
 * (update, `held` = what the old object held): requested values are taken (422 at
 * `spec.ports[i].nodePort` when out of range or taken), missing ones picked (500 when the
 * range is full), ports sharing a port number share a node port. Returns the new value of
 * every port's nodePort and of healthCheckNodePort, and the values newly taken.
 */
function planNodePorts(
  svc: KubeObject,
  held: readonly number[],
  bitmap: AllocationBitmap,
  range: AllocationRange<number>,
): { ports: number[]; healthCheck: number; taken: number[] } {
  const name = nameOf(svc);
  const taken: number[] = [];
  const take = (value: number, field: string): void => {
    if (held.includes(value) || taken.includes(value)) return;
    takeSpecific(bitmap, range, value, (detail) => {
      throw invalid(SERVICE, name, [{ type: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` }]);
    });
    taken.push(value);
  };
  const next = (): number => {
    const offset = bitmap.takeNext();
    if (offset === undefined) throw internalError(`failed to allocate a nodePort: ${RANGE_FULL}`);
    const value = range.valueAt(offset);
    taken.push(value);
    return value;
  };
  const ports = portsOf(svc);
  const out = ports.map((p) => numberOf(p['nodePort']));
  if (needsNodePorts(svc)) {
    const byPort = new Map<number, number>();
    ports.forEach((port, i) => {
      if (out[i] === 0 && !allocatesNodePorts(svc)) return;
      const number = numberOf(port['port']);
      const shared = byPort.get(number);
      if (out[i] !== 0) take(out[i]!, `spec.ports[${i}].nodePort`);
      else if (shared !== undefined) out[i] = shared;
      else {
        const requested = ports.slice(i + 1).find((p) => numberOf(p['port']) === number && numberOf(p['nodePort']) !== 0);
        out[i] = requested !== undefined ? numberOf(requested['nodePort']) : next();
        if (requested !== undefined) take(out[i]!, `spec.ports[${i}].nodePort`);
      }
      if (!byPort.has(number)) byPort.set(number, out[i]!);
    });
  }
  let healthCheck = numberOf(specOf(svc)['healthCheckNodePort']);
  if (needsHealthCheckNodePort(svc)) {
    if (healthCheck !== 0) take(healthCheck, 'spec.healthCheckNodePort');
    else healthCheck = next();
  }
  return { ports: out, healthCheck, taken };
}

/** Reserves, changes and releases Services' cluster IPs and node ports (see the module comment). */
export function serviceReserver(network: ServiceNetwork): Reserver {
  const { ips, nodePorts } = network;
  const family = ips.range.family;

  const release = async (addresses: readonly string[], ports: readonly number[]): Promise<void> => {
    try {
      if (addresses.length > 0) {
        await ips.update((bitmap) => {
          for (const ip of addresses) {
            const offset = ips.range.offsetOf(canonicalIP(ip) ?? ip);
            if (offset !== undefined) bitmap.clear(offset);
          }
        });
      }
      if (ports.length > 0) {
        await nodePorts.update((bitmap) => {
          for (const port of ports) {
            const offset = nodePorts.range.offsetOf(port);
            if (offset !== undefined) bitmap.clear(offset);
          }
        });
      }
    } catch (err) {
      network.onReleaseError?.(err);
    }
  };

  /** Gives the Service a cluster IP (its requested one, else the next free); returns the IPs newly taken. */
  const allocateIP = async (svc: KubeObject, dryRun: boolean): Promise<string[]> => {
    const spec = specOf(svc);
    const requested = clusterIPsOf(svc)[0] ?? (typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '');
    if (requested === 'None') {
      spec['clusterIP'] = 'None';
      spec['clusterIPs'] = ['None'];
      return [];
    }
    if (requested !== '' && canonicalIP(requested) === undefined) {
      throw invalid(SERVICE, nameOf(svc), [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', message: `Invalid value: ${JSON.stringify(requested)}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)` }]);
    }
    const ip = await ips.update((bitmap) => {
      if (requested !== '') {
        const wanted = canonicalIP(requested) ?? requested;
        takeSpecific(bitmap, ips.range, wanted, (detail) => {
          const shown = goStrings(clusterIPsOf(svc));
          throw invalid(SERVICE, nameOf(svc), [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: ${shown}: failed to allocate IP ${requested}: ${detail}` }]);
        });
        return wanted;
      }
      const offset = bitmap.takeNext();
      if (offset === undefined) throw internalError(`failed to allocate a serviceIP: ${RANGE_FULL}`);
      return ips.range.valueAt(offset);
    }, dryRun);
    spec['clusterIP'] = ip;
    spec['clusterIPs'] = [ip];
    return dryRun ? [] : [ip];
  };

  /** Applies planNodePorts in one compare-and-swap; returns the ports newly taken. */
  const allocatePorts = async (svc: KubeObject, held: readonly number[], dryRun: boolean): Promise<number[]> => {
    if (!needsNodePorts(svc) && !needsHealthCheckNodePort(svc)) return [];
    const plan = await nodePorts.update((bitmap) => planNodePorts(svc, held, bitmap, nodePorts.range), dryRun);
    portsOf(svc).forEach((port, i) => {
      if (plan.ports[i] !== 0) port['nodePort'] = plan.ports[i];
    });
    if (plan.healthCheck !== 0) specOf(svc)['healthCheckNodePort'] = plan.healthCheck;
    return dryRun ? [] : plan.taken;
  };

  const failIfAny = (svc: KubeObject, errs: FieldError[]): void => {
    if (errs.length > 0) throw invalid(SERVICE, nameOf(svc), errs);
  };

  return {
    async beginCreate(svc, dryRun) {
      failIfAny(svc, initIPFamilyFields(svc, family));
      const takenIPs = needsClusterIP(svc) ? await allocateIP(svc, dryRun) : [];
      let takenPorts: number[];
      try {
        takenPorts = await allocatePorts(svc, [], dryRun);
      } catch (err) {
        await release(takenIPs, []);
        throw err;
      }
      return reservation([], [() => release(takenIPs, takenPorts)]);
    },

    async beginUpdate(svc, old, dryRun) {
      const heldIPs = allocatedIPsOf(old);
      const heldPorts = nodePortsOf(old);
      if (needsClusterIP(svc) && !needsClusterIP(old)) failIfAny(svc, initIPFamilyFields(svc, family));
      const takenIPs = needsClusterIP(svc) && !needsClusterIP(old) ? await allocateIP(svc, dryRun) : [];
      let takenPorts: number[];
      try {
        takenPorts = await allocatePorts(svc, heldPorts, dryRun);
      } catch (err) {
        await release(takenIPs, []);
        throw err;
      }
      const keptIPs = allocatedIPsOf(svc);
      const keptPorts = nodePortsOf(svc);
      const freedIPs = heldIPs.filter((ip) => !keptIPs.includes(ip));
      const freedPorts = heldPorts.filter((p) => !keptPorts.includes(p));
      return reservation(dryRun ? [] : [() => release(freedIPs, freedPorts)], [() => release(takenIPs, takenPorts)]);
    },

    async released(svc) {
      await release(allocatedIPsOf(svc), nodePortsOf(svc));
    },
  };
}
