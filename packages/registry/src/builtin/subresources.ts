/**
 * Built-in subresources with roles of their own, and built-in resources whose create is not
 * a stored write (`bindings`), by `<group>/<plural>`; their behaviour lives in the groups'
 * folders.
 */
import type { Creater } from '../rest.js';
import type { ResourceLookup, SubresourceFactories } from '../subresource-store.js';
import { coreResourceCreaters, coreSubresources } from '../groups/core/subresources.js';

const FACTORIES: Readonly<Record<string, SubresourceFactories>> = {
  ...prefixed('', coreSubresources),
};

const CREATERS: Readonly<Record<string, (lookup: ResourceLookup) => Creater>> = {
  ...prefixed('', coreResourceCreaters),
};

function prefixed<T>(group: string, byPlural: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(byPlural).map(([plural, value]) => [`${group}/${plural}`, value]));
}

/** The subresource factories of a built-in resource, if it has any. */
export function builtinSubresourceFactories(group: string, plural: string): SubresourceFactories | undefined {
  return FACTORIES[`${group}/${plural}`];
}

/** The creater that replaces the stored create of a built-in resource (`bindings`), if any. */
export function builtinResourceCreater(group: string, plural: string): ((lookup: ResourceLookup) => Creater) | undefined {
  return CREATERS[`${group}/${plural}`];
}
