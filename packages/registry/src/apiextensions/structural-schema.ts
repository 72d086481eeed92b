/**
 * Checks that a CRD version's openAPIV3Schema is structural (kube's ValidateStructural plus
 * the per-node checks of its OpenAPI schema validator): a `type` at every specified level,
 * object at the root, no `$ref`, no additionalProperties beside properties, metadata only
 * restricting name/generateName, x-kubernetes-* extensions used consistently. Messages and
 * paths are kube's (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`).
 */
import type { FieldError, JSONSchemaProps } from '@kapi/machinery';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, isPlainObject, validateAgainstSchema, appendErrors, translateRe2 } from '@kapi/machinery';
import { compileValidator, validateRules } from './rule-validator.js';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
type Level = 'root' | 'item' | 'field';

type Node = JSONSchemaProps & Record<string, unknown>;

function key(path: string, name: string): string {
  return `${path}[${name}]`;
}

function checkNode(s: Node, level: Level, path: string, errs: FieldError[]): void {
  if (s.$ref !== undefined) errs.push(fieldForbidden(`${path}.$ref`, '$ref is not supported'));
  if (s.type !== undefined && !TYPES.includes(s.type)) errs.push(fieldNotSupported(`${path}.type`, s.type, TYPES));
  // kube's JSONSchemaPropsOrArray ignores anything but a schema or a list of them.
  if (s.type === 'array' && !isPlainObject(s.items) && !Array.isArray(s.items)) errs.push(fieldRequired(`${path}.items`, 'must be specified'));
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldInvalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  if (s.uniqueItems === true) errs.push(fieldForbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (embedded && s.type !== 'object') {
    if (s.type === undefined) errs.push(fieldRequired(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldInvalid(`${path}.type`, s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (s.type === undefined && !intOrString && !preserve) {
    const detail = level === 'root' ? 'must not be empty at the root' : level === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(fieldRequired(`${path}.type`, detail));
  }
  if (intOrString && preserve) errs.push(fieldInvalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldInvalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (embedded && !preserve && Object.keys(s.properties ?? {}).length === 0) {
    errs.push(fieldRequired(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  if (s.additionalProperties !== undefined) {
    if (level === 'root') errs.push(fieldForbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (embedded) errs.push(fieldForbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
    if (Object.keys(s.properties ?? {}).length > 0 && (s.additionalProperties === false || isPlainObject(s.additionalProperties))) {
      errs.push(fieldForbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    if (isPlainObject(s.additionalProperties)) checkNode(s.additionalProperties as Node, 'field', `${path}.additionalProperties`, errs);
  }
  if (level === 'root' && s.type !== undefined && s.type !== 'object') errs.push(fieldInvalid(`${path}.type`, s.type, 'must be object at the root'));
  if (level === 'root' && s.nullable === true) errs.push(fieldForbidden(`${path}.nullable`, 'nullable cannot be true at the root'));
  checkListExtensions(s, path, errs);
  const checkMeta = level === 'root' || embedded;
  const props = s.properties ?? {};
  if (checkMeta) {
    for (const name of ['kind', 'apiVersion'] as const) {
      const p = props[name];
      if (p !== undefined && p.type !== 'string') errs.push(fieldInvalid(`${key(`${path}.properties`, name)}.type`, p.type ?? '', 'must be string'));
    }
    const meta = props['metadata'];
    if (meta !== undefined && meta.type !== 'object') errs.push(fieldInvalid(`${key(`${path}.properties`, 'metadata')}.type`, meta.type ?? '', 'must be object'));
  }
  if (level === 'root' && props['metadata'] !== undefined) {
    const { type: _t, properties, ...rest } = props['metadata'] as Node;
    const names = Object.keys(properties ?? {});
    const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
    const extra = Object.keys(rest).filter((k) => k !== 'description');
    if (!onlyNames || extra.length > 0) {
      errs.push(fieldForbidden(key(`${path}.properties`, 'metadata'), 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  for (const [name, child] of Object.entries(props)) {
    if (level === 'root' && name === 'metadata') continue;
    if (isPlainObject(child)) checkNode(child as Node, 'field', key(`${path}.properties`, name), errs);
  }
  if (isPlainObject(s.items)) checkNode(s.items as Node, 'item', `${path}.items`, errs);
  // x-kubernetes-int-or-string may spell its two types out (`anyOf: [{type: integer}, {type: string}]`,
  // alone or as the one entry of allOf): kube leaves those types unchecked.
  const skipAnyOf = intOrString && isIntOrStringAnyOf(s.anyOf);
  const skipAllOfAnyOf = intOrString && Array.isArray(s.allOf) && s.allOf.length === 1 && isIntOrStringAnyOf((s.allOf[0] as Node).anyOf);
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[junctor];
    if (!Array.isArray(list) || (junctor === 'anyOf' && skipAnyOf)) continue;
    list.forEach((nested, i) => {
      const node = junctor === 'allOf' && skipAllOfAnyOf ? (({ anyOf: _anyOf, ...rest }) => rest)(nested as Node) : (nested as Node);
      checkNested(node as Node, `${path}.${junctor}[${i}]`, errs);
    });
  }
  if (isPlainObject(s['not'])) checkNested(s['not'] as Node, `${path}.not`, errs);
  if (typeof s.pattern === 'string') {
    try {
      new RegExp(translateRe2(s.pattern), 'u');
    } catch (err) {
      errs.push(fieldInvalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
}

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const [a, b] = anyOf as Node[];
  const only = (n: Node | undefined, type: string) => isPlainObject(n) && n.type === type && Object.keys(n).length === 1;
  return only(a, 'integer') && only(b, 'string');
}

/** Value validations under allOf/anyOf/oneOf/not may not carry structure (kube's "to be structural" rules). */
function checkNested(v: Node, path: string, errs: FieldError[]): void {
  if (v.type !== undefined) errs.push(fieldForbidden(`${path}.type`, 'must be empty to be structural'));
  if (v.additionalProperties !== undefined) errs.push(fieldForbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  if (v.default !== undefined) errs.push(fieldForbidden(`${path}.default`, 'must be undefined to be structural'));
  if (v.description !== undefined && v.description !== '') errs.push(fieldForbidden(`${path}.description`, 'must be empty to be structural'));
  if (v.nullable === true) errs.push(fieldForbidden(`${path}.nullable`, 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields'] === true) errs.push(fieldForbidden(`${path}.x-kubernetes-preserve-unknown-fields`, 'must be false to be structural'));
  if (v['x-kubernetes-embedded-resource'] === true) errs.push(fieldForbidden(`${path}.x-kubernetes-embedded-resource`, 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string'] === true) errs.push(fieldForbidden(`${path}.x-kubernetes-int-or-string`, 'must be false to be structural'));
  if ((v['x-kubernetes-list-map-keys'] ?? []).length > 0) errs.push(fieldForbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined) errs.push(fieldForbidden(`${path}.x-kubernetes-list-type`, 'must be undefined to be structural'));
  if (v.properties?.['metadata'] !== undefined) errs.push(fieldForbidden(key(`${path}.properties`, 'metadata'), 'must not be specified in a nested context'));
  for (const [name, child] of Object.entries(v.properties ?? {})) if (isPlainObject(child)) checkNested(child as Node, key(`${path}.properties`, name), errs);
  if (isPlainObject(v.items)) checkNested(v.items as Node, `${path}.items`, errs);
}

function checkListExtensions(s: Node, path: string, errs: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  if (listType !== undefined && s.type !== 'array') {
    if (s.type === undefined) errs.push(fieldRequired(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(fieldInvalid(`${path}.type`, s.type, 'must be array if x-kubernetes-list-type is specified'));
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    errs.push(fieldNotSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && !['atomic', 'granular'].includes(mapType)) errs.push(fieldNotSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(fieldRequired(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldInvalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  const items = s.items;
  if (listType === 'set' && s.type === 'array' && items !== undefined) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(fieldInvalid(`${path}.items.x-kubernetes-list-type`, items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(fieldInvalid(`${path}.items.x-kubernetes-map-type`, items['x-kubernetes-map-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if ((listType === 'set' || listType === 'map') && items?.nullable === true) {
    errs.push(fieldForbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  }
  if (listType === 'map' && items?.type === 'object') {
    for (const k of mapKeys) {
      const p = items.properties?.[k];
      if (p === undefined) continue;
      if (!(items.required ?? []).includes(k) && p.default === undefined) {
        errs.push(fieldRequired(`${key(`${path}.items.properties`, k)}.default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (p.nullable === true) errs.push(fieldForbidden(`${key(`${path}.items.properties`, k)}.nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(fieldRequired(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (items === undefined) errs.push(fieldRequired(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object') errs.push(fieldInvalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const p = items.properties?.[k];
        if (p === undefined) errs.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, 'entries must all be names of item properties'));
        else if (p.type === 'array' || p.type === 'object') {
          errs.push(fieldInvalid(`${key(`${path}.items.properties`, k)}.type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
        if (seen.has(k)) errs.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
}

/** The structural-schema errors of `schema` at `path` (e.g. `spec.versions[0].schema.openAPIV3Schema`), sorted as kube sorts them. */
export function validateStructuralSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  checkNode(schema as Node, 'root', path, errs);
  return errs;
}

/**
 * The validation rules of a default's node (and below) run on the default, as an update
 * from itself (transition rules see it as oldSelf) and then as a create (optionalOldSelf
 * rules see none), as kube's ValidateDefaults does once ratcheting is on.
 */
function defaultRuleErrors(value: unknown, schema: JSONSchemaProps, path: string, isResourceRoot: boolean): FieldError[] {
  const validator = compileValidator(schema, isResourceRoot);
  if (validator === undefined) return [];
  const asUpdate = validateRules(validator, value, { old: value, path }).errors;
  return asUpdate.length > 0 ? asUpdate : validateRules(validator, value, { path }).errors;
}

/**
 * kube's ValidateDefaults: every `default` must itself be valid against the schema it sits in
 * (`...properties[color].default: Invalid value: "integer": ...properties[color].default in
 * body must be of type string: "integer"`), and pass the validation rules of its node. Run only
 * on structurally valid schemas.
 */
export function validateSchemaDefaults(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const visit = (s: JSONSchemaProps, p: string): void => {
    if (s.default !== undefined) {
      const { default: value, ...rest } = s;
      const valueErrors = validateAgainstSchema(value, rest, `${p}.default`);
      appendErrors(errs, valueErrors.length > 0 ? valueErrors : defaultRuleErrors(value, rest, `${p}.default`, s === schema || s['x-kubernetes-embedded-resource'] === true));
    }
    for (const [name, child] of Object.entries(s.properties ?? {})) if (isPlainObject(child)) visit(child, key(`${p}.properties`, name));
    if (isPlainObject(s.items)) visit(s.items, `${p}.items`);
    if (isPlainObject(s.additionalProperties)) visit(s.additionalProperties, `${p}.additionalProperties`);
  };
  visit(schema, path);
  return errs;
}
