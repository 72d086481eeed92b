/**
 * The APIServices as the aggregator reads them: an informer's in-memory copy, indexed by
 * group and version. An APIService with `spec.service` is remote (its group-version is
 * proxied); one without is served locally.
 */
import type { KubeObject } from '@kapi/machinery';
import { startInformer, type Informer, type Registry } from '@kapi/registry';
import type { ServiceReference } from '../proxy/index.js';

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';

export interface ApiServiceCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string | null;
  readonly reason?: string;
  readonly message?: string;
}

export interface ApiServiceObject extends KubeObject {
  readonly spec?: {
    readonly group?: string;
    readonly version?: string;
    readonly service?: { readonly namespace?: string; readonly name?: string; readonly port?: number } | null;
    readonly caBundle?: string;
    readonly insecureSkipTLSVerify?: boolean;
    readonly groupPriorityMinimum?: number;
    readonly versionPriority?: number;
  };
  readonly status?: { readonly conditions?: readonly ApiServiceCondition[] | null };
}

/** The Service an APIService names (port 443 when left out), or undefined for a local one. */
export function serviceOf(apiService: ApiServiceObject): ServiceReference | undefined {
  const service = apiService.spec?.service;
  if (service === undefined || service === null) return undefined;
  return { namespace: service.namespace ?? '', name: service.name ?? '', port: service.port ?? 443 };
}

export function availableCondition(apiService: ApiServiceObject): ApiServiceCondition | undefined {
  return apiService.status?.conditions?.find((c) => c.type === 'Available');
}

export function isAvailable(apiService: ApiServiceObject): boolean {
  return availableCondition(apiService)?.status === 'True';
}

export interface ApiServiceIndex {
  get(name: string): ApiServiceObject | undefined;
  all(): ApiServiceObject[];
  /** The remote APIService serving `group`/`version`, if any. */
  remote(group: string, version: string): ApiServiceObject | undefined;
  /** Calls `listener` with the changed APIService's name (undefined after a re-list); returns the unsubscribe function. */
  onChange(listener: (name: string | undefined) => void): () => void;
  synced(): boolean;
  stop(): Promise<void>;
}

export function startApiServiceIndex(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): ApiServiceIndex | undefined {
  const resource = registry.lookup(APIREGISTRATION_GROUP, 'v1', 'apiservices');
  if (resource === undefined) return undefined;
  const byName = new Map<string, ApiServiceObject>();
  const byGroupVersion = new Map<string, ApiServiceObject>();
  const listeners = new Set<(name: string | undefined) => void>();
  const gvKey = (group: string, version: string) => `${group}/${version}`;
  const reindex = () => {
    byGroupVersion.clear();
    for (const a of byName.values()) if (serviceOf(a) !== undefined) byGroupVersion.set(gvKey(a.spec?.group ?? '', a.spec?.version ?? ''), a);
  };
  const emit = (name: string | undefined) => {
    for (const listener of [...listeners]) listener(name);
  };
  const informer: Informer = startInformer(resource, {
    onList(items) {
      byName.clear();
      for (const item of items) byName.set(item.metadata.name ?? '', item as ApiServiceObject);
      reindex();
      emit(undefined);
    },
    onEvent(type, obj) {
      const name = obj.metadata.name ?? '';
      if (type === 'DELETED') byName.delete(name);
      else byName.set(name, obj as ApiServiceObject);
      reindex();
      emit(name);
    },
  }, { userAgent: 'kapi-apiserver/aggregator', onError });
  return {
    get: (name) => byName.get(name),
    all: () => [...byName.values()],
    remote: (group, version) => byGroupVersion.get(gvKey(group, version)),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    synced: () => informer.synced(),
    stop: () => informer.stop(),
  };
}
