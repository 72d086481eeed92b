/**
 * Subresources with roles of their own (kube's NamedCreater and Connecter storages:
 * pods/binding, pods/eviction, pods/log, the proxies) are built per store version by a
 * factory, from the object's store and the registry's other resources. The registry asks
 * for the factories of each definition (builtin: groups/<group>/ declare them).
 */
import type { GroupResource, KubeObject, Status } from '@kapi/machinery';
import type { RequestContext } from './definition.js';
import type { DeleteOptions, RestResource, RestSubresource } from './rest.js';

/** What a subresource factory may use. */
export interface SubresourceStore {
  /** The resource's `{group, resource}` for error messages. */
  readonly resource: GroupResource;
  /** The object as clients of this version see it (quorum read). 404 when absent. */
  get(req: RequestContext, name: string): Promise<KubeObject>;
  /**
   * A guaranteed update of the stored object: `mutate` receives a private copy of the
   * current one (storage form) and returns it changed, or throws to refuse; retried on a
   * write conflict. No validation or managedFields run (kube's binding writes storage the
   * same way). `preconditions` fail as a delete's do; `dryRun` writes nothing. 404 when absent.
   */
  update(
    req: RequestContext,
    name: string,
    mutate: (current: KubeObject) => KubeObject,
    options: { dryRun?: boolean; preconditions?: { uid?: string; resourceVersion?: string } },
  ): Promise<KubeObject>;
  /** The main resource's DELETE, with every rule it has (graceful deletion, finalizers). */
  delete(req: RequestContext, name: string, options: DeleteOptions): Promise<{ object: KubeObject | Status; deletedImmediately: boolean }>;
  /** Another resource the registry serves, in its preferred version (e.g. PodDisruptionBudgets). */
  lookup(group: string, plural: string): RestResource | undefined;
  /** How a Node's kubelet is addressed (pods/log, exec, the node proxy). */
  readonly kubelet: KubeletAddressing;
}

/** kube's --kubelet-preferred-address-types and --kubelet-port. */
export interface KubeletAddressing {
  /** The Node address types tried in order (kube's default: Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP). */
  readonly preferredAddressTypes: readonly string[];
  /** The port of a Node that reports no kubelet endpoint (kube's default 10250). */
  readonly port: number;
}

/** kube's defaults for the kubelet flags. */
export const DEFAULT_KUBELET_ADDRESSING: KubeletAddressing = {
  preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
  port: 10250,
};

/** Builds one subresource's roles for a store. */
export type SubresourceFactory = (store: SubresourceStore) => RestSubresource;

/** A definition's subresource factories by subresource name. */
export type SubresourceFactories = Readonly<Record<string, SubresourceFactory>>;

/** Finds another served resource in its preferred version. */
export type ResourceLookup = (group: string, plural: string) => RestResource | undefined;
