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

/** What defaulting needs of one object schema, worked out once per schema and definitions. */
interface ObjectPlan {
  readonly properties: Readonly<Record<string, JSONSchemaProps>>;
  /** The properties that carry a default, in the schema's order, resolved. */
  readonly defaulted: readonly { readonly key: string; readonly property: JSONSchemaProps }[];
  /** additionalProperties when it is a schema, resolved. */
  readonly additional: JSONSchemaProps | undefined;
}

const NO_PROPERTIES: Readonly<Record<string, JSONSchemaProps>> = Object.freeze({});
const NO_DEFINITIONS = {};
// Schemas and definitions are not changed once built (see resolveSchema), so the walk over a
// schema's properties for their defaults is done once, not at every object of every write.
const plans = new WeakMap<JSONSchemaProps, WeakMap<object, ObjectPlan>>();

function objectPlan(schema: JSONSchemaProps, definitions: SchemaDefinitions | undefined): ObjectPlan {
  let byDefinitions = plans.get(schema);
  if (byDefinitions === undefined) plans.set(schema, (byDefinitions = new WeakMap()));
  const defsKey = definitions ?? NO_DEFINITIONS;
  let plan = byDefinitions.get(defsKey);
  if (plan === undefined) {
    const properties = schema.properties ?? NO_PROPERTIES;
    const defaulted: { key: string; property: JSONSchemaProps }[] = [];
    for (const [key, raw] of Object.entries(properties)) {
      const property = resolveSchema(raw, definitions);
      if (property.default !== undefined) defaulted.push({ key, property });
    }
    const additional = typeof schema.additionalProperties === 'object' ? resolveSchema(schema.additionalProperties, definitions) : undefined;
    plan = { properties, defaulted, additional };
    byDefinitions.set(defsKey, plan);
  }
  return plan;
}

function applyAt(value: unknown, rawSchema: JSONSchemaProps | undefined, definitions: SchemaDefinitions | undefined): void {
  if (rawSchema === undefined) return;
  const schema = resolveSchema(rawSchema, definitions);
  if (isPlainObject(value)) {
    const { properties, defaulted, additional } = objectPlan(schema, definitions);
    for (const { key, property } of defaulted) {
      if (!Object.prototype.hasOwnProperty.call(value, key) || isNonNullableNull(value[key], property)) {
        value[key] = deepCopy(property.default);
      }
    }
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
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items) && items.default !== undefined) value[i] = deepCopy(items.default);
      applyAt(value[i], items, definitions);
    }
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
