/**
 * What kube's typed JSON decoder (encoding/json as sigs.k8s.io/json runs it) refuses when
 * it decodes a body into the Go type a schema describes, with its error text: kube answers
 * such a body 400 (`<Kind> in version "v1" cannot be handled as a <Kind>: <text>`) before
 * any validation, and nothing it stores can fail to decode in a Go client. The Go types are
 * read from the schema, so every kind whose schema is written with them inherits the checks:
 *
 * - `integer` with `format: int32`/`int64` (a non-integer, or a value out of range);
 *   `number` with `float`/`double`; `string` (`format: byte`: base64); `boolean`; objects
 *   with `properties` are structs, with `additionalProperties` maps; arrays are slices.
 * - `$ref`s to the well-known types decode with their own parsers
 *   (typed-decode-well-known.ts): meta/v1 Time (RFC 3339) and MicroTime (six fraction
 *   digits), resource.Quantity, intstr.IntOrString, apiextensions' schema types; FieldsV1,
 *   RawExtension and JSON take any JSON.
 * - The Go type names messages print come from the definition names (`v1.LeaseSpec` for
 *   `io.k8s.api.coordination.v1.LeaseSpec`) or from `x-kapi-go-type` (named scalar types
 *   such as `types.UID`, structs written inline). `x-kapi-decode-as` names the definition a
 *   node decodes as where its published schema stays open (a CRD's openAPIV3Schema).
 *
 * Go's rules are followed: a null is never an error; a type mismatch is remembered and
 * decoding goes on (the first one is reported), while a well-known type's error stops
 * decoding at once; messages name the innermost struct and the JSON field path
 * (`json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.metadata.generation of type int64`).
 *
 * Numbers arrive as doubles (the literal text is gone), so a number prints as JavaScript
 * writes it (1e+29, 9223372036854776000); a value whose literal Go would refuse but whose
 * double is an integer (1.0, 1e2) is accepted. An int64 must lie strictly between -2^63
 * and 2^63 as a double: what is accepted is stored as a decimal Go reads back as an int64
 * (beyond 2^53 rounded to the nearest double). Pure; never throws.
 */
import { base64ErrorOffset } from './go-base64.js';
import { goNumberText, jsonKind, nonFiniteNumberError, numberFits, type GoNumberType } from './go-json-values.js';
import { isPlainObject } from './object.js';
import type { JSONSchemaProps } from './schema.js';
import { refName, type SchemaDefinitions } from './schema-resolve.js';
import { decodeWellKnown, WELL_KNOWN, WELL_KNOWN_TYPES, type Failure } from './typed-decode-well-known.js';

export { isInt64, goNumberText, nonFiniteNumberError } from './go-json-values.js';
export { WELL_KNOWN_TYPES } from './typed-decode-well-known.js';

/** The schema keyword naming a node's Go type where the definition name cannot (kapi-only; not published). */
export const GO_TYPE_KEYWORD = 'x-kapi-go-type';
/** The schema keyword naming the definition a node decodes as while its published schema stays open (kapi-only). */
export const DECODE_AS_KEYWORD = 'x-kapi-decode-as';

export interface TypedDecodeOptions {
  /** Targets of `$ref` and `x-kapi-decode-as`. */
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

type ScalarType = 'string' | 'bytes' | 'bool' | GoNumberType;

type Shape =
  | { kind: 'any' }
  | { kind: 'wellKnown'; name: string }
  | { kind: 'scalar'; type: ScalarType; goType: string }
  | { kind: 'struct'; goType: string; properties: Record<string, JSONSchemaProps> }
  | { kind: 'map'; goType: string; element: JSONSchemaProps }
  | { kind: 'slice'; goType: string; element: JSONSchemaProps };

interface Context {
  /** The innermost Go struct being decoded. */
  readonly struct: string;
  /** The JSON field names from the root (array indexes and map keys are not part of it, as in Go). */
  readonly fields: readonly string[];
}

/** A failure where it happened. */
interface Located {
  readonly failure: Failure;
  readonly at: Context;
}

/** A stop: a well-known type's error ends decoding. */
class Abort {
  constructor(readonly located: Located) {}
}

/** The definition a node names: `x-kapi-decode-as`, its `$ref`, or the `$ref` of its only `allOf` member. */
function referenceOf(schema: JSONSchemaProps): string | undefined {
  const decodeAs = (schema as Record<string, unknown>)[DECODE_AS_KEYWORD];
  if (typeof decodeAs === 'string') return decodeAs;
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

/** Go's UnmarshalTypeError text: `json: cannot unmarshal <what> into Go struct field <Struct>.<path> of type <type>`. */
function render({ failure, at }: Located): string {
  if ('text' in failure) return failure.text;
  return at.fields.length > 0
    ? `json: cannot unmarshal ${failure.what} into Go struct field ${at.struct}.${at.fields.join('.')} of type ${failure.goType}`
    : `json: cannot unmarshal ${failure.what} into Go value of type ${failure.goType}`;
}

/** Shapes by definitions, then by schema node (schemas are never changed once built). */
const shapeCache = new WeakMap<object, WeakMap<JSONSchemaProps, Shape>>();
const NO_DEFINITIONS = {};

class Decoder {
  /** The first type mismatch (Go's savedError). */
  private saved: Located | undefined;
  private readonly shapes: WeakMap<JSONSchemaProps, Shape>;

  constructor(private readonly options: TypedDecodeOptions) {
    const key = options.definitions ?? NO_DEFINITIONS;
    let shapes = shapeCache.get(key);
    if (shapes === undefined) shapeCache.set(key, (shapes = new WeakMap()));
    this.shapes = shapes;
  }

  /** Decodes `value` as `schema` (a struct, or a slice of it when `slice`); the first failure, located. */
  run(value: unknown, schema: JSONSchemaProps, slice = false): Located | undefined {
    const at = { struct: this.options.rootStruct, fields: [] };
    try {
      if (!slice) this.decodeStruct(value, schema, at, this.options.rootStruct);
      else if (!Array.isArray(value)) this.remember({ what: jsonKind(value), goType: `[]${this.options.rootStruct}` }, at);
      else for (const item of value) this.decodeStruct(item, schema, at, this.options.rootStruct);
    } catch (err) {
      if (err instanceof Abort) return err.located;
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
    const named = typeof hint === 'string' ? hint : undefined;
    const ref = referenceOf(schema);
    if (ref !== undefined) {
      if (WELL_KNOWN.has(ref)) return { kind: 'wellKnown', name: ref };
      const target = this.options.definitions?.[ref];
      if (target === undefined || depth > 32) return { kind: 'any' };
      const shape = this.computeShape(target, depth + 1);
      return shape.kind === 'struct' ? { ...shape, goType: named ?? goTypeOfDefinition(ref) } : shape;
    }
    if (schema['x-kubernetes-int-or-string'] === true) return { kind: 'wellKnown', name: WELL_KNOWN_TYPES.intOrString };
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

  private remember(failure: Failure, at: Context): void {
    this.saved ??= { failure, at };
  }

  private keys(value: Record<string, unknown>): string[] {
    const keys = Object.keys(value);
    return this.options.sortedKeys === true ? keys.sort() : keys;
  }

  private decode(value: unknown, schema: JSONSchemaProps, at: Context): void {
    if (value === null || value === undefined) return;
    const shape = this.shapeOf(schema);
    switch (shape.kind) {
      case 'any': {
        const text = nonFiniteNumberError(value);
        if (text !== undefined) throw new Abort({ failure: { text }, at });
        return;
      }
      case 'wellKnown': {
        const failure = decodeWellKnown(value, shape.name, (inner, name, slice) => this.nested(inner, name, slice));
        if (failure !== undefined) throw new Abort({ failure, at });
        return;
      }
      case 'scalar':
        return this.decodeScalar(value, shape.type, shape.goType, at);
      case 'struct':
        return this.decodeStruct(value, schema, at, shape.goType);
      case 'map':
        if (!isPlainObject(value)) return this.remember({ what: jsonKind(value), goType: shape.goType }, at);
        for (const key of this.keys(value)) this.decode(value[key], shape.element, at);
        return;
      case 'slice':
        if (!Array.isArray(value)) return this.remember({ what: jsonKind(value), goType: shape.goType }, at);
        for (const item of value) this.decode(item, shape.element, at);
        return;
    }
  }

  /** A custom UnmarshalJSON's inner json.Unmarshal into the definition `name`: a fresh decoder, its failure unlocated. */
  private nested(value: unknown, name: string, slice = false): Failure | undefined {
    const schema = this.options.definitions?.[name];
    if (schema === undefined) return undefined;
    return new Decoder({ ...this.options, rootStruct: goTypeOfDefinition(name) }).run(value, schema, slice)?.failure;
  }

  private decodeStruct(value: unknown, schema: JSONSchemaProps, at: Context, goType: string): void {
    if (value === null || value === undefined) return;
    const shape = this.shapeOf(schema);
    if (!isPlainObject(value)) return this.remember({ what: jsonKind(value), goType }, at);
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
        if (typeof value !== 'string') this.remember({ what: jsonKind(value), goType }, at);
        return;
      case 'bytes': {
        // Go also decodes a []byte from an array of numbers; kapi stores bodies as they are
        // and every reader expects base64 text, so only the text form is taken.
        if (typeof value !== 'string') return this.remember({ what: jsonKind(value), goType }, at);
        // Go saves base64's own error, without field context.
        const offset = base64ErrorOffset(value);
        if (offset !== undefined) this.remember({ text: `illegal base64 data at input byte ${offset}` }, at);
        return;
      }
      case 'bool':
        if (typeof value !== 'boolean') this.remember({ what: jsonKind(value), goType }, at);
        return;
      default:
        if (typeof value !== 'number') return this.remember({ what: jsonKind(value), goType }, at);
        if (!numberFits(value, type)) this.remember({ what: `number ${goNumberText(value)}`, goType }, at);
    }
  }
}

/**
 * The error kube's typed decoder reports for `value` decoded into the struct `schema`
 * describes (see the module comment), or undefined when it decodes. Null and absent
 * values always decode; fields the schema does not know are skipped (unknown-field
 * handling is separate).
 */
export function typedDecodeError(value: unknown, schema: JSONSchemaProps, options: TypedDecodeOptions): string | undefined {
  const located = new Decoder(options).run(value, schema);
  return located === undefined ? undefined : render(located);
}
