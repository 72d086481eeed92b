/**
 * The registry plus resources the apiserver serves itself (the review APIs: create-only,
 * nothing stored) and subresources it adds to the registry's resources (the service
 * account token, which needs the signing key). Everything else is delegated; `resources`
 * lists the extra ones after the registry's, and discovery orders groups as kube does.
 */
import type { Registry, RestResource, RestSubresource } from '@kapi/registry';

/** Subresources to add, by `<group>/<plural>` (every served version gets them). */
export type ExtraSubresources = Readonly<Record<string, readonly RestSubresource[]>>;

export function withExtraResources(registry: Registry, extra: readonly RestResource[], extraSubresources: ExtraSubresources = {}): Registry {
  const key = (group: string, version: string, plural: string) => `${group}/${version}/${plural}`;
  const byKey = new Map(extra.map((r) => [key(r.definition.group, r.version, r.definition.plural), r]));
  const extended = new WeakMap<RestResource, RestResource>();
  const withSubresources = (resource: RestResource | undefined): RestResource | undefined => {
    if (resource === undefined) return undefined;
    const added = extraSubresources[`${resource.definition.group}/${resource.definition.plural}`];
    if (added === undefined || added.length === 0) return resource;
    let view = extended.get(resource);
    if (view === undefined) {
      view = { ...resource, subresources: new Map([...(resource.subresources ?? []), ...added.map((s) => [s.name, s] as const)]) };
      extended.set(resource, view);
    }
    return view;
  };
  let base: readonly RestResource[] | undefined;
  let merged: readonly RestResource[] = [];
  return {
    get resources() {
      const current = registry.resources;
      if (current !== base) {
        base = current;
        merged = [...current.map((r) => withSubresources(r)!), ...extra];
      }
      return merged;
    },
    lookup: (group, version, plural) => byKey.get(key(group, version, plural)) ?? withSubresources(registry.lookup(group, version, plural)),
    register: (definition) => registry.register(definition),
    unregister: (group, plural) => registry.unregister(group, plural),
    subscribe: (listener) => registry.subscribe(listener),
    ensureSystemNamespaces: () => registry.ensureSystemNamespaces(),
    serviceNetwork: registry.serviceNetwork,
  };
}
