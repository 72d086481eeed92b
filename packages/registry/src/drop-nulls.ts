import type { JSONSchemaProps, SchemaDefinitions } from '@kapi/machinery';
import { DECODE_AS_KEYWORD, isPlainObject, refName, resolveSchema, WELL_KNOWN_TYPES } from '@kapi/machinery';

/** Types whose JSON kube keeps as raw bytes (RawExtension, apiextensions' JSON): a null in them stays. */
const OPAQUE = new Set<string>([WELL_KNOWN_TYPES.rawExtension, WELL_KNOWN_TYPES.json]);

/** isOpaque by schema node (schemas are never changed once built). */
const opaque = new WeakMap<JSONSchemaProps, boolean>();

function isOpaque(schema: JSONSchemaProps): boolean {
  let found = opaque.get(schema);
  if (found === undefined) {
    const decodeAs = (schema as Record<string, unknown>)[DECODE_AS_KEYWORD];
    const ref = typeof decodeAs === 'string' ? decodeAs : schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]!.$ref : undefined);
    found = ref !== undefined && OPAQUE.has(refName(ref));
    opaque.set(schema, found);
  }
  return found;
}

/**
 * Removes, in place, every object property whose value is `null`, recursively (arrays keep
 * their positions; null items stay). Built-in kinds are decoded into typed structs by kube,
 * where a JSON null is the same as an absent field; this gives the same result. With the
 * kind's `schema`, the inside of a RawExtension or JSON field (ControllerRevision `data`) is
 * left as sent: kube keeps those bytes verbatim, and controllers compare them byte for byte
 * (a DaemonSet's or StatefulSet's template patch carries `"creationTimestamp":null`).
 */
export function dropNulls(value: unknown, schema?: JSONSchemaProps, definitions?: SchemaDefinitions): void {
  if (typeof value !== 'object' || value === null) return;
  if (schema !== undefined && isOpaque(schema)) return;
  const resolved = schema === undefined ? undefined : resolveSchema(schema, definitions);
  if (Array.isArray(value)) {
    for (const item of value) dropNulls(item, resolved?.items, definitions);
  } else if (isPlainObject(value)) {
    const additional = typeof resolved?.additionalProperties === 'object' ? resolved.additionalProperties : undefined;
    for (const key of Object.keys(value)) {
      if (value[key] === null) delete value[key];
      else dropNulls(value[key], resolved?.properties?.[key] ?? additional, definitions);
    }
  }
}
