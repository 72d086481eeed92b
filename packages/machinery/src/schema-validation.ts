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

/**
 * A schema node compiled for validation: resolved once, its keywords read into one fixed
 * shape (schemas from JSON have many shapes, and reading a dozen keywords from each node on
 * every write was most of a small object's validation), its children compiled on first use.
 * Plans hang off the root's (by schema and definitions): schemas are never changed once
 * validated against, as resolveSchema's cache also assumes.
 */
class Plan {
  readonly schema: ValidatableSchema;
  /** A null or absent value is a type error (unless nullIsZero). */
  readonly nullFails: boolean;
  readonly intOrString: boolean;
  readonly type: string | undefined;
  readonly expected: string;
  readonly checksStrings: boolean;
  readonly checksNumbers: boolean;
  readonly checksArrays: boolean;
  readonly enumValues: readonly unknown[] | undefined;
  private itemsPlan: Plan | undefined;
  private additionalPlan: Plan | undefined;
  /** The property schemas' plans by name (null: not compiled yet). */
  private propertyPlans: Map<string, Plan | null> | undefined;

  constructor(
    raw: JSONSchemaProps,
    private readonly definitions: SchemaDefinitions | undefined,
  ) {
    const schema = resolveSchema(raw, definitions);
    this.schema = schema;
    this.intOrString = schema['x-kubernetes-int-or-string'] === true;
    this.type = schema.type;
    this.nullFails = schema.nullable !== true && (schema.type !== undefined || this.intOrString);
    this.expected = expectedType(schema);
    this.checksStrings = schema.maxLength !== undefined || schema.minLength !== undefined || schema.pattern !== undefined;
    this.checksNumbers = schema.multipleOf !== undefined || schema.maximum !== undefined || schema.minimum !== undefined;
    this.checksArrays = schema.items !== undefined || schema.minItems !== undefined || schema.maxItems !== undefined || schema.uniqueItems === true;
    this.enumValues = schema.enum !== undefined && schema.enum.length > 0 ? schema.enum : undefined;
  }

  /** typeMatches, from the compiled keywords. */
  typeMatches(actual: string): boolean {
    if (this.intOrString) return actual === 'integer' || actual === 'string';
    if (this.type === undefined) return true;
    if (this.type === 'number') return actual === 'number' || actual === 'integer';
    return this.type === actual;
  }

  items(): Plan {
    return (this.itemsPlan ??= new Plan(this.schema.items!, this.definitions));
  }

  /** The plan of `key`'s own property schema, or undefined. */
  property(key: string): Plan | undefined {
    let plans = this.propertyPlans;
    if (plans === undefined) {
      plans = new Map();
      const properties = this.schema.properties ?? {};
      for (const name of Object.keys(properties)) if (properties[name] !== undefined) plans.set(name, null);
      this.propertyPlans = plans;
    }
    const plan = plans.get(key);
    if (plan !== null) return plan;
    const compiled = new Plan(this.schema.properties![key]!, this.definitions);
    plans.set(key, compiled);
    return compiled;
  }

  additional(): Plan {
    return (this.additionalPlan ??= new Plan(this.schema.additionalProperties as JSONSchemaProps, this.definitions));
  }
}

/** Root plans by schema, then by definitions. */
const plans = new WeakMap<JSONSchemaProps, WeakMap<object, Plan>>();
const NO_DEFINITIONS = {};

function rootPlan(schema: JSONSchemaProps, definitions: SchemaDefinitions | undefined): Plan {
  let byDefinitions = plans.get(schema);
  if (byDefinitions === undefined) plans.set(schema, (byDefinitions = new WeakMap()));
  const key = definitions ?? NO_DEFINITIONS;
  let plan = byDefinitions.get(key);
  if (plan === undefined) byDefinitions.set(key, (plan = new Plan(schema, definitions)));
  return plan;
}

class Validator {
  readonly errors: FieldError[] = [];
  constructor(
    private readonly ignoreRequired: boolean,
    private readonly nullIsZero = false,
  ) {}

  validate(value: unknown, plan: Plan, path: string): void {
    if (value === null || value === undefined) {
      if (plan.nullFails && !(value === null && this.nullIsZero)) {
        this.errors.push(fieldTypeInvalid(path, 'null', `${path} in body must be of type ${plan.expected}: "null"`));
      }
      return;
    }
    const actual = jsonTypeName(value);
    if (!plan.typeMatches(actual)) {
      this.errors.push(fieldTypeInvalid(path, actual, `${path} in body must be of type ${plan.expected}: "${actual}"`));
      return;
    }
    if (typeof value === 'string') {
      if (plan.checksStrings) this.validateString(value, plan.schema, path);
    } else if (typeof value === 'number') {
      if (plan.checksNumbers) this.validateNumber(value, plan.schema, path);
    } else if (Array.isArray(value)) {
      if (plan.checksArrays) this.validateArray(value, plan, path);
    }
    if (plan.enumValues !== undefined && !plan.enumValues.some((e) => deepEqual(e, value))) {
      const allowed = plan.enumValues.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
      this.errors.push(fieldNotSupported(path, value, allowed));
    }
    if (isPlainObject(value)) this.validateObject(value, plan, path);
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

  private validateArray(value: unknown[], plan: Plan, path: string): void {
    const schema = plan.schema;
    if (schema.items !== undefined) {
      const items = plan.items();
      for (let i = 0; i < value.length; i++) this.validate(value[i], items, `${path}[${i}]`);
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

  private validateObject(value: Record<string, unknown>, plan: Plan, path: string): void {
    const schema = plan.schema;
    const keys = Object.keys(value);
    const count = keys.length;
    if (schema.minProperties !== undefined && count < schema.minProperties) {
      this.errors.push(fieldInvalid(path, count, `${path} in body should have at least ${schema.minProperties} properties`));
    }
    if (schema.maxProperties !== undefined && count > schema.maxProperties) {
      this.errors.push(fieldTooMany(path, count, schema.maxProperties));
    }
    // kube-openapi goes on to the properties after a property-count failure (it reports both).
    const additional = schema.additionalProperties;
    for (const key of keys) {
      const property = plan.property(key);
      if (property !== undefined) this.validate(value[key], property, childPath(path, key));
      else if (additional === false) {
        this.errors.push(fieldInvalid(path, key, `${childPath(path, key)} in body is a forbidden property`));
      } else if (additional !== undefined && additional !== true) {
        this.validate(value[key], plan.additional(), childPath(path, key));
      }
    }
    if (!this.ignoreRequired && schema.required !== undefined) {
      for (const key of schema.required) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) this.errors.push(fieldRequired(childPath(path, key)));
      }
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
  const validator = new Validator(opts.ignoreRequired === true, opts.nullIsZero === true);
  validator.validate(value, rootPlan(schema, opts.definitions), path);
  return validator.errors;
}
