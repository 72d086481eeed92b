/**
 * Discovery of remote APIServices' group-versions (kube's aggregator discovery): the groups
 * and versions come from the APIService objects (ordered by groupPriorityMinimum, then
 * versionPriority), and each version's resources from its backend's `/apis/<g>/<v>`,
 * fetched when the availability check passes (at most every 30 s per APIService) and kept;
 * a version whose backend is not available is listed `Stale` with what was last fetched.
 * The same fetch reads the backend's OpenAPI v3 document of the group-version and its OpenAPI
 * v2 document (openapi-v2.ts), offered while the APIService is available.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { authProxyHeaders } from '../proxy/index.js';
import { compareKubeVersions } from '../discovery/api-groups.js';
import { isAvailable, serviceOf, type ApiServiceIndex, type ApiServiceObject } from './apiservices.js';
import { backendGet, type BackendAccess } from './backend.js';
import { fetchSwagger, type RemoteSwagger } from './openapi-v2.js';

interface LegacyResource {
  readonly name: string;
  readonly singularName?: string;
  readonly namespaced?: boolean;
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly verbs?: readonly string[] | null;
  readonly shortNames?: readonly string[] | null;
  readonly categories?: readonly string[] | null;
}

interface Fetched {
  /** The APIService's resourceVersion the fetch was for. */
  readonly resourceVersion: string;
  readonly at: number;
  /** The version's resources in aggregated discovery's form. */
  readonly resources: readonly Record<string, unknown>[];
  /** The backend's OpenAPI v3 document of the group-version and the URL its index gave, when it serves one. */
  readonly openapi?: RemoteOpenApi;
  /** Its OpenAPI v2 document (paths of the group-version only), when it serves one. */
  readonly swagger?: RemoteSwagger;
}

/** A backend's OpenAPI v3 document: its JSON text and its `serverRelativeURL` (with the backend's hash). */
export interface RemoteOpenApi {
  readonly body: string;
  readonly url: string;
}

export interface RemoteGroupVersion {
  readonly groupVersion: string;
  readonly version: string;
}

export interface RemoteGroup {
  readonly name: string;
  readonly versions: readonly RemoteGroupVersion[];
}

export interface RemoteDiscovery {
  /** Remote groups for `/apis` (legacy), in kube's order; groups also served locally are left out. */
  legacyGroups(): RemoteGroup[];
  /** The remote group named `name`, if only remote APIServices serve it. */
  group(name: string): RemoteGroup | undefined;
  /** APIGroupDiscovery items of the remote groups for aggregated `/apis`. */
  aggregatedItems(): Record<string, unknown>[];
  /** Called after anything listed changed. */
  onChange(listener: () => void): () => void;
  /** OpenAPI v3 documents of available remote group-versions, by key (`apis/<g>/<v>`), as their backends serve them. */
  openapiDocuments(): ReadonlyMap<string, RemoteOpenApi>;
  /**
   * OpenAPI v2 documents of available remote group-versions, in the order kube merges them
   * (groupPriorityMinimum, highest first, then APIService name), each with its ETag.
   */
  swaggerDocuments(): readonly { readonly name: string; readonly swagger: RemoteSwagger }[];
  /** Re-fetches `name`'s resources when due (after a passed availability check). */
  refresh(name: string, available: boolean): void;
}

const REFRESH_MS = 30_000;

function byPriority(a: ApiServiceObject, b: ApiServiceObject): number {
  const pa = a.spec?.groupPriorityMinimum ?? 0;
  const pb = b.spec?.groupPriorityMinimum ?? 0;
  if (pa !== pb) return pb - pa;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function byVersion(a: ApiServiceObject, b: ApiServiceObject): number {
  const pa = a.spec?.versionPriority ?? 0;
  const pb = b.spec?.versionPriority ?? 0;
  if (pa !== pb) return pb - pa;
  return compareKubeVersions(a.spec?.version ?? '', b.spec?.version ?? '');
}

/** A legacy APIResourceList as aggregated discovery's resources (group and version as the APIResource has them: kube leaves them empty). */
function toAggregatedResources(list: readonly LegacyResource[]): Record<string, unknown>[] {
  const out = new Map<string, Record<string, unknown> & { subresources?: Record<string, unknown>[] }>();
  const kindOf = (r: LegacyResource) => ({ group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' });
  for (const r of list) {
    if (r.name.includes('/')) continue;
    out.set(r.name, {
      resource: r.name,
      responseKind: kindOf(r),
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '',
      verbs: [...(r.verbs ?? [])],
      ...(r.shortNames && r.shortNames.length > 0 ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories && r.categories.length > 0 ? { categories: [...r.categories] } : {}),
    });
  }
  for (const r of list) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = out.get(r.name.slice(0, slash));
    if (parent === undefined) continue;
    (parent.subresources ??= []).push({ subresource: r.name.slice(slash + 1), responseKind: kindOf(r), verbs: [...(r.verbs ?? [])] });
  }
  return [...out.values()];
}

export function createRemoteDiscovery(apiServices: ApiServiceIndex, access: BackendAccess, localGroup: (name: string) => boolean, onError: (err: unknown) => void): RemoteDiscovery {
  const fetched = new Map<string, Fetched>();
  const inFlight = new Set<string>();
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  apiServices.onChange(() => changed());

  /** Remote APIServices by group, groups in kube's order, versions by priority. */
  const remoteGroups = (order: (a: ApiServiceObject, b: ApiServiceObject) => number): Map<string, ApiServiceObject[]> => {
    const groups = new Map<string, ApiServiceObject[]>();
    for (const a of apiServices.all().filter((x) => serviceOf(x) !== undefined).sort(order)) {
      const group = a.spec?.group ?? '';
      if (group === '' || localGroup(group)) continue;
      let versions = groups.get(group);
      if (versions === undefined) groups.set(group, (versions = []));
      versions.push(a);
    }
    for (const versions of groups.values()) versions.sort(byVersion);
    return groups;
  };
  const legacy = (name: string, versions: readonly ApiServiceObject[]): RemoteGroup => ({
    name,
    versions: versions.map((a) => ({ groupVersion: `${name}/${a.spec?.version ?? ''}`, version: a.spec?.version ?? '' })),
  });

  /**
   * kube's order: the backend's aggregated `/apis` (as system:kube-aggregator in
   * system:masters), and when it does not answer in that form, its legacy `/apis/<g>/<v>`.
   */
  const fetchResources = async (apiService: ApiServiceObject): Promise<Record<string, unknown>[]> => {
    const { group = '', version = '' } = apiService.spec ?? {};
    const aggregated = await backendGet(access, apiService, '/apis', {
      ...authProxyHeaders({ name: 'system:kube-aggregator', uid: '', groups: ['system:masters'], extra: {} }),
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    }, { timeoutMs: 5000 }).catch(() => undefined);
    if (aggregated?.status === 200 && /as=APIGroupDiscoveryList/.test(String(aggregated.headers['content-type']))) {
      const list = JSON.parse(aggregated.body.toString('utf8')) as { items?: { metadata?: { name?: string }; versions?: { version?: string; resources?: Record<string, unknown>[] }[] }[] };
      const item = list.items?.find((i) => i.metadata?.name === group)?.versions?.find((v) => v.version === version);
      if (item !== undefined) return item.resources ?? [];
    }
    const res = await backendGet(access, apiService, `/apis/${group}/${version}`, {
      ...authProxyHeaders({ name: 'system:kube-aggregator', uid: '', groups: [], extra: {} }),
      accept: 'application/json',
    }, { timeoutMs: 5000 });
    if (res.status !== 200) throw new Error(`discovery of ${apiService.metadata.name ?? ''}: status ${res.status}`);
    const body = JSON.parse(res.body.toString('utf8')) as { resources?: LegacyResource[] | null };
    return toAggregatedResources((body.resources ?? []).filter((r) => typeof r?.name === 'string'));
  };

  const fetch = async (apiService: ApiServiceObject): Promise<void> => {
    const name = apiService.metadata.name ?? '';
    const resources = await fetchResources(apiService);
    // The OpenAPI documents are read as kube's `system:aggregator`.
    const openapi = await fetchOpenApi(apiService, authProxyHeaders({ name: 'system:aggregator', uid: '', groups: [], extra: {} })).catch(() => undefined);
    const before = fetched.get(name);
    const swagger = await fetchSwagger(access, apiService, before?.swagger).catch((err: unknown) => {
      onError(new Error(`OpenAPI v2 of ${name}: ${err instanceof Error ? err.message : String(err)}`));
      return before?.swagger;
    });
    fetched.set(name, { resourceVersion: apiService.metadata.resourceVersion ?? '', at: Date.now(), resources, ...(openapi !== undefined ? { openapi } : {}), ...(swagger !== undefined ? { swagger } : {}) });
    if (before === undefined || JSON.stringify(before.resources) !== JSON.stringify(resources) || before.openapi?.body !== openapi?.body || before.openapi?.url !== openapi?.url || before.swagger?.etag !== swagger?.etag) changed();
  };

  /** The backend's `/openapi/v3` index, then the document it lists for the group-version (undefined when it lists none). */
  const fetchOpenApi = async (apiService: ApiServiceObject, headers: OutgoingHttpHeaders): Promise<RemoteOpenApi | undefined> => {
    const { group = '', version = '' } = apiService.spec ?? {};
    const index = await backendGet(access, apiService, '/openapi/v3', headers, { timeoutMs: 5000 });
    if (index.status !== 200) return undefined;
    const paths = (JSON.parse(index.body.toString('utf8')) as { paths?: Record<string, { serverRelativeURL?: string }> }).paths ?? {};
    const url = paths[`apis/${group}/${version}`]?.serverRelativeURL;
    if (typeof url !== 'string' || !url.startsWith('/')) return undefined;
    const doc = await backendGet(access, apiService, url, headers, { timeoutMs: 5000 });
    if (doc.status !== 200) return undefined;
    const text = doc.body.toString('utf8');
    JSON.parse(text);
    return { body: text, url };
  };

  return {
    legacyGroups: () => [...remoteGroups(byPriority)].map(([name, versions]) => legacy(name, versions)),
    group(name) {
      const versions = remoteGroups(byPriority).get(name);
      return versions === undefined ? undefined : legacy(name, versions);
    },
    aggregatedItems() {
      const groups = [...remoteGroups(byPriority)].sort(([a, av], [b, bv]) => {
        const pa = Math.max(...av.map((x) => x.spec?.groupPriorityMinimum ?? 0));
        const pb = Math.max(...bv.map((x) => x.spec?.groupPriorityMinimum ?? 0));
        return pa !== pb ? pb - pa : a < b ? -1 : a > b ? 1 : 0;
      });
      return groups.map(([name, versions]) => ({
        metadata: { name, creationTimestamp: null },
        versions: versions.map((a) => {
          const f = fetched.get(a.metadata.name ?? '');
          const current = f !== undefined && isAvailable(a);
          const resources = f?.resources ?? [];
          return { version: a.spec?.version ?? '', ...(resources.length > 0 ? { resources } : {}), freshness: current ? 'Current' : 'Stale' };
        }),
      }));
    },
    openapiDocuments() {
      const docs = new Map<string, RemoteOpenApi>();
      for (const a of apiServices.all()) {
        const f = fetched.get(a.metadata.name ?? '');
        if (f?.openapi === undefined || serviceOf(a) === undefined || !isAvailable(a) || localGroup(a.spec?.group ?? '')) continue;
        docs.set(`apis/${a.spec?.group ?? ''}/${a.spec?.version ?? ''}`, f.openapi);
      }
      return docs;
    },
    swaggerDocuments() {
      const out: { name: string; swagger: RemoteSwagger }[] = [];
      for (const a of apiServices.all().sort(byPriority)) {
        const f = fetched.get(a.metadata.name ?? '');
        if (f?.swagger === undefined || serviceOf(a) === undefined || !isAvailable(a) || localGroup(a.spec?.group ?? '')) continue;
        out.push({ name: a.metadata.name ?? '', swagger: f.swagger });
      }
      return out;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh(name, available) {
      const apiService = apiServices.get(name);
      if (apiService === undefined || !available || inFlight.has(name)) return;
      const f = fetched.get(name);
      if (f !== undefined && f.resourceVersion === (apiService.metadata.resourceVersion ?? '') && Date.now() - f.at < REFRESH_MS) return;
      inFlight.add(name);
      fetch(apiService).catch(onError).finally(() => inFlight.delete(name));
    },
  };
}
