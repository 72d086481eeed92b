/** Service cluster IPs and node ports: ranges, their RangeAllocations in etcd, reservations, repair. */
import type { KubeObject } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import { RangeStore } from './range-store.js';
import { canonicalIP, nodePortRange, serviceIPRange } from './ranges.js';
import { allocatedIPsOf, nodePortsOf, type ServiceNetwork } from './service-allocator.js';

export { serviceReserver, type ServiceNetwork } from './service-allocator.js';
export { serviceIPRange, nodePortRange, type ServiceIPRange, type AllocationRange } from './ranges.js';
export { repairServiceNetwork, newRepairState, type RepairState, type RepairReport } from './repair.js';

/** kube-apiserver's defaults of --service-cluster-ip-range and --service-node-port-range. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export interface ServiceNetworkConfig {
  /** --service-cluster-ip-range (one CIDR); default 10.0.0.0/24. */
  readonly clusterIPRange?: string;
  /** --service-node-port-range; default 30000-32767. */
  readonly nodePortRange?: string;
}

/** The two RangeAllocation stores under `prefix` (`<prefix>/ranges/serviceips`, `.../servicenodeports`). Throws for a bad range. */
export function serviceNetwork(
  storage: Storage,
  prefix: string,
  config: ServiceNetworkConfig = {},
  options: { onReleaseError?: (err: unknown) => void; listServices?: () => Promise<KubeObject[]> } = {},
): ServiceNetwork {
  const { onReleaseError, listServices } = options;
  const ipRange = serviceIPRange(config.clusterIPRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
  const ipsInUse = listServices && (async () => (await listServices()).flatMap((svc) => allocatedIPsOf(svc).map((ip) => canonicalIP(ip) ?? ip)));
  const portsInUse = listServices && (async () => (await listServices()).flatMap(nodePortsOf));
  const ips = new RangeStore(storage, `${prefix}/ranges/serviceips`, ipRange, 'serviceipallocations', ipsInUse) as RangeStore<string> & { readonly range: typeof ipRange };
  const nodePorts = new RangeStore(storage, `${prefix}/ranges/servicenodeports`, nodePortRange(config.nodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE), 'servicenodeportallocations', portsInUse);
  return { ips, nodePorts, ...(onReleaseError !== undefined ? { onReleaseError } : {}) };
}
