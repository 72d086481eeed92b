/**
 * Resolving `$ref` and `allOf` in structural schemas, shared by validation, pruning and
 * defaulting. Pure; never throws (an unknown reference resolves to "no constraints").
 */
import type { JSONSchemaProps } from './schema.js';

/** Named schemas a `$ref` may point at, keyed by the last segment of the reference. */
export type SchemaDefinitions = Readonly<Record<string, JSONSchemaProps>>;

/** Keywords some schemas carry beyond JSONSchemaProps; read, never required. */
export interface ExtraSchemaKeywords {
  minProperties?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  uniqueItems?: boolean;
}

export type ValidatableSchema = JSONSchemaProps & ExtraSchemaKeywords;

/** `#/components/schemas/X`, `#/definitions/X` and `X` all name `X`. */
export function refName(ref: string): string {
  const slash = ref.lastIndexOf('/');
  return slash >= 0 ? ref.slice(slash + 1) : ref;
}

const MAX_REF_DEPTH = 32;

/**
 * The schema with `$ref` replaced by its target (sibling keywords win over the target's)
 * and `allOf` members merged in. Properties merge shallowly; `required` lists concatenate.
 */
export function resolveSchema(schema: JSONSchemaProps, definitions: SchemaDefinitions | undefined, depth = 0): ValidatableSchema {
  if (depth > MAX_REF_DEPTH) return schema;
  if (schema.$ref === undefined && (schema.allOf === undefined || schema.allOf.length === 0)) return schema;
  if (depth !== 0) return resolveUncached(schema, definitions, depth);
  // Schemas and definitions are never changed once built (a new CRD version brings new
  // objects), so a top-level resolution is computed once per pair: validation, defaulting
  // and pruning resolve the same nodes on every write.
  let byDefinitions = resolvedCache.get(schema);
  if (byDefinitions === undefined) resolvedCache.set(schema, (byDefinitions = new WeakMap()));
  const defsKey = definitions ?? NO_DEFINITIONS;
  let resolved = byDefinitions.get(defsKey);
  if (resolved === undefined) {
    resolved = resolveUncached(schema, definitions, depth);
    byDefinitions.set(defsKey, resolved);
  }
  return resolved;
}

/** Top-level resolutions by schema, then by definitions (results are shared: read-only). */
const resolvedCache = new WeakMap<JSONSchemaProps, WeakMap<object, ValidatableSchema>>();
const NO_DEFINITIONS = {};

function resolveUncached(schema: JSONSchemaProps, definitions: SchemaDefinitions | undefined, depth: number): ValidatableSchema {
  let resolved: ValidatableSchema = schema;
  if (schema.$ref !== undefined) {
    const target = definitions?.[refName(schema.$ref)];
    const { $ref: _ref, ...siblings } = schema;
    resolved = target === undefined ? siblings : mergeSchemas(resolveSchema(target, definitions, depth + 1), siblings);
  }
  if (resolved.allOf !== undefined && resolved.allOf.length > 0) {
    const { allOf, ...rest } = resolved;
    let merged: ValidatableSchema = {};
    for (const member of allOf) merged = mergeSchemas(merged, resolveSchema(member, definitions, depth + 1));
    resolved = mergeSchemas(merged, rest);
  }
  return resolved;
}

function mergeSchemas(base: ValidatableSchema, over: ValidatableSchema): ValidatableSchema {
  const out: ValidatableSchema = { ...base, ...over };
  if (base.properties !== undefined || over.properties !== undefined) {
    out.properties = { ...base.properties, ...over.properties };
  }
  if (base.required !== undefined || over.required !== undefined) {
    out.required = [...new Set([...(base.required ?? []), ...(over.required ?? [])])];
  }
  return out;
}
