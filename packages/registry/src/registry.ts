/**
 * The registry: one generic store per served version of every resource definition, looked up
 * by group/version/plural. The apiserver builds routes, discovery and OpenAPI from
 * `resources` and the exported schema `definitions`.
 */
import { isAlreadyExists } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import type { Admission } from './admission.js';
import type { ResourceDefinition, WriteGuard } from './definition.js';
import { builtinDefinitions } from './builtin/index.js';
import { checkNamespaceDeletable } from './namespace-lifecycle.js';
import type { RestResource } from './rest.js';
import { createStore } from './store.js';
import { DEFAULT_PREFIX } from './keys.js';
import { serviceNetwork, serviceReserver, type ServiceNetwork, type ServiceNetworkConfig } from './groups/core/service-network/index.js';
import { builtinResourceCreater, builtinSubresourceFactories } from './builtin/subresources.js';
import type { KubeletAddressing, SubresourceFactories } from './subresource-store.js';
import { privilegedPolicy } from './groups/core/pods/pod-validation.js';

export interface RegistryOptions {
  readonly storage: Storage;
  /** etcd key prefix; default `/registry`. */
  readonly prefix?: string;
  /** The resources to serve; default `builtinDefinitions`. */
  readonly definitions?: readonly ResourceDefinition[];
  /** kube's `--enable-garbage-collector` (default true): deletes manage the `orphan`/`foregroundDeletion` finalizers. */
  readonly garbageCollection?: boolean;
  /** The write guard of a resource's stores, if any (asked once per definition served). */
  readonly writeGuard?: (definition: ResourceDefinition) => WriteGuard | undefined;
  /** Services' cluster IP and node port ranges (kube's flags); default kube's. Throws at creation for a bad range. */
  readonly serviceNetwork?: ServiceNetworkConfig;
  /** Called when releasing a Service's IP or node port fails (the repair pass frees it later). */
  readonly onReleaseError?: (err: unknown) => void;
  /**
   * Subresources with roles of their own of a resource (asked once per definition served);
   * default the built-in ones (pods/binding, pods/eviction, pods/log, the proxies...).
   */
  readonly subresources?: (definition: ResourceDefinition) => SubresourceFactories | undefined;
  /**
   * kube's NamespaceLifecycle admission plugin (default true): creates need an existing,
   * not terminating namespace, and the immortal namespaces cannot be deleted.
   */
  readonly namespaceLifecycle?: boolean;
  /**
   * The admission plugins of a resource (mutating and validating, see admission.ts), if any:
   * asked once per definition served (CRDs too, when they are registered).
   */
  readonly admission?: (definition: ResourceDefinition) => Admission | undefined;
  /**
   * kube's `--event-ttl` in seconds: Events (core and events.k8s.io, one storage) expire this
   * long after their last create or update. Absent or 0: they never expire.
   */
  readonly eventTtlSeconds?: number;
  /** kube's --kubelet-preferred-address-types and --kubelet-port; default kube's. */
  readonly kubelet?: KubeletAddressing;
  /** kube's `--allow-privileged` (default false): privileged and hostProcess containers are refused in pod specs. */
  readonly allowPrivileged?: boolean;
}

/** A change to the set of served resources (CRDs come and go at runtime). */
export interface RegistryChange {
  readonly type: 'added' | 'removed';
  readonly definition: ResourceDefinition;
  /** The stores of the definition's served versions (added: the new ones; removed: the ones withdrawn). */
  readonly resources: readonly RestResource[];
}

export interface Registry {
  /** One entry per served version of each resource; a fresh array after every change. */
  readonly resources: readonly RestResource[];
  /** The resource serving `plural` in group/version, if any. */
  lookup(group: string, version: string, plural: string): RestResource | undefined;
  /**
   * Serves `definition` (every served version), replacing what was served for the same
   * group and plural. Listeners see `removed` for the old stores, then `added`.
   */
  register(definition: ResourceDefinition): readonly RestResource[];
  /** Stops serving group/plural; a no-op when nothing is served under it. */
  unregister(group: string, plural: string): void;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: (change: RegistryChange) => void): () => void;
  /** Services' RangeAllocations (cluster IPs, node ports), for the repair pass and the `kubernetes` Service. */
  readonly serviceNetwork: ServiceNetwork;
  /**
   * Creates `default`, `kube-system`, `kube-public` and `kube-node-lease` when missing.
   * Idempotent and safe when several replicas race (a lost race is an AlreadyExists, which
   * is ignored). Throws StatusErrors from storage (e.g. etcd unreachable).
   */
  ensureSystemNamespaces(): Promise<void>;
}

export const SYSTEM_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function isNamespaces(definition: ResourceDefinition): boolean {
  return definition.group === '' && definition.plural === 'namespaces';
}

/** Core Events and events.k8s.io Events: the objects kept under `events`. */
function isEvents(definition: ResourceDefinition): boolean {
  return (definition.group === '' || definition.group === 'events.k8s.io') && definition.plural === 'events';
}

function isServices(definition: ResourceDefinition): boolean {
  return definition.group === '' && definition.plural === 'services';
}

export function createRegistry(options: RegistryOptions): Registry {
  const initial = options.definitions ?? builtinDefinitions;
  // A missing bitmap is rebuilt from the Services stored (a quorum list through the services store).
  const listServices = async () => (await byKey.get('/v1/services')?.lister?.list({ namespace: '' }, {}))?.items ?? [];
  const network = serviceNetwork(options.storage, (options.prefix ?? DEFAULT_PREFIX).replace(/\/$/, ''), options.serviceNetwork, {
    ...(options.onReleaseError !== undefined ? { onReleaseError: options.onReleaseError } : {}),
    listServices,
  });
  const reserver = serviceReserver(network);
  const storageKey = (d: ResourceDefinition) => d.storagePrefix ?? d.plural;
  const guardOf = (definition: ResourceDefinition): { writeGuard?: WriteGuard } => {
    const guard = options.writeGuard?.(definition);
    return guard === undefined ? {} : { writeGuard: guard };
  };
  const podPolicyOf = (definition: ResourceDefinition) => {
    const policy = options.allowPrivileged === true || definition.bodyDecoding === 'unstructured' ? undefined : privilegedPolicy(`${definition.group}/${definition.plural}`);
    return policy === undefined ? {} : { podPolicy: policy };
  };
  const factoriesOf = options.subresources ?? ((d: ResourceDefinition) => builtinSubresourceFactories(d.group, d.plural));
  /** The store of group/plural in its preferred (first served) version. */
  const lookupPreferred = (group: string, plural: string): RestResource | undefined => {
    const found = resources.find((r) => r.definition.group === group && r.definition.plural === plural);
    const preferred = found?.definition.versions.find((v) => v.served)?.name;
    return preferred === undefined ? undefined : byKey.get(keyOf(group, preferred, plural));
  };
  /** A resource whose create is not a stored write (bindings) gets its own creater. */
  const withCreater = (store: RestResource): RestResource => {
    const creater = builtinResourceCreater(store.definition.group, store.definition.plural);
    return creater === undefined || store.creater === undefined ? store : { ...store, creater: creater(lookupPreferred) };
  };
  const subresourcesOf = (definition: ResourceDefinition) => {
    const factories = factoriesOf(definition);
    return factories === undefined ? {} : { subresourceFactories: factories, lookup: lookupPreferred };
  };
  const admissionOf = (definition: ResourceDefinition): { admission?: Admission } => {
    const admission = options.admission?.(definition);
    return admission === undefined ? {} : { admission };
  };
  const storesFor = (definition: ResourceDefinition): RestResource[] =>
    definition.versions
      .filter((v) => v.served)
      .map((version) =>
        withCreater(createStore({
          definition,
          version: version.name,
          storage: options.storage,
          cohabitants: initial.filter((d) => d !== definition && d.group !== definition.group && storageKey(d) === storageKey(definition)),
          ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
          ...(isNamespaces(definition) && options.namespaceLifecycle !== false ? { deletionGuard: checkNamespaceDeletable } : {}),
          ...(isServices(definition) ? { reserver } : {}),
          ...(options.namespaceLifecycle === false ? { namespaceLifecycle: false as const } : {}),
          ...admissionOf(definition),
          ...(options.garbageCollection === false ? { garbageCollection: false } : {}),
          ...(isEvents(definition) && options.eventTtlSeconds !== undefined && options.eventTtlSeconds > 0 ? { ttlSeconds: options.eventTtlSeconds } : {}),
          ...guardOf(definition),
          ...subresourcesOf(definition),
          ...podPolicyOf(definition),
          ...(options.kubelet !== undefined ? { kubelet: options.kubelet } : {}),
        })),
      );
  const keyOf = (group: string, version: string, plural: string): string => `${group}/${version}/${plural}`;
  let resources: RestResource[] = initial.flatMap(storesFor);
  let byKey = new Map<string, RestResource>();
  const reindex = (): void => {
    byKey = new Map(resources.map((r) => [keyOf(r.definition.group, r.version, r.definition.plural), r]));
  };
  reindex();
  const listeners = new Set<(change: RegistryChange) => void>();
  const notify = (change: RegistryChange): void => {
    for (const listener of [...listeners]) listener(change);
  };
  const withdraw = (group: string, plural: string): void => {
    const gone = resources.filter((r) => r.definition.group === group && r.definition.plural === plural);
    if (gone.length === 0) return;
    resources = resources.filter((r) => !gone.includes(r));
    reindex();
    notify({ type: 'removed', definition: gone[0]!.definition, resources: gone });
  };

  return {
    get resources() {
      return resources;
    },
    serviceNetwork: network,
    lookup: (group, version, plural) => byKey.get(keyOf(group, version, plural)),
    register(definition) {
      withdraw(definition.group, definition.plural);
      const added = storesFor(definition);
      resources = [...resources, ...added];
      reindex();
      notify({ type: 'added', definition, resources: added });
      return added;
    },
    unregister: withdraw,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async ensureSystemNamespaces(): Promise<void> {
      const namespaces = resources.find((r) => isNamespaces(r.definition))?.creater;
      if (namespaces === undefined) throw new Error('the registry does not serve namespaces');
      for (const name of SYSTEM_NAMESPACES) {
        try {
          // kube-apiserver creates these itself (its User-Agent names the manager).
          await namespaces.create({ namespace: '', userAgent: 'kube-apiserver/v1.32.0' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, {});
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
    },
  };
}
