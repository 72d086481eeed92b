/**
 * The types whose own UnmarshalJSON decides what they accept, by their OpenAPI definition
 * names, for typed decoding (typed-decode.ts): meta/v1 Time and MicroTime, Quantity,
 * IntOrString, FieldsV1 and RawExtension (any JSON), and apiextensions' schema types
 * (JSON: any; JSONSchemaPropsOrArray, OrBool and OrStringArray: a JSONSchemaProps or an
 * array of them, or a bool, or an array of strings).
 *
 * Their errors stop decoding. An error of their inner json.Unmarshal is a type mismatch Go
 * reports with the context of the field holding them (`… Go struct field
 * JSONSchemaProps.spec.versions.schema.openAPIV3Schema.items of type int64`): the inner
 * field path is dropped, the inner value and type are kept.
 */
import { goTimeParseError } from './go-time.js';
import { goNumberText, goTrimSpace, jsonKind, nonFiniteNumberError, numberFits } from './go-json-values.js';
import { isPlainObject } from './object.js';
import { quantityParseError } from './quantity.js';

const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const APIEXTENSIONS_V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

/** OpenAPI names of the types whose own UnmarshalJSON decides what they accept. */
export const WELL_KNOWN_TYPES = {
  time: `${META_V1}Time`,
  microTime: `${META_V1}MicroTime`,
  fieldsV1: `${META_V1}FieldsV1`,
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
  json: `${APIEXTENSIONS_V1}JSON`,
  schemaOrArray: `${APIEXTENSIONS_V1}JSONSchemaPropsOrArray`,
  schemaOrBool: `${APIEXTENSIONS_V1}JSONSchemaPropsOrBool`,
  schemaOrStringArray: `${APIEXTENSIONS_V1}JSONSchemaPropsOrStringArray`,
} as const;

/** The definition the apiextensions schema types decode their object form into. */
export const JSON_SCHEMA_PROPS = `${APIEXTENSIONS_V1}JSONSchemaProps`;

export const WELL_KNOWN = new Set<string>(Object.values(WELL_KNOWN_TYPES));

/**
 * A decode failure: a type mismatch (Go's UnmarshalTypeError, printed with the context of
 * where it happened) or a finished message (a parse error, base64's error).
 */
export type Failure = { readonly text: string } | { readonly what: string; readonly goType: string };

/**
 * Decodes `value` afresh (a new json.Unmarshal) as the definition `name`, or as a slice of
 * it. A mismatch comes back without its inner path: the outer decoder reports it in the
 * holding field's context, as Go does.
 */
export type NestedDecode = (value: unknown, name: string, slice?: boolean) => Failure | undefined;

/** What the well-known type `name`'s UnmarshalJSON says about the non-null `value`. */
export function decodeWellKnown(value: unknown, name: string, nested: NestedDecode): Failure | undefined {
  switch (name) {
    case WELL_KNOWN_TYPES.time:
    case WELL_KNOWN_TYPES.microTime: {
      if (typeof value !== 'string') return { what: jsonKind(value), goType: 'string' };
      const text = goTimeParseError(value, name === WELL_KNOWN_TYPES.time ? 'RFC3339' : 'RFC3339Micro');
      return text === undefined ? undefined : { text };
    }
    case WELL_KNOWN_TYPES.quantity: {
      // The raw JSON text (quotes stripped, spaces trimmed) is parsed: anything but a string or a number fails.
      if (typeof value === 'number' && !Number.isFinite(value)) return { text: nonFiniteNumberError(value)! };
      const text = quantityParseError(typeof value === 'string' ? goTrimSpace(value) : typeof value === 'number' ? goNumberText(value) : '{');
      return text === undefined ? undefined : { text };
    }
    case WELL_KNOWN_TYPES.intOrString:
      if (typeof value === 'string') return undefined;
      if (typeof value !== 'number') return { what: jsonKind(value), goType: 'int32' };
      return numberFits(value, 'int32') ? undefined : { what: `number ${goNumberText(value)}`, goType: 'int32' };
    case WELL_KNOWN_TYPES.schemaOrArray:
      // Anything but an object or an array is ignored.
      if (isPlainObject(value)) return nested(value, JSON_SCHEMA_PROPS);
      if (Array.isArray(value)) return nested(value, JSON_SCHEMA_PROPS, true);
      return anyJson(value);
    case WELL_KNOWN_TYPES.schemaOrBool:
      if (isPlainObject(value)) return nested(value, JSON_SCHEMA_PROPS);
      return typeof value === 'boolean' ? undefined : { text: 'boolean or JSON schema expected' };
    case WELL_KNOWN_TYPES.schemaOrStringArray:
      if (isPlainObject(value)) return nested(value, JSON_SCHEMA_PROPS);
      if (Array.isArray(value)) {
        const item = value.find((v) => v !== null && typeof v !== 'string');
        return item === undefined ? anyJson(value) : { what: jsonKind(item), goType: 'string' };
      }
      return anyJson(value);
    default:
      return anyJson(value);
  }
}

/** Any JSON decodes, except a number beyond the double range. */
function anyJson(value: unknown): Failure | undefined {
  const text = nonFiniteNumberError(value);
  return text === undefined ? undefined : { text };
}
