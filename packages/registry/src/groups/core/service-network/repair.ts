/**
 * kube's repair controllers for service cluster IPs and node ports (ipallocator and
 * portallocator `Repair.RunOnce`): the bitmaps are rebuilt from the Services that exist, so a
 * missing or damaged RangeAllocation (lost key, changed range, a crash between reserving and
 * writing) is made whole. A value the bitmap holds that no Service uses is kept for
 * LEAK_ROUNDS passes first — it may belong to a create still in flight — then freed. Each
 * bitmap is written with a compare-and-swap against the revision read before the Services
 * were listed, so an allocation made meanwhile makes the pass start over.
 */
import type { KubeObject } from '@kapi/machinery';
import { AllocationBitmap } from './bitmap.js';
import type { RangeStore } from './range-store.js';
import { canonicalIP } from './ranges.js';
import { allocatedIPsOf, nodePortsOf, type ServiceNetwork } from './service-allocator.js';

/** kube's numRepairsBeforeLeakCleanup. */
export const LEAK_ROUNDS = 3;

/** What repair passes remember between rounds: how many passes each leaked value has been seen. */
export interface RepairState {
  readonly ipLeaks: Map<string, number>;
  readonly portLeaks: Map<number, number>;
}

export function newRepairState(): RepairState {
  return { ipLeaks: new Map(), portLeaks: new Map() };
}

/** Problems a pass found (kube records them as events on the Services). */
export interface RepairReport {
  /** Values Services use that the bitmap did not hold (now held). */
  readonly repaired: readonly string[];
  /** Values held by no Service, freed this pass. */
  readonly freed: readonly string[];
  /** Values outside the range or used by several Services. */
  readonly problems: readonly string[];
}

async function repairOne<T>(
  store: RangeStore<T>,
  leaks: Map<T, number>,
  used: (services: readonly KubeObject[]) => { value: T; owner: string }[],
  listServices: () => Promise<KubeObject[]>,
  what: string,
): Promise<RepairReport> {
  for (;;) {
    const { bitmap: stored, resourceVersion } = await store.read();
    const services = await listServices();
    const range = store.range;
    const rebuilt = new AllocationBitmap(range.size, range.offset);
    const repaired: string[] = [];
    const freed: string[] = [];
    const problems: string[] = [];
    for (const { value, owner } of used(services)) {
      const offset = range.offsetOf(value);
      if (offset === undefined) {
        problems.push(`${what} ${String(value)} of ${owner} is not within the range ${range.spec}; please recreate`);
        continue;
      }
      if (!rebuilt.set(offset)) {
        problems.push(`${what} ${String(value)} of ${owner} was assigned to multiple services; please recreate`);
        continue;
      }
      if (!stored.has(offset)) repaired.push(String(value));
    }
    const nextLeaks = new Map<T, number>();
    for (const offset of stored.offsets()) {
      if (rebuilt.has(offset)) continue;
      const value = range.valueAt(offset);
      const seen = (leaks.get(value) ?? 0) + 1;
      if (seen >= LEAK_ROUNDS) {
        freed.push(String(value));
        continue;
      }
      nextLeaks.set(value, seen);
      rebuilt.set(offset);
    }
    if (await store.replace(rebuilt, resourceVersion)) {
      leaks.clear();
      for (const [value, seen] of nextLeaks) leaks.set(value, seen);
      return { repaired, freed, problems };
    }
  }
}

/**
 * One repair pass over both bitmaps (see the module comment). `listServices` must be a
 * quorum list of every Service. Throws storage errors (the caller retries later).
 */
export async function repairServiceNetwork(
  network: ServiceNetwork,
  state: RepairState,
  listServices: () => Promise<KubeObject[]>,
): Promise<{ ips: RepairReport; nodePorts: RepairReport }> {
  const owner = (svc: KubeObject) => `${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}`;
  const ips = await repairOne(network.ips, state.ipLeaks, (services) =>
    services.flatMap((svc) => allocatedIPsOf(svc).slice(0, 1).map((ip) => ({ value: canonicalIP(ip) ?? ip, owner: owner(svc) }))), listServices, 'Cluster IP');
  const nodePorts = await repairOne(network.nodePorts, state.portLeaks, (services) =>
    services.flatMap((svc) => nodePortsOf(svc).map((port) => ({ value: port, owner: owner(svc) }))), listServices, 'Port');
  return { ips, nodePorts };
}
