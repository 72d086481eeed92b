/**
 * What kube's typed JSON decoder (encoding/json as sigs.k8s.io/json runs it) refuses when
 * it decodes a body into the Go type a schema describes, with its error text: kube answers
 * such a body 400 (`<Kind> in version "v1" cannot be handled as a <Kind>: <text>`) before
 * any validation, and nothing it stores can fail to decode in a Go client. The Go types are
 * read from the schema, so every kind whose schema is written with them inherits the checks:
 *
 * - `integer` with `format: int32`/`int64` (a non-integer, or a value out of range);
 *   `number` with `float`/`double`; `string`; `boolean`; objects with `properties` are
 *   structs, with `additionalProperties` maps; arrays are slices.
 * - `$ref`s to the well-known types decode with their own parsers: meta/v1 Time (RFC 3339)
 *   and MicroTime (RFC 3339 with six fraction digits), resource.Quantity, intstr.IntOrString;
 *   meta/v1 FieldsV1 and runtime.RawExtension take any JSON.
 * - The Go type names messages print come from the definition names (`v1.LeaseSpec` for
 *   `io.k8s.api.coordination.v1.LeaseSpec`) or from `x-kapi-go-type` (named scalar types
 *   such as `types.UID`, structs written inline).
 *
 * Go's rules are followed: a null is never an error; a type mismatch is remembered and
 * decoding goes on (the first one is reported), while a well-known type's parse error stops
 * decoding at once; messages name the innermost struct and the JSON field path
 * (`json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.metadata.generation of type int64`).
 *
 * Numbers arrive as doubles (the literal text is gone), so a number prints as JavaScript
 * writes it (1e+29, 9223372036854776000); a value whose literal Go would refuse but whose
 * double is an integer (1.0, 1e2) is accepted. An int64 must lie strictly between -2^63
 * and 2^63 as a double: what is accepted is stored as a decimal Go reads back as an int64
 * (beyond 2^53 rounded to the nearest double). Pure; never throws.
 */
import { isPlainObject } from './object.js';
import { base64ErrorOffset } from './go-base64.js';
import { goTimeParseError } from './go-time.js';
import { quantityParseError } from './quantity.js';
import type { JSONSchemaProps } from './schema.js';
import { refName, type SchemaDefinitions } from './schema-resolve.js';

/** The schema keyword naming a node's Go type where the definition name cannot (kapi-only; not published). */
export const GO_TYPE_KEYWORD = 'x-kapi-go-type';

/** OpenAPI names of the types whose own UnmarshalJSON decides what they accept. */
const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const WELL_KNOWN_TYPES = {
  time: `${META_V1}Time`,
  microTime: `${META_V1}MicroTime`,
  fieldsV1: `${META_V1}FieldsV1`,
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
} as const;

export interface TypedDecodeOptions {
  /** Targets of `$ref`. */
  definitions?: SchemaDefinitions;
  /** The Go struct the value decodes into (e.g. `ConfigMap`, or `ObjectMeta` for metadata alone). */
  rootStruct: string;
  /**
   * Decode object keys in sorted order instead of document order (kube re-encodes a custom
   * resource's metadata from a Go map before decoding it, so its first error follows the
   * sorted keys).
   */
  sortedKeys?: boolean;
}

/** How a JSON value is named in `cannot unmarshal <value>` (numbers: with their text where Go has it). */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isPlainObject(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return 'string';
}

/** A number as messages print it (the literal is gone; JavaScript's shortest form is Go's float formatting too). */
export function goNumberText(value: number): string {
  return String(value);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_BOUND = 2 ** 63;
const FLOAT32_MAX = 3.4028234663852886e38;

/** Whether `value` is an integer an int64 holds and that is stored as a decimal Go reads back as one. */
export function isInt64(value: number): boolean {
  return Number.isInteger(value) && value > -INT64_BOUND && value < INT64_BOUND;
}

type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'float32' | 'float64';

type Shape =
  | { kind: 'any' }
  | { kind: 'wellKnown'; name: string }
  | { kind: 'scalar'; type: ScalarType; goType: string }
  | { kind: 'struct'; goType: string; properties: Record<string, JSONSchemaProps> }
  | { kind: 'map'; goType: string; element: JSONSchemaProps }
  | { kind: 'slice'; goType: string; element: JSONSchemaProps };

/** A stop: a well-known type's parse error ends decoding. */
class Abort {
  constructor(readonly message: string) {}
}

/** The `$ref` a node names, directly or as its only `allOf` member (how a description sits beside a reference). */
function referenceOf(schema: JSONSchemaProps): string | undefined {
  if (schema.$ref !== undefined) return refName(schema.$ref);
  const only = schema.allOf?.length === 1 ? schema.allOf[0] : undefined;
  return only?.$ref !== undefined ? refName(only.$ref) : undefined;
}

/** `io.k8s.api.coordination.v1.LeaseSpec` → `v1.LeaseSpec` (Go's package.Type). */
function goTypeOfDefinition(name: string): string {
  const parts = name.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : name;
}

/** The struct name in a Go type (`v1.LeaseSpec` → `LeaseSpec`). */
function structName(goType: string): string {
  return goType.slice(goType.lastIndexOf('.') + 1);
}

const WELL_KNOWN = new Set<string>(Object.values(WELL_KNOWN_TYPES));

/** Shapes by definitions, then by schema node (schemas are never changed once built). */
const shapeCache = new WeakMap<object, WeakMap<JSONSchemaProps, Shape>>();
const NO_DEFINITIONS = {};

class Decoder {
  /** The first type mismatch (Go's savedError). */
  private saved: string | undefined;
  private readonly shapes: WeakMap<JSONSchemaProps, Shape>;

  constructor(private readonly options: TypedDecodeOptions) {
    const key = options.definitions ?? NO_DEFINITIONS;
    let shapes = shapeCache.get(key);
    if (shapes === undefined) shapeCache.set(key, (shapes = new WeakMap()));
    this.shapes = shapes;
  }

  run(value: unknown, schema: JSONSchemaProps): string | undefined {
    try {
      this.decodeStruct(value, schema, { struct: this.options.rootStruct, fields: [] }, this.options.rootStruct);
    } catch (err) {
      if (err instanceof Abort) return err.message;
      throw err;
    }
    return this.saved;
  }

  private shapeOf(schema: JSONSchemaProps, depth = 0): Shape {
    let shape = this.shapes.get(schema);
    if (shape === undefined) {
      shape = this.computeShape(schema, depth);
      this.shapes.set(schema, shape);
    }
    return shape;
  }

  private computeShape(schema: JSONSchemaProps, depth: number): Shape {
    const hint = (schema as Record<string, unknown>)[GO_TYPE_KEYWORD];
    const ref = referenceOf(schema);
    if (ref !== undefined) {
      if (WELL_KNOWN.has(ref)) return { kind: 'wellKnown', name: ref };
      const target = this.options.definitions?.[ref];
      if (target === undefined || depth > 32) return { kind: 'any' };
      const shape = this.computeShape(target, depth + 1);
      return shape.kind === 'struct' ? { ...shape, goType: typeof hint === 'string' ? hint : goTypeOfDefinition(ref) } : shape;
    }
    if (schema['x-kubernetes-int-or-string'] === true) return { kind: 'wellKnown', name: WELL_KNOWN_TYPES.intOrString };
    const named = typeof hint === 'string' ? hint : undefined;
    switch (schema.type) {
      case 'string':
        return schema.format === 'byte' ? { kind: 'scalar', type: 'bytes', goType: named ?? '[]uint8' } : { kind: 'scalar', type: 'string', goType: named ?? 'string' };
      case 'boolean':
        return { kind: 'scalar', type: 'bool', goType: named ?? 'bool' };
      case 'integer': {
        const type = schema.format === 'int32' ? 'int32' : 'int64';
        return { kind: 'scalar', type, goType: named ?? type };
      }
      case 'number': {
        const type = schema.format === 'float' ? 'float32' : 'float64';
        return { kind: 'scalar', type, goType: named ?? type };
      }
      case 'array': {
        const element = schema.items ?? {};
        return { kind: 'slice', goType: named ?? `[]${this.goTypeOf(element, depth + 1)}`, element };
      }
      case 'object':
        if (schema.properties !== undefined) return { kind: 'struct', goType: named ?? '', properties: schema.properties };
        if (isPlainObject(schema.additionalProperties)) {
          const element = schema.additionalProperties;
          return { kind: 'map', goType: named ?? `map[string]${this.goTypeOf(element, depth + 1)}`, element };
        }
        return { kind: 'any' };
      default:
        return { kind: 'any' };
    }
  }

  /** The Go type name of a node, as composite type names print it. */
  private goTypeOf(schema: JSONSchemaProps, depth: number): string {
    const ref = referenceOf(schema);
    if (ref !== undefined && (WELL_KNOWN.has(ref) || this.options.definitions?.[ref] !== undefined)) return goTypeOfDefinition(ref);
    const shape = this.shapeOf(schema, depth);
    return shape.kind === 'any' || shape.kind === 'wellKnown' ? 'interface {}' : shape.goType;
  }

  private mismatch(value: unknown, goType: string, at: Context): void {
    this.saved ??= typeError(jsonKind(value), goType, at);
  }

  private keys(value: Record<string, unknown>): string[] {
    const keys = Object.keys(value);
    return this.options.sortedKeys === true ? keys.sort() : keys;
  }

  private decode(value: unknown, schema: JSONSchemaProps, at: Context): void {
    if (value === null || value === undefined) return;
    const shape = this.shapeOf(schema);
    switch (shape.kind) {
      case 'any':
        checkFinite(value);
        return;
      case 'wellKnown': {
        const outcome = decodeWellKnown(value, shape.name);
        if (outcome === undefined) return;
        throw new Abort('error' in outcome ? outcome.error : typeError(outcome.mismatch, outcome.goType, at));
      }
      case 'scalar':
        this.decodeScalar(value, shape.type, shape.goType, at);
        return;
      case 'struct':
        this.decodeStruct(value, schema, at, shape.goType);
        return;
      case 'map':
        if (!isPlainObject(value)) return this.mismatch(value, shape.goType, at);
        for (const key of this.keys(value)) this.decode(value[key], shape.element, at);
        return;
      case 'slice':
        if (!Array.isArray(value)) return this.mismatch(value, shape.goType, at);
        for (const item of value) this.decode(item, shape.element, at);
        return;
    }
  }

  private decodeStruct(value: unknown, schema: JSONSchemaProps, at: Context, goType: string): void {
    if (value === null || value === undefined) return;
    const shape = this.shapeOf(schema);
    if (!isPlainObject(value)) return this.mismatch(value, goType, at);
    const properties = shape.kind === 'struct' ? shape.properties : {};
    const struct = structName(goType) || at.struct;
    for (const key of this.keys(value)) {
      const property = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
      // Go skips fields its type does not have (unknown-field handling is separate).
      if (property === undefined) continue;
      this.decode(value[key], property, { struct, fields: [...at.fields, key] });
    }
  }

  private decodeScalar(value: unknown, type: ScalarType, goType: string, at: Context): void {
    switch (type) {
      case 'string':
        if (typeof value !== 'string') this.mismatch(value, goType, at);
        return;
      case 'bytes': {
        if (typeof value !== 'string') return this.mismatch(value, goType, at);
        // Go saves base64's own error, without field context.
        const offset = base64ErrorOffset(value);
        if (offset !== undefined) this.saved ??= `illegal base64 data at input byte ${offset}`;
        return;
      }
      case 'bool':
        if (typeof value !== 'boolean') this.mismatch(value, goType, at);
        return;
      default:
        if (typeof value !== 'number') return this.mismatch(value, goType, at);
        if (!numberFits(value, type)) this.saved ??= typeError(`number ${goNumberText(value)}`, goType, at);
    }
  }
}

/** Go's UnmarshalTypeError text: `json: cannot unmarshal <what> into Go struct field <Struct>.<path> of type <type>`. */
function typeError(what: string, goType: string, at: Context): string {
  return at.fields.length > 0
    ? `json: cannot unmarshal ${what} into Go struct field ${at.struct}.${at.fields.join('.')} of type ${goType}`
    : `json: cannot unmarshal ${what} into Go value of type ${goType}`;
}

interface Context {
  /** The innermost Go struct being decoded. */
  readonly struct: string;
  /** The JSON field names from the root (array indexes and map keys are not part of it, as in Go). */
  readonly fields: readonly string[];
}

function numberFits(value: number, type: Exclude<ScalarType, 'string' | 'bytes' | 'bool'>): boolean {
  switch (type) {
    case 'int32':
      return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
    case 'int64':
      return isInt64(value);
    case 'float32':
      return Number.isFinite(value) && Math.abs(value) <= FLOAT32_MAX;
    case 'float64':
      return Number.isFinite(value);
  }
}

/** A number JSON.parse could only hold as ±Infinity (its literal overflows a double): Go refuses it anywhere. */
function checkFinite(value: unknown): void {
  const error = nonFiniteNumberError(value);
  if (error !== undefined) throw new Abort(error);
}

/**
 * `json: cannot unmarshal number … into Go value of type float64` when `value` holds a
 * number beyond the double range anywhere (kube's error decoding it into interface{});
 * otherwise undefined.
 */
export function nonFiniteNumberError(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return `json: cannot unmarshal number ${goNumberText(node)} into Go value of type float64`;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (isPlainObject(node)) {
      for (const item of Object.values(node)) stack.push(item);
    }
  }
  return undefined;
}

/** Go's strings.TrimSpace: Unicode White_Space at both ends. */
function goTrimSpace(text: string): string {
  return text.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g, '');
}

/**
 * What a well-known type's UnmarshalJSON says about `value`: nothing, a parse error (no
 * field context), or a type mismatch from its inner json.Unmarshal (which Go reports with
 * the field's context). Either stops decoding.
 */
type WellKnownOutcome = undefined | { error: string } | { mismatch: string; goType: string };

function decodeWellKnown(value: unknown, name: string): WellKnownOutcome {
  switch (name) {
    case WELL_KNOWN_TYPES.time:
    case WELL_KNOWN_TYPES.microTime: {
      if (typeof value !== 'string') return { mismatch: jsonKind(value), goType: 'string' };
      const error = goTimeParseError(value, name === WELL_KNOWN_TYPES.time ? 'RFC3339' : 'RFC3339Micro');
      return error === undefined ? undefined : { error };
    }
    case WELL_KNOWN_TYPES.quantity: {
      // The raw JSON text (quotes stripped, spaces trimmed) is parsed: anything but a string or a number fails.
      if (typeof value === 'number' && !Number.isFinite(value)) return { error: nonFiniteNumberError(value)! };
      const text = typeof value === 'string' ? goTrimSpace(value) : typeof value === 'number' ? goNumberText(value) : '{';
      const error = quantityParseError(text);
      return error === undefined ? undefined : { error };
    }
    case WELL_KNOWN_TYPES.intOrString:
      if (typeof value === 'string') return undefined;
      if (typeof value !== 'number') return { mismatch: jsonKind(value), goType: 'int32' };
      return numberFits(value, 'int32') ? undefined : { mismatch: `number ${goNumberText(value)}`, goType: 'int32' };
    default: {
      const error = nonFiniteNumberError(value);
      return error === undefined ? undefined : { error };
    }
  }
}

/**
 * The error kube's typed decoder reports for `value` decoded into the struct `schema`
 * describes (see the module comment), or undefined when it decodes. Null and absent
 * values always decode; fields the schema does not know are skipped (unknown-field
 * handling is separate) except that a number beyond the double range fails anywhere.
 */
export function typedDecodeError(value: unknown, schema: JSONSchemaProps, options: TypedDecodeOptions): string | undefined {
  return new Decoder(options).run(value, schema);
}
