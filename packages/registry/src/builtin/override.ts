/**
 * Hand-written behaviour of built-in resources lives in one folder per API group
 * (groups/<group>/) as overrides of the generic catalogue definition.
 */
import type { ResourceDefinition } from '../definition.js';

/**
 * Turns the generated definition of a resource into the one kapi serves: adds a strategy,
 * printer columns, field selectors, extra versions with their conversions... Pure: returns
 * a new definition, never changes `generated`.
 */
export type ResourceOverride = (generated: ResourceDefinition) => ResourceDefinition;

/** A group's overrides by resource (plural). */
export type GroupOverrides = Readonly<Record<string, ResourceOverride>>;

/** An override that merges `behaviour` over the generated definition. */
export function withBehaviour(behaviour: Partial<ResourceDefinition>): ResourceOverride {
  return (generated) => ({ ...generated, ...behaviour });
}

/** An override that also declares the fields the watch cache indexes (definition.ts `indexedFields`). */
export function withIndexedFields(fields: readonly string[], override: ResourceOverride): ResourceOverride {
  return (generated) => ({ ...override(generated), indexedFields: fields });
}
