/**
 * Legacy (unaggregated) discovery documents: APIVersions, APIGroupList, APIGroup and
 * APIResourceList, with kube's apiVersion-stripping rules.
 */
import type { ApiGroup, GroupVersionResources } from './api-groups.js';
import type { ResourceDefinition } from '@kapi/registry';
import { storageApiVersionOf } from '@kapi/registry';
import { resourceVerbs, storageVersionHash, subresourceKind, subresourceVerbs } from './api-groups.js';

/** kube's storageVersionHash is the storage version's (the same in every served version; core v1 for events.k8s.io). */
function storageHash(d: ResourceDefinition): string {
  const apiVersion = storageApiVersionOf(d);
  const slash = apiVersion.lastIndexOf('/');
  return storageVersionHash(slash < 0 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), d.kind);
}

/** `GET /api`. `serverAddress` is the address the client reached (host:port). */
export function apiVersions(core: ApiGroup | undefined, serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: core?.versions.map((v) => v.version) ?? [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** What a legacy group document needs: a name and its versions, preferred first (a served group, or a remote APIService's). */
export interface GroupVersions {
  readonly name: string;
  readonly versions: readonly { readonly groupVersion: string; readonly version: string }[];
}

function groupEntry(group: GroupVersions): Record<string, unknown> {
  const versions = group.versions.map((v) => ({ groupVersion: v.groupVersion, version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/**
 * `GET /apis`: every named group (never the core group), then `remote` ones (aggregated APIs).
 * kube-apiserver 1.32 answers it through kube-aggregator, which keeps `apiVersion: v1` (only
 * `/api` and the core and `extensions` resource lists go without it).
 */
export function apiGroupList(groups: readonly ApiGroup[], remote: readonly GroupVersions[] = []): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups.filter((g) => g.name !== ''), ...remote].map(groupEntry) };
}

/** `GET /apis/<group>`. */
export function apiGroup(group: GroupVersions): Record<string, unknown> {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group) };
}

/** `GET /api/v1` or `/apis/<g>/<v>`: apiVersion is stripped for the core group and `extensions`. */
export function apiResourceList(gv: GroupVersionResources): Record<string, unknown> {
  const resources = gv.resources
    .flatMap((r) => {
      const d = r.definition;
      const verbs = resourceVerbs(r);
      const main = {
        name: d.plural,
        singularName: d.singular,
        namespaced: d.namespaced,
        kind: d.kind,
        verbs,
        ...(d.shortNames !== undefined && d.shortNames.length > 0 ? { shortNames: [...d.shortNames] } : {}),
        ...(d.categories !== undefined && d.categories.length > 0 ? { categories: [...d.categories] } : {}),
        // Resources that store nothing have no storage version: the create-only ones (the
        // review APIs, bindings) and componentstatuses (probed on each read).
        ...(d.versions.some((v) => v.storage) && (r.getter !== undefined || r.lister !== undefined) ? { storageVersionHash: storageHash(d) } : {}),
      };
      // Subresources follow their resource as `<plural>/<sub>`, with no singular name.
      // A subresource of another kind names its group and version (kube's APIResource.group/version).
      const subs = subresourceVerbs(r).map((sub) => {
        const other = subresourceKind(sub.name) ?? (sub.kind !== undefined && sub.kind.group !== d.group ? sub.kind : undefined);
        const kind = other === undefined ? { kind: sub.kind?.kind ?? d.kind } : { group: other.group, version: other.version, kind: other.kind };
        return { name: `${d.plural}/${sub.name}`, singularName: '', namespaced: d.namespaced, ...kind, verbs: sub.verbs };
      });
      return [main, ...subs];
    })
    .filter((r) => r.verbs.length > 0);
  const stripApiVersion = gv.group === '' || gv.group === 'extensions';
  return { kind: 'APIResourceList', ...(stripApiVersion ? {} : { apiVersion: 'v1' }), groupVersion: gv.groupVersion, resources };
}
