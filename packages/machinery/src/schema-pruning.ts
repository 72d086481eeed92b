/**
 * Structural pruning (apiextensions pruning algorithm): drops fields a schema does not
 * describe and reports their paths, so the registry can answer
 * `strict decoding error: unknown field "spec.foo"` (fieldValidation=Strict), warn (Warn)
 * or drop silently (Ignore).
 */
import { isPlainObject } from './object.js';
import type { JSONSchemaProps } from './schema.js';
import { resolveSchema, type SchemaDefinitions } from './schema-resolve.js';

export interface PruneOptions {
  /** Targets of `$ref`, keyed by definition name. */
  definitions?: SchemaDefinitions;
  /**
   * Whether `value` is a whole object (default true): like an embedded resource, its
   * `apiVersion`, `kind` and `metadata` are kept whatever the schema says.
   */
  root?: boolean;
  /** The field path of `value`; '' (default) for the root. */
  path?: string;
}

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function propertyPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

class Pruner {
  readonly pruned: string[] = [];
  constructor(private readonly definitions: SchemaDefinitions | undefined) {}

  prune(value: unknown, rawSchema: JSONSchemaProps | undefined, path: string, embedded: boolean): void {
    const schema = rawSchema === undefined ? undefined : resolveSchema(rawSchema, this.definitions);
    const isEmbedded = embedded || schema?.['x-kubernetes-embedded-resource'] === true;
    const preserve = schema?.['x-kubernetes-preserve-unknown-fields'] === true;
    if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        if (isEmbedded && META_FIELDS.has(key)) continue;
        const property = schema?.properties !== undefined && Object.prototype.hasOwnProperty.call(schema.properties, key)
          ? schema.properties[key]
          : undefined;
        const additional = schema?.additionalProperties;
        if (property !== undefined) {
          this.prune(value[key], property, propertyPath(path, key), false);
        } else if (additional !== undefined && additional !== false) {
          const child = additional === true ? { 'x-kubernetes-preserve-unknown-fields': true } : additional;
          this.prune(value[key], child, `${path}[${key}]`, false);
        } else if (!preserve) {
          this.pruned.push(propertyPath(path, key));
          delete value[key];
        }
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => this.prune(item, schema?.items ?? (preserve ? { 'x-kubernetes-preserve-unknown-fields': true } : undefined), `${path}[${i}]`, false));
    }
  }
}

/**
 * Removes, in place, every object field `schema` does not describe, and returns the
 * removed fields' paths (`spec.foo`, `spec.items[0].bar`, `data[key].x`) in the order met.
 * Fields under `x-kubernetes-preserve-unknown-fields: true` are kept (known fields below
 * them are still pruned recursively); `additionalProperties` admits any key; embedded
 * resources (and the root object) keep apiVersion, kind and metadata. Never throws.
 */
export function pruneUnknownFields(value: unknown, schema: JSONSchemaProps, opts: PruneOptions = {}): string[] {
  const pruner = new Pruner(opts.definitions);
  pruner.prune(value, schema, opts.path ?? '', opts.root ?? true);
  return pruner.pruned;
}
