/**
 * The merge semantics of a structural schema, as structured-merge-diff derives them from
 * OpenAPI (kube-openapi's schemaconv): every schema node becomes an atom that may be a
 * scalar, a list (atomic, or associative: a set without keys or a map-list with keys) and/or
 * a map (atomic or granular; struct fields plus an element type for other keys).
 *
 * Rules: `x-kubernetes-list-type` atomic|set|map (+ `x-kubernetes-list-map-keys`); without
 * it, `x-kubernetes-patch-strategy: merge` means a set, or a map-list on
 * `x-kubernetes-patch-merge-key`, and `retainKeys` means atomic; lists are atomic by
 * default. `x-kubernetes-map-type` atomic|granular (maps are granular by default), also on a
 * field that refers to a named type. An object without properties or additionalProperties,
 * or with `x-kubernetes-preserve-unknown-fields`, holds "deduced" values (maps granular,
 * lists atomic). A node without a type is scalar, list and map at once; the value decides.
 * Pure; atoms are cached per schema object.
 */
import type { JSONSchemaProps } from '../schema.js';
import { refName, type SchemaDefinitions } from '../schema-resolve.js';

export interface ListAtom {
  readonly relationship: 'atomic' | 'associative';
  /** Map-list keys; empty for sets. */
  readonly keys: readonly string[];
  readonly element: () => Atom;
  /** Defaults of the key fields (kube fills a missing key from its default). */
  readonly keyDefaults: ReadonlyMap<string, unknown>;
}

export interface MapAtom {
  readonly relationship: 'atomic' | 'granular';
  readonly fields: ReadonlyMap<string, () => Atom>;
  /** The type of keys that are not fields; undefined: such keys are not allowed. */
  readonly element: (() => Atom) | undefined;
}

export interface Atom {
  readonly scalar?: true;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

const untypedList: ListAtom = { relationship: 'atomic', keys: [], element: () => UNTYPED, keyDefaults: new Map() };
/** Any value, always atomic. */
export const UNTYPED: Atom = {
  scalar: true,
  list: untypedList,
  map: { relationship: 'atomic', fields: new Map(), element: () => UNTYPED },
};
/** Any value; maps are granular (recursively deduced), lists atomic. */
export const DEDUCED: Atom = {
  scalar: true,
  list: untypedList,
  map: { relationship: 'granular', fields: new Map(), element: () => DEDUCED },
};

/** The atom the value selects (kube's deduceAtom): a list value uses the list part, and so on. */
export function atomFor(atom: Atom, value: unknown): Atom {
  if (value === null || value === undefined) return atom;
  if (Array.isArray(value)) return atom.list !== undefined ? { list: atom.list } : atom;
  if (typeof value === 'object') return atom.map !== undefined ? { map: atom.map } : atom;
  return atom.scalar !== undefined ? { scalar: true } : atom;
}

interface Converter {
  readonly definitions: SchemaDefinitions | undefined;
  readonly named: Map<string, Atom>;
  readonly inline: WeakMap<JSONSchemaProps, Atom>;
}

const convertersByDefinitions = new WeakMap<object, Converter>();
const NO_DEFINITIONS = {};

function converterFor(definitions: SchemaDefinitions | undefined): Converter {
  const key = definitions ?? NO_DEFINITIONS;
  let c = convertersByDefinitions.get(key);
  if (c === undefined) {
    c = { definitions, named: new Map(), inline: new WeakMap() };
    convertersByDefinitions.set(key, c);
  }
  return c;
}

/** The atom of a (whole-object) schema whose `$ref`s point into `definitions`. */
export function schemaAtom(schema: JSONSchemaProps, definitions?: SchemaDefinitions): Atom {
  return typeRef(converterFor(definitions), schema, false)();
}

/**
 * Named types whose atom kube fixes whatever their schema says (schemaconv's hard-coded
 * ones): a runtime.RawExtension (a ControllerRevision's `data`) is one opaque value, owned
 * as a whole.
 */
const FIXED_ATOMS: ReadonlyMap<string, Atom> = new Map([['io.k8s.apimachinery.pkg.runtime.RawExtension', UNTYPED]]);

function namedAtom(c: Converter, name: string): Atom {
  const fixed = FIXED_ATOMS.get(name);
  if (fixed !== undefined) return fixed;
  const cached = c.named.get(name);
  if (cached !== undefined) return cached;
  const target = c.definitions?.[name];
  if (target === undefined) {
    c.named.set(name, DEDUCED);
    return DEDUCED;
  }
  // Placeholder first: named types may refer to themselves.
  const atom: { scalar?: true; list?: ListAtom; map?: MapAtom } = {};
  c.named.set(name, atom);
  Object.assign(atom, parseSchema(c, target, false));
  return atom;
}

function withMapRelationship(atom: Atom, relationship: 'atomic' | 'granular'): Atom {
  return atom.map === undefined ? atom : { ...atom, map: { ...atom.map, relationship } };
}

/** A lazy reference to the atom of a property/items schema. */
function typeRef(c: Converter, schema: JSONSchemaProps, preserve: boolean): () => Atom {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 && schema.allOf[0]!.$ref !== undefined ? schema.allOf[0]!.$ref : undefined);
  if (ref !== undefined) {
    const name = refName(ref);
    const mapType = schema['x-kubernetes-map-type'];
    let memo: Atom | undefined;
    return () => {
      if (memo === undefined) {
        const atom = namedAtom(c, name);
        memo = mapType === 'atomic' || mapType === 'granular' ? withMapRelationship(atom, mapType) : atom;
      }
      return memo;
    };
  }
  let memo: Atom | undefined;
  return () => {
    if (memo === undefined) {
      memo = preserve ? undefined : c.inline.get(schema);
      if (memo === undefined) {
        memo = parseSchema(c, schema, preserve);
        if (!preserve) c.inline.set(schema, memo);
      }
    }
    return memo;
  };
}

function parseSchema(c: Converter, schema: JSONSchemaProps, inheritedPreserve: boolean): Atom {
  const preserve = inheritedPreserve || schema['x-kubernetes-preserve-unknown-fields'] === true;
  switch (schema.type) {
    case undefined:
      return { scalar: true, list: parseList(c, schema, preserve), map: parseObject(c, schema, preserve) };
    case 'object':
      return { map: parseObject(c, schema, preserve) };
    case 'array':
      return { list: parseList(c, schema, preserve) };
    default:
      return { scalar: true };
  }
}

function parseObject(c: Converter, schema: JSONSchemaProps, preserve: boolean): MapAtom {
  const fields = new Map<string, () => Atom>();
  for (const [name, prop] of Object.entries(schema.properties ?? {})) fields.set(name, typeRef(c, prop, preserve));
  let element: (() => Atom) | undefined;
  const additional = schema.additionalProperties;
  if (additional === undefined) {
    element = preserve || fields.size === 0 ? () => DEDUCED : undefined;
  } else if (typeof additional === 'object') {
    element = typeRef(c, additional, preserve);
  } else {
    element = additional ? () => DEDUCED : undefined;
  }
  const mapType = schema['x-kubernetes-map-type'];
  return { relationship: mapType === 'atomic' ? 'atomic' : 'granular', fields, element };
}

function parseList(c: Converter, schema: JSONSchemaProps, preserve: boolean): ListAtom {
  let relationship: 'atomic' | 'associative' = 'atomic';
  let keys: readonly string[] = [];
  const listType = schema['x-kubernetes-list-type'];
  const strategy = schema['x-kubernetes-patch-strategy'];
  if (listType !== undefined) {
    if (listType === 'set') relationship = 'associative';
    else if (listType === 'map') {
      relationship = 'associative';
      keys = schema['x-kubernetes-list-map-keys'] ?? [];
    }
  } else if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    relationship = 'associative';
    const mergeKey = schema['x-kubernetes-patch-merge-key'];
    if (mergeKey !== undefined) keys = [mergeKey];
  }
  const element = schema.items !== undefined ? typeRef(c, schema.items, preserve) : () => UNTYPED;
  const keyDefaults = new Map<string, unknown>();
  if (keys.length > 0 && schema.items !== undefined) {
    // Defaults of key fields, read from the item schema (inline or one level of $ref).
    const items = schema.items;
    const props = items.properties ?? (items.$ref !== undefined ? c.definitions?.[refName(items.$ref)]?.properties : undefined) ??
      (items.allOf?.[0]?.$ref !== undefined ? c.definitions?.[refName(items.allOf[0].$ref)]?.properties : undefined);
    for (const key of keys) {
      const d = props?.[key]?.default;
      if (d !== undefined) keyDefaults.set(key, d);
    }
  }
  return { relationship, keys, element, keyDefaults };
}
