/**
 * Aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1, same shape): one document for
 * `/api` (the core group) and one for `/apis` (every other group), chosen by the Accept
 * header, with an ETag.
 */
import type { ApiGroup } from './api-groups.js';
import { resourceVerbs, subresourceKind, subresourceVerbs } from './api-groups.js';
import type { MediaRange } from '../http/negotiation.js';

export type AggregatedVersion = 'v2' | 'v2beta1';

export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * What an Accept header asks of `/api` and `/apis`: an aggregated version, `legacy` JSON or
 * YAML, or undefined when nothing listed can be served (406).
 */
export function discoveryFormat(ranges: readonly MediaRange[]): AggregatedVersion | 'legacy' | 'legacy-yaml' | undefined {
  if (ranges.length === 0) return 'legacy';
  for (const r of ranges) {
    const anyType = r.type === '*' && r.subtype === '*';
    if (anyType || (r.type === 'application' && r.subtype === '*')) return 'legacy';
    if (r.type !== 'application') continue;
    if (r.subtype === 'yaml') return 'legacy-yaml';
    if (r.subtype !== 'json') continue;
    const { g, v, as } = r.params;
    if (g === undefined && v === undefined && as === undefined) return 'legacy';
    if (g === 'apidiscovery.k8s.io' && as === 'APIGroupDiscoveryList' && (v === 'v2' || v === 'v2beta1')) return v;
  }
  return undefined;
}

function groupItem(group: ApiGroup): Record<string, unknown> {
  return {
    metadata: group.name === '' ? { creationTimestamp: null } : { name: group.name, creationTimestamp: null },
    versions: group.versions.map((gv) => ({
      version: gv.version,
      resources: gv.resources
        .map((r) => {
          const d = r.definition;
          const own = d.responseKindGroupVersion === 'omitOwn' ? { group: '', version: '' } : { group: d.group, version: r.version };
          return {
            resource: d.plural,
            responseKind: { ...own, kind: d.kind },
            scope: d.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: d.singular,
            verbs: resourceVerbs(r),
            ...(d.shortNames !== undefined && d.shortNames.length > 0 ? { shortNames: [...d.shortNames] } : {}),
            ...(d.categories !== undefined && d.categories.length > 0 ? { categories: [...d.categories] } : {}),
            ...(r.subresources !== undefined && r.subresources.size > 0
              ? {
                  subresources: subresourceVerbs(r).map((sub) => ({
                    subresource: sub.name,
                    responseKind: subresourceKind(sub.name) ?? (sub.kind !== undefined && sub.kind.group !== d.group ? sub.kind : { ...own, kind: sub.kind?.kind ?? d.kind }),
                    verbs: sub.verbs,
                  })),
                }
              : {}),
          };
        })
        .filter((r) => r.verbs.length > 0),
      freshness: 'Current',
    })),
  };
}

/** The APIGroupDiscoveryList for `/api` (`core` true: only the core group) or `/apis` (every named group). */
export function aggregatedDiscovery(groups: readonly ApiGroup[], core: boolean, version: AggregatedVersion): Record<string, unknown> {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.filter((g) => (g.name === '') === core).map(groupItem),
  };
}
