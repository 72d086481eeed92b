/**
 * Go's `omitempty` for the built-in kinds: kube decodes them into Go structs, whose empty
 * maps and slices are never written back (an empty `labels: {}` or `finalizers: []` is the
 * same as none). Structs are kept (`spec: {}` stays, as kube returns it).
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { isPlainObject, resolveSchema, type SchemaDefinitions } from '@kapi/machinery';

function isEmptyCollection(value: unknown, schema: JSONSchemaProps): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (!isPlainObject(value) || Object.keys(value).length > 0) return false;
  // A map (additionalProperties) is omitted when empty; a struct is not.
  return schema.additionalProperties !== undefined && schema.properties === undefined;
}

/** Removes, in place, the empty maps and lists of `value` that `schema` types as such. */
export function omitEmptyCollections(value: unknown, rawSchema: JSONSchemaProps | undefined, definitions: SchemaDefinitions): void {
  if (rawSchema === undefined) return;
  const schema = resolveSchema(rawSchema, definitions);
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const item of value) omitEmptyCollections(item, schema.items, definitions);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    const child = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (child === undefined) continue;
    const resolved = resolveSchema(child, definitions);
    if (isEmptyCollection(value[key], resolved)) delete value[key];
    else omitEmptyCollections(value[key], resolved, definitions);
  }
}
