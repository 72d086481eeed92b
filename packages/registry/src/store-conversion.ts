/**
 * Version conversion of the generic store (kube's codec + converter, per served version).
 *
 * Every object in storage is in the *storage form*: the storage version's fields with its
 * apiVersion (or the definition's `storageApiVersion`: events.k8s.io Events are stored as core
 * v1 Events) and the definition's kind. A store serving version V converts:
 *
 * - request objects of V → storage form (`toStorage`, then storage apiVersion/kind), after
 *   decoding, unknown-field handling, defaulting and managedFields in V;
 * - stored objects → V (`fromStorage`, then V's apiVersion/kind) for every response and
 *   watch event. An object stored by another version W (a CRD whose storage version moved
 *   from W to V) is first brought to the storage form through W's `toStorage`.
 *
 * Without hooks only apiVersion/kind change (CRDs' `conversion.strategy: None`). Converted
 * objects are new objects, so caches keyed by object identity (the HTTP layer's encode-once
 * bytes) never serve one version's bytes for another.
 */
import type { KubeObject } from '@kapi/machinery';
import { deepCopy } from '@kapi/machinery';
import type { ResourceDefinition, VersionDefinition } from './definition.js';
import { formatApiVersion } from './decode-body.js';

export interface VersionConversion {
  /** apiVersion of the served version V. */
  readonly servedApiVersion: string;
  /** apiVersion of the storage form. */
  readonly storageApiVersion: string;
  readonly kind: string;
  /** The served form is the storage form (no hooks, same apiVersion): nothing to convert. */
  readonly identity: boolean;
  /**
   * The stored object in V. Never mutates `stored`; returns `stored` itself only when it is
   * already in V's form.
   */
  toServed(stored: KubeObject): KubeObject;
  /** A private object of V in the storage form; may reuse (mutate) `obj`. */
  toStorage(obj: KubeObject): KubeObject;
}

/** The storage version of `definition` (exactly one has `storage: true`). Throws (programming error) otherwise. */
export function storageVersionOf(definition: ResourceDefinition): VersionDefinition {
  const found = definition.versions.filter((v) => v.storage);
  if (found.length !== 1) throw new Error(`resource ${definition.plural}.${definition.group} must have exactly one storage version, has ${found.length}`);
  return found[0]!;
}

/** apiVersion of the storage form of `definition`. */
export function storageApiVersionOf(definition: ResourceDefinition): string {
  return definition.storageApiVersion ?? formatApiVersion(definition.group, storageVersionOf(definition).name);
}

export function versionConversion(definition: ResourceDefinition, version: VersionDefinition): VersionConversion {
  const servedApiVersion = formatApiVersion(definition.group, version.name);
  const storageApiVersion = storageApiVersionOf(definition);
  const kind = definition.kind;
  const hooked = version.fromStorage !== undefined || version.toStorage !== undefined;
  const identity = !hooked && servedApiVersion === storageApiVersion;
  // Other versions an object may still be stored in (apiVersion → its toStorage hook).
  const others = new Map<string, VersionDefinition>();
  for (const v of definition.versions) {
    const apiVersion = formatApiVersion(definition.group, v.name);
    if (apiVersion !== storageApiVersion) others.set(apiVersion, v);
  }
  const normalized = (stored: KubeObject): { obj: KubeObject; copied: boolean } => {
    if (stored.apiVersion === storageApiVersion || stored.apiVersion === undefined) return { obj: stored, copied: false };
    const from = others.get(stored.apiVersion);
    if (from?.toStorage === undefined) return { obj: stored, copied: false };
    const obj = from.toStorage(deepCopy(stored));
    obj.apiVersion = storageApiVersion;
    obj.kind = kind;
    return { obj, copied: true };
  };
  return {
    servedApiVersion,
    storageApiVersion,
    kind,
    identity,
    toServed(stored) {
      const { obj, copied } = normalized(stored);
      if (!hooked) {
        if (obj.apiVersion === servedApiVersion && obj.kind === kind) return obj;
        return copied ? Object.assign(obj, { apiVersion: servedApiVersion, kind }) : { ...obj, apiVersion: servedApiVersion, kind };
      }
      const served = version.fromStorage === undefined ? (copied ? obj : { ...obj }) : version.fromStorage(copied ? obj : deepCopy(obj));
      served.apiVersion = servedApiVersion;
      served.kind = kind;
      return served;
    },
    toStorage(obj) {
      if (identity) return obj;
      const stored = version.toStorage === undefined ? obj : version.toStorage(obj);
      stored.apiVersion = storageApiVersion;
      stored.kind = kind;
      return stored;
    },
  };
}
