/**
 * A cluster-scoped resource as admission plugins read it (kube's listers): an informer copy,
 * started once the registry exists. `get` falls back to a read through the registry when the
 * copy does not have the object yet (kube's RuntimeClass plugin does this live lookup; it also
 * spares a client that creates a class and then a pod from the informer's lag). `list` answers
 * from the copy only. Before `start`, and for a resource the registry does not serve, both
 * answer as for an empty resource.
 */
import { isNotFound, type KubeObject } from '@kapi/machinery';
import { EMPTY_OBJECT_CACHE, startResourceCache, type ObjectCache } from '@kapi/controllers';
import type { Registry, RestResource } from '@kapi/registry';

export interface ClusterObjects {
  get(name: string): Promise<KubeObject | undefined>;
  list(): KubeObject[];
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

export function clusterObjects(group: string, version: string, plural: string): ClusterObjects {
  let cache: ObjectCache = EMPTY_OBJECT_CACHE;
  let resource: RestResource | undefined;
  return {
    async get(name) {
      const cached = cache.get('', name);
      if (cached !== undefined || resource?.getter === undefined) return cached;
      try {
        return await resource.getter.get({ namespace: '', userAgent: 'kapi-apiserver' }, name, {});
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    list: () => cache.list(),
    start(registry, onError) {
      resource = registry.lookup(group, version, plural);
      if (resource !== undefined) cache = startResourceCache(resource, onError);
    },
    synced: () => cache.synced(),
    stop: () => cache.stop(),
  };
}
