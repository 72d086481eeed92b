/**
 * Storage keys (DESIGN §3): `<prefix>/<storagePrefix or plural>/<namespace>/<name>`, without
 * the namespace part for cluster-scoped resources.
 */
import { badRequest, isValidPathSegmentName } from '@kapi/machinery';
import type { ResourceDefinition } from './definition.js';

export const DEFAULT_PREFIX = '/registry';

export interface KeySpace {
  /** `<prefix>/<storagePrefix or plural>`, no trailing slash. */
  readonly root: string;
  readonly namespaced: boolean;
}

export function keySpace(prefix: string, definition: Pick<ResourceDefinition, 'plural' | 'storagePrefix' | 'namespaced'>): KeySpace {
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return { root: `${trimmed}/${definition.storagePrefix ?? definition.plural}`, namespaced: definition.namespaced };
}

function checkSegment(what: 'Name' | 'Namespace', value: string): void {
  const msgs = isValidPathSegmentName(value);
  if (msgs.length > 0) throw badRequest(`${what} parameter invalid: ${JSON.stringify(value)}: ${msgs.join(';')}`);
}

/**
 * The key of one object. Throws 400 BadRequest as kube's key functions do: `Namespace
 * parameter required.`, `Name parameter required.`, or `Name parameter invalid: "a/b": ...`.
 */
export function objectKey(space: KeySpace, namespace: string, name: string): string {
  if (space.namespaced && namespace === '') throw badRequest('Namespace parameter required.');
  if (name === '') throw badRequest('Name parameter required.');
  checkSegment('Name', name);
  if (!space.namespaced) return `${space.root}/${name}`;
  checkSegment('Namespace', namespace);
  return `${space.root}/${namespace}/${name}`;
}

/** The key prefix of a collection: one namespace's objects, or all (namespace ""). */
export function collectionKey(space: KeySpace, namespace: string): string {
  if (!space.namespaced || namespace === '') return space.root;
  checkSegment('Namespace', namespace);
  return `${space.root}/${namespace}`;
}
