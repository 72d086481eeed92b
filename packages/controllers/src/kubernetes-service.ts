/**
 * kube-apiserver's bootstrap work around the `kubernetes` Service, run in every replica (not
 * leader-elected, as in kube): the repair pass over the Service IP and node port bitmaps at
 * start and then every `repairIntervalMs`; the `kubernetes` Service in `default` (cluster IP =
 * the range's first address, port 443 `https` → the secure port), re-created or corrected
 * when it is missing or its ports differ; and kube's lease endpoint reconciler: each replica
 * keeps a TTL lease under `<prefix>/masterleases/<ip>` and writes the Endpoints and
 * EndpointSlice `kubernetes` listing the IPs of the live leases, so a stopped replica drops
 * out once its lease expires. On stop a replica removes its own lease and its address.
 */
import type { KubeObject } from '@kapi/machinery';
import { isAlreadyExists, isConflict, isNotFound, isStatusError } from '@kapi/machinery';
import { newRepairState, repairServiceNetwork, sleep, type Registry, type RestResource } from '@kapi/registry';
import type { TermController } from './controller.js';

/** The TTL leases the replicas keep (`<prefix>/masterleases/<ip>`, kube's storageLeases). */
export interface MasterLeases {
  /** Writes or refreshes the lease of `ip` with a TTL of `ttlSeconds`. */
  update(ip: string, ttlSeconds: number): Promise<void>;
  /** The IPs with a live lease. */
  list(): Promise<string[]>;
  /** Removes the lease of `ip` (no error when absent). */
  remove(ip: string): Promise<void>;
}

export interface KubernetesServiceOptions {
  /** --advertise-address: the IP this replica lists in the Endpoints. */
  readonly advertiseAddress: string;
  /** The port the `https` port of the Service targets (the secure port). */
  readonly securePort: number;
  /** --endpoint-reconciler-type: `lease` (kube's default) or `none` (Endpoints left alone). */
  readonly endpointReconciler: 'lease' | 'none';
  /** Required with the lease reconciler. */
  readonly leases?: MasterLeases;
  /** How often the Service and the Endpoints are reconciled; default 10 s (kube's EndpointInterval). */
  readonly intervalMs?: number;
  /** The leases' TTL; default 15 s (kube's DefaultEndpointReconcilerTTL). */
  readonly leaseTTLSeconds?: number;
  /** How often the repair pass runs after the first; default 3 min (kube's). */
  readonly repairIntervalMs?: number;
  readonly onError?: (err: unknown) => void;
}

/**
 * `run` reconciles until its signal aborts; `stop` then removes this replica's lease and
 * address. `synced` is always true (no informers).
 */
export interface KubernetesServiceController extends TermController {
  /** True once the first repair pass and the first Service reconciliation have succeeded. */
  ready(): boolean;
}

const REQUEST = { namespace: 'default', userAgent: 'kube-apiserver/v1.32.0' };
const NAME = 'kubernetes';

function served(registry: Pick<Registry, 'lookup'>, group: string, version: string, plural: string): RestResource {
  const found = registry.lookup(group, version, plural);
  if (found === undefined) throw new Error(`${plural}.${group}/${version} is not served`);
  return found;
}

async function getOrUndefined(resource: RestResource): Promise<KubeObject | undefined> {
  try {
    return await resource.getter!.get(REQUEST, NAME, {});
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Creates `desired` (apiVersion/kind/metadata.name set by the caller), or, when the stored
 * object's `fields` differ from desired's, writes them over it (labels merged). A conflict
 * or a lost create race is left to the next round.
 */
async function ensure(resource: RestResource, desired: KubeObject, differs: (current: KubeObject) => boolean, apply: (current: KubeObject) => KubeObject): Promise<void> {
  const current = await getOrUndefined(resource);
  try {
    if (current === undefined) await resource.creater!.create(REQUEST, desired, {});
    else if (differs(current)) await resource.updater!.update(REQUEST, NAME, apply(structuredClone(current)), {});
  } catch (err) {
    if (isAlreadyExists(err) || isConflict(err)) return;
    throw err;
  }
}

const portOf = (securePort: number) => ({ name: 'https', port: securePort, protocol: 'TCP' });

export function kubernetesServiceController(registry: Pick<Registry, 'lookup' | 'serviceNetwork'>, options: KubernetesServiceOptions): KubernetesServiceController {
  const intervalMs = options.intervalMs ?? 10_000;
  const ttl = options.leaseTTLSeconds ?? 15;
  const repairIntervalMs = options.repairIntervalMs ?? 180_000;
  const network = registry.serviceNetwork;
  const services = served(registry, '', 'v1', 'services');
  const endpoints = served(registry, '', 'v1', 'endpoints');
  const slices = served(registry, 'discovery.k8s.io', 'v1', 'endpointslices');
  const repairState = newRepairState();
  const family = network.ips.range.family;
  const report = (err: unknown) => options.onError?.(err);
  let lastRepair = -Infinity;
  let repaired = false;
  let serviceReady = false;

  const repair = async (): Promise<void> => {
    await repairServiceNetwork(network, repairState, async () => (await services.lister!.list({ namespace: '' }, {})).items);
    repaired = true;
    lastRepair = Date.now();
  };

  const ensureService = async (): Promise<void> => {
    const port = { name: 'https', port: 443, protocol: 'TCP', targetPort: options.securePort };
    const desired: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: network.ips.range.firstIP, ports: [port], sessionAffinity: 'None' },
    };
    await ensure(services, desired, (current) => {
      const spec = current['spec'] as Record<string, unknown> | undefined;
      const ports = spec?.['ports'] as Record<string, unknown>[] | undefined;
      const only = ports?.length === 1 ? ports[0] : undefined;
      return spec?.['type'] !== 'ClusterIP' || only?.['name'] !== 'https' || only['port'] !== 443 || only['protocol'] !== 'TCP' || only['targetPort'] !== options.securePort;
    }, (current) => {
      const spec = current['spec'] as Record<string, unknown>;
      spec['type'] = 'ClusterIP';
      spec['ports'] = [port];
      return current;
    });
    serviceReady = true;
  };

  /** Writes the Endpoints and EndpointSlice to list `ips` (sorted) on the secure port. */
  const writeEndpoints = async (ips: string[]): Promise<void> => {
    const sorted = [...new Set(ips)].sort();
    const subsets = sorted.length === 0 ? [] : [{ addresses: sorted.map((ip) => ({ ip })), ports: [portOf(options.securePort)] }];
    const skipMirror = { 'endpointslice.kubernetes.io/skip-mirror': 'true' };
    await ensure(
      endpoints,
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: NAME, namespace: 'default', labels: skipMirror }, ...(subsets.length > 0 ? { subsets } : {}) },
      (current) => JSON.stringify(current['subsets'] ?? []) !== JSON.stringify(subsets) || current.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror'] !== 'true',
      (current) => {
        if (subsets.length > 0) current['subsets'] = subsets;
        else delete current['subsets'];
        current.metadata.labels = { ...current.metadata.labels, ...skipMirror };
        return current;
      },
    );
    const sliceEndpoints = sorted.map((ip) => ({ addresses: [ip], conditions: { ready: true } }));
    const ports = [portOf(options.securePort)];
    const serviceName = { 'kubernetes.io/service-name': NAME };
    await ensure(
      slices,
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: NAME, namespace: 'default', labels: serviceName }, addressType: family, endpoints: sliceEndpoints, ports },
      (current) => JSON.stringify(current['endpoints'] ?? []) !== JSON.stringify(sliceEndpoints) || JSON.stringify(current['ports'] ?? []) !== JSON.stringify(ports),
      (current) => {
        current['endpoints'] = sliceEndpoints;
        current['ports'] = ports;
        current.metadata.labels = { ...current.metadata.labels, ...serviceName };
        return current;
      },
    );
  };

  /** kube's leaseEndpointReconciler.ReconcileEndpoints: refresh the own lease, list the live ones. */
  const reconcileEndpoints = async (): Promise<void> => {
    if (options.endpointReconciler !== 'lease' || options.leases === undefined) return;
    await options.leases.update(options.advertiseAddress, ttl);
    const ips = await options.leases.list();
    if (!ips.includes(options.advertiseAddress)) ips.push(options.advertiseAddress);
    await writeEndpoints(ips);
  };

  const round = async (): Promise<void> => {
    if (!repaired || Date.now() - lastRepair >= repairIntervalMs) await repair();
    await ensureService();
    await reconcileEndpoints();
  };

  return {
    synced: () => true,
    ready: () => repaired && serviceReady,
    async run(signal): Promise<void> {
      while (!signal.aborted) {
        try {
          await round();
        } catch (err) {
          if (!signal.aborted) report(isStatusError(err) ? err : err instanceof Error ? err : new Error(String(err)));
        }
        if (signal.aborted) break;
        await sleep(repaired && serviceReady ? intervalMs : Math.min(intervalMs, 1000), signal);
      }
    },
    async stop(): Promise<void> {
      if (options.endpointReconciler !== 'lease' || options.leases === undefined) return;
      try {
        await options.leases.remove(options.advertiseAddress);
        await writeEndpoints((await options.leases.list()).filter((ip) => ip !== options.advertiseAddress));
      } catch (err) {
        report(err);
      }
    },
  };
}
