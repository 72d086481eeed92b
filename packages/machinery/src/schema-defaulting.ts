/**
 * Structural defaulting (apiextensions defaulting algorithm): fills in `default` values of
 * absent properties and of nulls where the schema is not nullable.
 */
import { deepCopy, isPlainObject } from './object.js';
import type { JSONSchemaProps } from './schema.js';
import { resolveSchema, type SchemaDefinitions } from './schema-resolve.js';

export interface DefaultingOptions {
  /** Targets of `$ref`, keyed by definition name. */
  definitions?: SchemaDefinitions;
}

function isNonNullableNull(value: unknown, schema: JSONSchemaProps | undefined): boolean {
  return value === null && schema !== undefined && schema.nullable !== true;
}

function applyAt(value: unknown, rawSchema: JSONSchemaProps | undefined, definitions: SchemaDefinitions | undefined): void {
  if (rawSchema === undefined) return;
  const schema = resolveSchema(rawSchema, definitions);
  if (isPlainObject(value)) {
    const properties = schema.properties ?? {};
    for (const [key, raw] of Object.entries(properties)) {
      const property = resolveSchema(raw, definitions);
      if (property.default === undefined) continue;
      if (!Object.prototype.hasOwnProperty.call(value, key) || isNonNullableNull(value[key], property)) {
        value[key] = deepCopy(property.default);
      }
    }
    const additional = typeof schema.additionalProperties === 'object' ? resolveSchema(schema.additionalProperties, definitions) : undefined;
    for (const key of Object.keys(value)) {
      if (Object.prototype.hasOwnProperty.call(properties, key)) {
        applyAt(value[key], properties[key], definitions);
      } else if (additional !== undefined) {
        if (isNonNullableNull(value[key], additional) && additional.default !== undefined) value[key] = deepCopy(additional.default);
        applyAt(value[key], additional, definitions);
      }
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    const items = resolveSchema(schema.items, definitions);
    value.forEach((item, i) => {
      if (isNonNullableNull(item, items) && items.default !== undefined) value[i] = deepCopy(items.default);
      applyAt(value[i], items, definitions);
    });
  }
}

/**
 * Sets, in place, each absent property that has a `default` (and each non-nullable null
 * property, map value or array item) to a copy of its default, recursing into objects,
 * maps and arrays. Returns `value` for convenience. Never throws.
 */
export function applyDefaults<T>(value: T, schema: JSONSchemaProps, opts: DefaultingOptions = {}): T {
  applyAt(value, schema, opts.definitions);
  return value;
}
