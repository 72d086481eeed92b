/**
 * OpenAPI schema → declared CEL type, kube's way (k8s.io/apiserver/pkg/cel/common/schemas.go
 * SchemaDeclType): properties become fields under their escaped names, additionalProperties a
 * map, items a list, formats byte/duration/date/date-time become bytes/duration/timestamp,
 * x-kubernetes-int-or-string is dyn. A node without a type (other than int-or-string) has no
 * CEL type: its field is not declared. Sizes come from maxLength/maxItems/maxProperties, or
 * from the request size limit when absent.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import {
  BoolType, DoubleType, IntType, JSON_DATE_SIZE, MAX_DATETIME_SIZE_JSON, MAX_DURATION_SIZE_JSON,
  MIN_DATETIME_SIZE_JSON, MIN_DURATION_SIZE_JSON, MIN_STRING_SIZE, StringType, listType, mapType,
  objectType, sizedType, stringType, type DeclField, type DeclType,
} from './decl-type.js';
import { escapePropertyName } from './escaping.js';
import { MAX_REQUEST_SIZE_BYTES } from './limits.js';

export interface SchemaTypeOptions {
  /** The schema is the root of a resource: apiVersion, kind, metadata.name/generateName are declared. */
  readonly isResourceRoot?: boolean;
  /** Overrides the request size limit that bounds unsized values (kube: 3 MiB). */
  readonly maxRequestSizeBytes?: number;
}

const memo = new WeakMap<JSONSchemaProps, Map<string, DeclType | undefined>>();

/**
 * The declared CEL type of a schema node, or undefined when kube gives it none. Memoised per
 * schema object (schemas are treated as immutable): the same schema gives the same DeclType,
 * so compiled programs are reused (program-cache.ts).
 */
export function declTypeFromSchema(schema: JSONSchemaProps | undefined, options: SchemaTypeOptions = {}): DeclType | undefined {
  if (!schema) return undefined;
  const root = options.isResourceRoot ?? false;
  const max = options.maxRequestSizeBytes ?? MAX_REQUEST_SIZE_BYTES;
  const key = `${root}:${max}`;
  const bySchema = memo.get(schema) ?? memo.set(schema, new Map()).get(schema)!;
  if (bySchema.has(key)) return bySchema.get(key);
  const t = convert(schema, root, max);
  bySchema.set(key, t);
  return t;
}

const nonNegative = (n: number): number => (n < 0 ? 0 : n);

function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = { ...(s.properties ?? {}) };
  properties['apiVersion'] = { type: 'string' };
  properties['kind'] = { type: 'string' };
  properties['metadata'] = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
  return { ...s, type: 'object', properties };
}

function maxStringLength(s: JSONSchemaProps, max: number): number {
  if (s['x-kubernetes-int-or-string']) return max - 2;
  switch (s.format) {
    case 'duration': return MAX_DURATION_SIZE_JSON;
    case 'date': return JSON_DATE_SIZE;
    case 'date-time': return MAX_DATETIME_SIZE_JSON;
    default: return max - 2;
  }
}

function maxEnumLength(s: JSONSchemaProps): number {
  let longest = 0;
  for (const e of s.enum ?? []) if (typeof e === 'string' && Buffer.byteLength(e) > longest) longest = Buffer.byteLength(e);
  return longest;
}

function convert(s: JSONSchemaProps | undefined, isResourceRoot: boolean, max: number): DeclType | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) return sizedType('dyn', 1, max - 2);
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = convert(s.items, s.items['x-kubernetes-embedded-resource'] ?? false, max);
      if (!items) return undefined;
      const maxItems = s.maxItems !== undefined ? nonNegative(s.maxItems) : Math.floor((max - 2) / (items.minSerializedSize + 1));
      return listType(items, maxItems, s['x-kubernetes-list-type'], s['x-kubernetes-list-map-keys']);
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === 'object') {
        const values = convert(ap, ap['x-kubernetes-embedded-resource'] ?? false, max);
        if (!values) return undefined;
        const maxProperties = s.maxProperties !== undefined ? nonNegative(s.maxProperties) : Math.floor((max - 2) / (values.minSerializedSize + 6));
        return mapType(StringType, values, maxProperties);
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, DeclField>();
      let minSerializedSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const type = convert(prop, prop['x-kubernetes-embedded-resource'] ?? false, max);
        if (!type) continue;
        const escaped = escapePropertyName(name);
        if (escaped !== undefined) fields.set(escaped, Object.freeze({ name: escaped, jsonName: name, type, required: required.has(name) }));
        if (required.has(name) && prop.default === undefined) minSerializedSize += name.length + type.minSerializedSize + 4;
      }
      return objectType(fields, minSerializedSize, isResourceRoot);
    }
    case 'string':
      switch (s.format) {
        case 'byte': return sizedType('bytes', MIN_STRING_SIZE, s.maxLength !== undefined ? nonNegative(s.maxLength) : maxStringLength(s, max));
        case 'duration': return sizedType('duration', MIN_DURATION_SIZE_JSON, maxStringLength(s, max));
        case 'date': return sizedType('timestamp', JSON_DATE_SIZE, maxStringLength(s, max));
        case 'date-time': return sizedType('timestamp', MIN_DATETIME_SIZE_JSON, maxStringLength(s, max));
      }
      if (s.maxLength !== undefined) return stringType(nonNegative(s.maxLength) * 4, s.format);
      if (s.enum && s.enum.length > 0) return stringType(maxEnumLength(s), s.format);
      return stringType(maxStringLength(s, max), s.format);
    case 'boolean': return BoolType;
    case 'number': return DoubleType;
    case 'integer': return IntType;
  }
  return undefined;
}
