/**
 * The registry plus resources the apiserver serves itself (the review APIs: create-only,
 * nothing stored). Everything else is delegated; `resources` lists the extra ones after the
 * registry's, and discovery orders groups as kube does.
 */
import type { Registry, RestResource } from '@kapi/registry';

export function withExtraResources(registry: Registry, extra: readonly RestResource[]): Registry {
  const key = (group: string, version: string, plural: string) => `${group}/${version}/${plural}`;
  const byKey = new Map(extra.map((r) => [key(r.definition.group, r.version, r.definition.plural), r]));
  let base: readonly RestResource[] | undefined;
  let merged: readonly RestResource[] = [];
  return {
    get resources() {
      const current = registry.resources;
      if (current !== base) {
        base = current;
        merged = [...current, ...extra];
      }
      return merged;
    },
    lookup: (group, version, plural) => byKey.get(key(group, version, plural)) ?? registry.lookup(group, version, plural),
    register: (definition) => registry.register(definition),
    unregister: (group, plural) => registry.unregister(group, plural),
    subscribe: (listener) => registry.subscribe(listener),
    ensureSystemNamespaces: () => registry.ensureSystemNamespaces(),
    serviceNetwork: registry.serviceNetwork,
  };
}
