/**
 * Validation of a JSON value against a structural OpenAPI v3 schema, reporting field errors
 * the way kube-apiserver reports custom-resource validation (kube-openapi's validator, its
 * errors converted by apiextensions): paths like `spec.items[0].name`, messages like
 * `Invalid value: "string": spec.replicas in body must be of type integer: "string"`.
 * Pure: never mutates the value, never throws.
 */
import { isPlainObject } from './object.js';
import { translateRe2 } from './re2.js';
import type { JSONSchemaProps } from './schema.js';
import type { FieldError } from './status.js';
import { fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTooMany, fieldTypeInvalid } from './field-error.js';
import { parseApiVersion } from './gvk.js';
import { isInt64 } from './go-json-values.js';
import { resolveSchema, type SchemaDefinitions, type ValidatableSchema } from './schema-resolve.js';

export interface SchemaValidationOptions {
  /** Targets of `$ref`, keyed by definition name. */
  definitions?: SchemaDefinitions;
  /** Leave `required` lists unchecked (typed kinds, whose required fields are checked by code); default false. */
  ignoreRequired?: boolean;
  /**
   * A null value is the zero value a Go-typed kind decodes it to, so it is never a type error
   * (stored built-in objects carry the `null` Go writes for a zero value time); default false.
   */
  nullIsZero?: boolean;
}

/** The path of a property below `path` (kube-openapi joins with `.`). */
function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** How kube-openapi names a JSON value's type in messages. */
export function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      // kube decodes a number an int64 cannot hold as a float64, which is not an integer.
      return isInt64(value as number) ? 'integer' : 'number';
    case 'object':
      return 'object';
    default:
      return typeof value;
  }
}

function typeMatches(schema: ValidatableSchema, actual: string): boolean {
  if (schema['x-kubernetes-int-or-string'] === true) return actual === 'integer' || actual === 'string';
  if (schema.type === undefined) return true;
  if (schema.type === 'number') return actual === 'number' || actual === 'integer';
  return schema.type === actual;
}

function expectedType(schema: ValidatableSchema): string {
  if (schema['x-kubernetes-int-or-string'] === true) return 'integer,string';
  return schema.type ?? '';
}

const regexCache = new Map<string, RegExp | null>();

function compilePattern(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(translateRe2(pattern), 'u'); // kube's patterns are RE2 (Go's regexp)
    } catch {
      re = null;
    }
    regexCache.set(pattern, re);
  }
  return re;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The number of code points (`[...value].length`, a lone surrogate counting as one) without building the array. */
function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

class Validator {
  readonly errors: FieldError[] = [];
  constructor(
    private readonly definitions: SchemaDefinitions | undefined,
    private readonly ignoreRequired: boolean,
    private readonly nullIsZero = false,
  ) {}

  validate(value: unknown, rawSchema: JSONSchemaProps, path: string): void {
    const schema = resolveSchema(rawSchema, this.definitions);
    if (value === null || value === undefined) {
      if (schema.nullable !== true && !(value === null && this.nullIsZero) && (schema.type !== undefined || schema['x-kubernetes-int-or-string'] === true)) {
        this.errors.push(fieldTypeInvalid(path, 'null', `${path} in body must be of type ${expectedType(schema)}: "null"`));
      }
      return;
    }
    const actual = jsonTypeName(value);
    if (!typeMatches(schema, actual)) {
      this.errors.push(fieldTypeInvalid(path, actual, `${path} in body must be of type ${expectedType(schema)}: "${actual}"`));
      return;
    }
    if (typeof value === 'string') this.validateString(value, schema, path);
    else if (typeof value === 'number') this.validateNumber(value, schema, path);
    else if (Array.isArray(value)) this.validateArray(value, schema, path);
    if (schema.enum !== undefined && schema.enum.length > 0 && !schema.enum.some((e) => deepEqual(e, value))) {
      const allowed = schema.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
      this.errors.push(fieldNotSupported(path, value, allowed));
    }
    if (isPlainObject(value)) this.validateObject(value, schema, path);
  }

  /** kube-openapi's string validator: maxLength, minLength, pattern, and only the first that fails is reported. */
  private validateString(value: string, schema: ValidatableSchema, path: string): void {
    // Counted only when a bound asks for it (ConfigMap and Secret values can be large).
    const length = schema.maxLength !== undefined || schema.minLength !== undefined ? codePointLength(value) : 0;
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      this.errors.push(fieldTooLong(path, schema.maxLength));
      return;
    }
    if (schema.minLength !== undefined && length < schema.minLength) {
      this.errors.push(fieldInvalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
      return;
    }
    if (schema.pattern !== undefined) {
      const re = compilePattern(schema.pattern);
      if (re !== null && !re.test(value)) {
        this.errors.push(fieldInvalid(path, value, `${path} in body should match '${schema.pattern}'`));
      }
    }
  }

  private validateNumber(value: number, schema: ValidatableSchema, path: string): void {
    if (schema.multipleOf !== undefined && schema.multipleOf > 0) {
      const quotient = value / schema.multipleOf;
      if (!Number.isInteger(quotient)) {
        this.errors.push(fieldInvalid(path, value, `${path} in body should be a multiple of ${schema.multipleOf}`));
      }
    }
    if (schema.maximum !== undefined) {
      if (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum) {
        const text = schema.exclusiveMaximum === true ? 'less than' : 'less than or equal to';
        this.errors.push(fieldInvalid(path, value, `${path} in body should be ${text} ${schema.maximum}`));
      }
    }
    if (schema.minimum !== undefined) {
      if (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum) {
        const text = schema.exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
        this.errors.push(fieldInvalid(path, value, `${path} in body should be ${text} ${schema.minimum}`));
      }
    }
  }

  private validateArray(value: unknown[], schema: ValidatableSchema, path: string): void {
    if (schema.items !== undefined) {
      value.forEach((item, i) => this.validate(item, schema.items!, `${path}[${i}]`));
    }
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      this.errors.push(fieldInvalid(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      this.errors.push(fieldTooMany(path, value.length, schema.maxItems));
    }
    if (schema.uniqueItems === true && value.some((x, i) => value.findIndex((y) => deepEqual(x, y)) !== i)) {
      this.errors.push(fieldInvalid(path, value, `${path} in body shouldn't contain duplicates`));
    }
  }

  private validateObject(value: Record<string, unknown>, schema: ValidatableSchema, path: string): void {
    const count = Object.keys(value).length;
    if (schema.minProperties !== undefined && count < schema.minProperties) {
      this.errors.push(fieldInvalid(path, count, `${path} in body should have at least ${schema.minProperties} properties`));
    }
    if (schema.maxProperties !== undefined && count > schema.maxProperties) {
      this.errors.push(fieldTooMany(path, count, schema.maxProperties));
    }
    // kube-openapi goes on to the properties after a property-count failure (it reports both).
    const properties = schema.properties ?? {};
    const additional = schema.additionalProperties;
    for (const [key, child] of Object.entries(value)) {
      const property = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
      if (property !== undefined) this.validate(child, property, childPath(path, key));
      else if (additional === false) {
        this.errors.push(fieldInvalid(path, key, `${childPath(path, key)} in body is a forbidden property`));
      } else if (additional !== undefined && additional !== true) {
        this.validate(child, additional, childPath(path, key));
      }
    }
    for (const key of this.ignoreRequired ? [] : (schema.required ?? [])) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) this.errors.push(fieldRequired(childPath(path, key)));
    }
    if (schema['x-kubernetes-embedded-resource'] === true) this.validateEmbedded(value, path);
  }

  /** Embedded objects need `kind` and a parseable `apiVersion`, as for custom resources. */
  private validateEmbedded(value: Record<string, unknown>, path: string): void {
    const kind = typeof value['kind'] === 'string' ? value['kind'] : '';
    const apiVersion = typeof value['apiVersion'] === 'string' ? value['apiVersion'] : '';
    if (kind === '') this.errors.push(fieldRequired(childPath(path, 'kind'), 'must not be empty'));
    if (apiVersion === '') this.errors.push(fieldRequired(childPath(path, 'apiVersion'), 'must not be empty'));
    else if (parseApiVersion(apiVersion) === undefined) {
      this.errors.push(fieldInvalid(childPath(path, 'apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    }
  }
}

/**
 * Validates `value` against `schema`. `path` is the field path of `value` ('' for the
 * root object, so top-level fields print as `spec.x`). Checks type (integer vs number,
 * int-or-string, nullable), enum, string length and pattern, numeric bounds, item and
 * property counts, required properties, items and additionalProperties recursively, and
 * apiVersion/kind of embedded resources. Unknown fields are not errors here (see
 * pruneUnknownFields). Returns the errors; an empty list means valid.
 */
export function validateAgainstSchema(
  value: unknown,
  schema: JSONSchemaProps,
  path = '',
  opts: SchemaValidationOptions = {},
): FieldError[] {
  const validator = new Validator(opts.definitions, opts.ignoreRequired === true, opts.nullIsZero === true);
  validator.validate(value, schema, path);
  return validator.errors;
}
