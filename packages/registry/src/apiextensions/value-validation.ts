/**
 * What the machinery schema validator leaves out and custom resources need (kube-openapi
 * checks them for CRs): the value-validation junctors `anyOf`, `oneOf` and `not`, and string
 * `format`s. Junctors reuse the machinery validator per branch (kube's texts:
 * `"spec.x" must validate at least one schema (anyOf)`); formats are checked by ajv's format
 * validators (`spec.at in body must be of type date-time: "x"`). Formats kube does not know
 * are ignored, as kube ignores them.
 */
import Ajv from 'ajv';
import type { FieldError, JSONSchemaProps } from '@kapi/machinery';
import { fieldInvalid, fieldTypeInvalid, isPlainObject, validateAgainstSchema, appendErrors } from '@kapi/machinery';

type Node = JSONSchemaProps & { anyOf?: JSONSchemaProps[]; oneOf?: JSONSchemaProps[]; not?: JSONSchemaProps };

/** ajv checks one string against one format; compiled validators are cached by format. */
const ajv = new Ajv({ format: 'full' });
const AJV_FORMATS = new Set(['date-time', 'date', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid']);
const formatCheckers = new Map<string, (value: string) => boolean>();
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function checkFormat(format: string, value: string): boolean | undefined {
  if (format === 'byte') return BASE64.test(value);
  const name = format === 'datetime' ? 'date-time' : format;
  if (!AJV_FORMATS.has(name)) return undefined;
  let checker = formatCheckers.get(name);
  if (checker === undefined) {
    const compiled = ajv.compile({ type: 'string', format: name });
    checker = (v) => compiled(v) === true;
    formatCheckers.set(name, checker);
  }
  return checker(value);
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Every error of `value` against `schema`: the machinery validator's plus junctors and formats. */
function allErrors(value: unknown, schema: JSONSchemaProps, path: string): FieldError[] {
  const errs = validateAgainstSchema(value, schema, path);
  walk(value, schema, path, errs);
  return errs;
}

function walk(value: unknown, schema: JSONSchemaProps | undefined, path: string, errs: FieldError[]): void {
  if (schema === undefined || value === undefined || value === null) return;
  const s = schema as Node;
  const label = path === '' ? '' : path;
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) {
    const results = s.anyOf.map((branch) => allErrors(value, branch, path));
    if (!results.some((r) => r.length === 0)) {
      errs.push(fieldInvalid(path, '', `${JSON.stringify(label)} must validate at least one schema (anyOf)`));
      appendErrors(errs, results.reduce((best, r) => (r.length < best.length ? r : best)));
    }
  }
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0) {
    const results = s.oneOf.map((branch) => allErrors(value, branch, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid === 0) {
      errs.push(fieldInvalid(path, '', `${JSON.stringify(label)} must validate one and only one schema (oneOf)`));
      appendErrors(errs, results.reduce((best, r) => (r.length < best.length ? r : best)));
    } else if (valid > 1) {
      errs.push(fieldInvalid(path, '', `${JSON.stringify(label)} must validate one and only one schema (oneOf). Found ${valid} valid alternatives`));
    }
  }
  if (isPlainObject(s.not) && allErrors(value, s.not, path).length === 0) {
    errs.push(fieldInvalid(path, '', `${JSON.stringify(label)} must not validate the schema (not)`));
  }
  for (const member of s.allOf ?? []) walk(value, member, path, errs);
  if (typeof value === 'string' && typeof s.format === 'string' && checkFormat(s.format, value) === false) {
    errs.push(fieldTypeInvalid(path, value, `${path} in body must be of type ${s.format}: ${JSON.stringify(value)}`));
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, s.items, `${path}[${i}]`, errs));
  } else if (isPlainObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      const propertySchema = s.properties?.[key] ?? (isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined);
      walk(v, propertySchema, child(path, key), errs);
    }
  }
}

/**
 * The junctor and format errors of a custom resource against its version's schema (the
 * machinery validator has reported the rest). `metadata`, `apiVersion` and `kind` are skipped.
 */
export function validateValues(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined): FieldError[] {
  if (schema === undefined) return [];
  const errs: FieldError[] = [];
  const s = schema as Node;
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'metadata' || key === 'apiVersion' || key === 'kind') continue;
    walk(value, s.properties?.[key], key, errs);
  }
  return errs;
}
