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
  /**
   * A stored object in the storage form: `stored` itself when it is, else a converted copy
   * (an object stored by another version, or by kube-apiserver in the version it writes).
   */
  normalize(stored: KubeObject): KubeObject;
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
    const reader = definition.storedVersionReaders?.[stored.apiVersion];
    if (reader !== undefined) {
      const obj = reader(deepCopy(stored));
      obj.apiVersion = storageApiVersion;
      obj.kind = kind;
      return { obj, copied: true };
    }
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
    normalize(stored) {
      return normalized(stored).obj;
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

const TYPE_META = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * How top-level fields named `names` in objects of `apiVersion` are named after `convert`
 * (only the ones that differ), found by converting a probe object: kube converts managed
 * field sets between versions by converting objects, and the built-in conversions here
 * only rename or move top-level fields. Fields without a home keep their names.
 */
function probeRenames(definition: ResourceDefinition, apiVersion: string, names: readonly string[], convert: (obj: KubeObject) => KubeObject): Map<string, string> {
  const probe: KubeObject = { apiVersion, kind: definition.kind, metadata: {} };
  names.forEach((name, i) => (probe[name] = { __kapiProbe: i }));
  const renames = new Map<string, string>();
  for (const [key, value] of Object.entries(convert(probe))) {
    const i = (value as { __kapiProbe?: unknown } | null)?.__kapiProbe;
    if (typeof i === 'number' && names[i] !== key) renames.set(names[i]!, key);
  }
  return renames;
}

const hooked = (v: VersionDefinition) => v.fromStorage !== undefined || v.toStorage !== undefined;
const fieldNames = (v: VersionDefinition) => Object.keys(v.schema.properties ?? {}).filter((n) => !TYPE_META.has(n));

interface ManagedFieldsEntry {
  apiVersion?: unknown;
  fieldsV1?: unknown;
  [key: string]: unknown;
}

function renameFieldSet(fieldsV1: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (typeof fieldsV1 !== 'object' || fieldsV1 === null || Array.isArray(fieldsV1)) return fieldsV1;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fieldsV1)) {
    const renamed = key.startsWith('f:') ? renames.get(key.slice(2)) : undefined;
    out[renamed === undefined ? key : `f:${renamed}`] = value;
  }
  return out;
}

/**
 * Managed field sets across versions: entries written through another version W name W's
 * fields. Before tracking a write in the served version V they are renamed to V's names
 * (`toServed`), afterwards back to their own version's (`fromServed`), so ownership and
 * conflicts follow a field through its renames while each entry keeps the apiVersion it
 * was written with (as kube's managed fields do). Only top-level renames are followed.
 */
export interface ManagedFieldsConversion {
  /** Replaces `obj.metadata` and its managedFields (never mutating the old ones) with V's names. */
  toServed(obj: KubeObject): void;
  /** The reverse, for entries of other versions (after tracking; the writer's own entry is V's). */
  fromServed(obj: KubeObject): void;
}

/**
 * undefined when no other version names a field differently. `cohabitants`: other groups'
 * definitions over the same stored objects (events.k8s.io for core events), whose writers'
 * entries may sit on the objects too.
 */
export function managedFieldsConversion(
  definition: ResourceDefinition,
  version: VersionDefinition,
  cohabitants: readonly ResourceDefinition[] = [],
): ManagedFieldsConversion | undefined {
  const servedApiVersion = formatApiVersion(definition.group, version.name);
  const toV = new Map<string, ReadonlyMap<string, string>>();
  const add = (apiVersion: string, renames: Map<string, string>) => {
    if (renames.size > 0 && !toV.has(apiVersion)) toV.set(apiVersion, renames);
  };
  const served = versionConversion(definition, version);
  for (const other of definition.versions) {
    if (other.name === version.name || (!hooked(other) && !hooked(version))) continue;
    const apiVersion = formatApiVersion(definition.group, other.name);
    add(apiVersion, probeRenames(definition, apiVersion, fieldNames(other), (o) => served.toServed(versionConversion(definition, other).toStorage(o))));
  }
  // Entries written as the storage form's apiVersion when no version of this definition has it (core v1 for events.k8s.io).
  if (hooked(version)) {
    const storageNames = Object.keys(served.toStorage(Object.fromEntries([['metadata', {}], ...fieldNames(version).map((n) => [n, {}])]) as KubeObject)).filter((n) => !TYPE_META.has(n));
    add(served.storageApiVersion, probeRenames(definition, served.storageApiVersion, storageNames, (o) => served.toServed(o)));
  }
  for (const other of cohabitants) {
    if (storageApiVersionOf(other) !== served.storageApiVersion) continue;
    for (const w of other.versions) {
      const apiVersion = formatApiVersion(other.group, w.name);
      add(apiVersion, probeRenames(other, apiVersion, fieldNames(w), (o) => served.toServed(versionConversion(other, w).toStorage(o))));
    }
  }
  if (toV.size === 0) return undefined;
  const fromV = new Map([...toV].map(([apiVersion, renames]) => [apiVersion, new Map([...renames].map(([a, b]) => [b, a]))]));
  const convert = (obj: KubeObject, maps: ReadonlyMap<string, ReadonlyMap<string, string>>): void => {
    const entries = obj.metadata.managedFields;
    if (!Array.isArray(entries)) return;
    let changed = false;
    const next = (entries as ManagedFieldsEntry[]).map((entry) => {
      const renames = typeof entry?.apiVersion === 'string' && entry.apiVersion !== servedApiVersion ? maps.get(entry.apiVersion) : undefined;
      if (renames === undefined) return entry;
      changed = true;
      return { ...entry, fieldsV1: renameFieldSet(entry.fieldsV1, renames) };
    });
    if (changed) obj.metadata = { ...obj.metadata, managedFields: next as typeof obj.metadata.managedFields };
  };
  return { toServed: (obj) => convert(obj, toV), fromServed: (obj) => convert(obj, fromV) };
}
