/**
 * Validation of a CustomResourceDefinition as kube's apiextensions validation does it
 * (messages and field paths are kube's): names, scope, versions (exactly one storage
 * version, unique DNS-1035 names), structural schemas, printer columns, selectable fields,
 * subresources, conversion, deprecation warnings; on update the immutable group/plural and
 * (once established) scope and kind, and storedVersions that must stay in spec.versions.
 */
import type { FieldError, JSONSchemaProps, KubeObject } from '@kapi/machinery';
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  isDNS1035Label,
  isDNS1123Subdomain,
  isPlainObject,
  appendErrors,
} from '@kapi/machinery';
import type { CrdColumn, CrdNames, CrdSubresources, CrdVersion, CustomResourceDefinition } from './crd-types.js';
import { isConditionTrue } from './crd-types.js';
import { semanticEqual } from '../semantic-equal.js';
import { dottedFields, simpleJsonPathProblem } from './jsonpath.js';
import { validateSchemaRules } from './crd-rules.js';
import { validateSchemaDefaults, validateStructuralSchema } from './structural-schema.js';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const MAX_SELECTABLE_FIELDS = 8;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The `metadata.name` rule kapi adds to ObjectMeta validation: it must be `<plural>.<group>`. */
export function crdNameProblems(crd: CustomResourceDefinition): FieldError[] {
  const name = str(crd.metadata.name);
  const required = `${str(crd.spec?.names?.plural)}.${str(crd.spec?.group)}`;
  if (name === '' || name === required) return [];
  return [fieldInvalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group')];
}

export function validateNames(names: CrdNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const dns1035 = (field: string, value: string, lower = false) => {
    const problems = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (value !== '' && problems.length > 0) {
      errs.push(fieldInvalid(`${path}.${field}`, value, (lower ? 'may have mixed case, but should otherwise match: ' : '') + problems.join(',')));
    }
  };
  dns1035('plural', str(names.plural));
  dns1035('singular', str(names.singular));
  dns1035('kind', str(names.kind), true);
  dns1035('listKind', str(names.listKind), true);
  (names.shortNames ?? []).forEach((s, i) => {
    const problems = isDNS1035Label(str(s));
    if (problems.length > 0) errs.push(fieldInvalid(`${path}.shortNames[${i}]`, s, problems.join(',')));
  });
  if (str(names.kind) !== '' && names.kind === names.listKind) errs.push(fieldInvalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    const problems = isDNS1035Label(str(c));
    if (problems.length > 0) errs.push(fieldInvalid(`${path}.categories[${i}]`, c, problems.join(',')));
  });
  return errs;
}

function validateColumn(col: CrdColumn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(col.name) === '') errs.push(fieldRequired(`${path}.name`, ''));
  if (str(col.type) === '') errs.push(fieldRequired(`${path}.type`, `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(str(col.type))) errs.push(fieldInvalid(`${path}.type`, col.type, `must be one of ${COLUMN_TYPES.join(',')}`));
  if (str(col.format) !== '' && !COLUMN_FORMATS.includes(str(col.format))) {
    errs.push(fieldInvalid(`${path}.format`, col.format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  const jsonPath = str(col.jsonPath);
  if (jsonPath === '') errs.push(fieldRequired(`${path}.jsonPath`, ''));
  else {
    const problem = simpleJsonPathProblem(jsonPath);
    if (problem !== undefined) errs.push(fieldInvalid(`${path}.jsonPath`, jsonPath, problem));
  }
  return errs;
}

function validateSubresources(sub: CrdSubresources | undefined, path: string): FieldError[] {
  const scale = sub?.scale;
  if (scale === undefined) return [];
  const errs: FieldError[] = [];
  const under = (field: 'specReplicasPath' | 'statusReplicasPath', prefix: string, required: boolean) => {
    const value = str(scale[field]);
    const p = `${path}.scale.${field}`;
    if (value === '') {
      if (required) errs.push(fieldRequired(p, ''));
      return;
    }
    const problem = simpleJsonPathProblem(value);
    if (problem !== undefined) errs.push(fieldInvalid(p, value, problem));
    else if (!value.startsWith(`${prefix}.`)) errs.push(fieldInvalid(p, value, `should be a json path under ${prefix}`));
  };
  under('specReplicasPath', '.spec', true);
  under('statusReplicasPath', '.status', true);
  const selector = str(scale.labelSelectorPath);
  if (selector !== '') {
    const problem = simpleJsonPathProblem(selector);
    if (problem !== undefined) errs.push(fieldInvalid(`${path}.scale.labelSelectorPath`, selector, problem));
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errs.push(fieldInvalid(`${path}.scale.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

/** The schema node a dotted path leads to, through properties only. */
function schemaAt(schema: JSONSchemaProps | undefined, fields: readonly string[]): JSONSchemaProps | undefined {
  let cur = schema;
  for (const f of fields) cur = cur?.properties?.[f];
  return cur;
}

function validateSelectableFields(version: CrdVersion, path: string): FieldError[] {
  const fields = version.selectableFields ?? [];
  if (fields.length === 0) return [];
  const schema = version.schema?.openAPIV3Schema;
  if (schema === undefined) return [fieldInvalid(`${path}.selectableFields`, '', 'may only be set when `version.schema.openAPIV3Schema` is not included')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}.selectableFields[${i}].jsonPath`;
    const jsonPath = str(f.jsonPath);
    if (jsonPath === '') {
      errs.push(fieldRequired(p, ''));
      return;
    }
    const parts = dottedFields(jsonPath);
    const target = parts === undefined ? undefined : schemaAt(schema, parts);
    if (parts === undefined || target === undefined) {
      errs.push(fieldInvalid(p, jsonPath, 'is an invalid path: does not refer to a valid field'));
      return;
    }
    if (parts[0] === 'metadata') errs.push(fieldInvalid(p, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(target.type ?? '')) {
      errs.push(fieldInvalid(p, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(jsonPath)) errs.push(fieldDuplicate(p, jsonPath));
    seen.add(jsonPath);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) errs.push(fieldTooMany(`${path}.selectableFields`, seen.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

function validateDeprecationWarning(version: CrdVersion, path: string): FieldError[] {
  const warning = version.deprecationWarning;
  if (warning === undefined) return [];
  const p = `${path}.deprecationWarning`;
  if (version.deprecated !== true) return [fieldInvalid(p, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (warning.length > 256) errs.push(fieldInvalid(p, warning, 'must be <= 256 characters long'));
  if (warning.length === 0) errs.push(fieldInvalid(p, warning, 'must not be an empty string'));
  const control = [...warning].findIndex((ch) => /\p{Cc}/u.test(ch));
  if (control >= 0) errs.push(fieldInvalid(p, warning, `must only contain printable UTF-8 characters; control character found at index ${control}`));
  return errs;
}

/**
 * Which per-version fields every version has alike. kube's conversion of a v1 CRD moves
 * such a field to the top of the spec, so its errors are named once, there
 * (`spec.validation.openAPIV3Schema…`, `spec.subresources…`), instead of per version.
 */
export interface SharedVersionFields {
  readonly schema: boolean;
  readonly subresources: boolean;
  readonly columns: boolean;
  readonly selectableFields: boolean;
}

export function sharedVersionFields(versions: readonly CrdVersion[]): SharedVersionFields {
  const alike = (pick: (v: CrdVersion) => unknown) => versions.length > 0 && versions.every((v) => semanticEqual(pick(v), pick(versions[0]!)));
  return {
    schema: alike((v) => v.schema),
    subresources: alike((v) => v.subresources),
    columns: alike((v) => v.additionalPrinterColumns),
    selectableFields: alike((v) => v.selectableFields),
  };
}

/** Where the errors of version `index`'s openAPIV3Schema are named. */
export function schemaPathOf(versions: readonly CrdVersion[], index: number): string {
  return sharedVersionFields(versions).schema ? 'spec.validation.openAPIV3Schema' : `spec.versions[${index}].schema.openAPIV3Schema`;
}

function validateSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const structural = validateStructuralSchema(schema, path);
  return structural.length > 0 ? structural : validateSchemaDefaults(schema, path);
}

/**
 * The checks of the validation rules in every version's schema (crd-rules.ts), named where
 * kube names them. Rules compile only in a schema that is structural with valid defaults.
 * On update, a version whose schema is unchanged skips the per-expression cost limit (a
 * CRD accepted before stays acceptable).
 */
export function validateCrdRules(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const versions = crd.spec?.versions ?? [];
  const shared = sharedVersionFields(versions).schema;
  const oldSchemas = new Map((old?.spec?.versions ?? []).map((v) => [v.name, v.schema?.openAPIV3Schema]));
  const errs: FieldError[] = [];
  for (const [i, version] of versions.entries()) {
    if (shared && i > 0) break;
    const schema = version.schema?.openAPIV3Schema;
    if (!isPlainObject(schema)) continue;
    const path = shared ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`;
    const unchanged = old !== undefined && oldSchemas.has(version.name) && semanticEqual(oldSchemas.get(version.name), schema);
    appendErrors(errs, validateSchemaRules(schema, path, { compile: validateSchema(schema, path).length === 0, suppressPerExpressionCost: unchanged }));
  }
  return errs;
}

/** A version's own checks; the fields all versions share (`shared`) are checked once by the caller. */
function validateVersion(version: CrdVersion, path: string, shared: SharedVersionFields): FieldError[] {
  const errs = validateDeprecationWarning(version, path);
  const schema = version.schema?.openAPIV3Schema;
  if (version.served === true && !isPlainObject(schema)) {
    errs.push(fieldRequired(`${path}.schema.openAPIV3Schema`, 'because otherwise all fields are pruned'));
  }
  if (isPlainObject(schema) && !shared.schema) appendErrors(errs, validateSchema(schema, `${path}.schema.openAPIV3Schema`));
  if (!shared.subresources) appendErrors(errs, validateSubresources(version.subresources, `${path}.subresources`));
  if (!shared.columns) (version.additionalPrinterColumns ?? []).forEach((col, i) => appendErrors(errs, validateColumn(col, `${path}.additionalPrinterColumns[${i}]`)));
  if (!shared.selectableFields) appendErrors(errs, validateSelectableFields(version, path));
  return errs;
}

/** The checks of the fields all versions share, once, at the top of the spec. */
function validateSharedFields(version: CrdVersion, shared: SharedVersionFields): FieldError[] {
  const errs: FieldError[] = [];
  const schema = version.schema?.openAPIV3Schema;
  if (shared.schema && isPlainObject(schema)) appendErrors(errs, validateSchema(schema, 'spec.validation.openAPIV3Schema'));
  if (shared.subresources) appendErrors(errs, validateSubresources(version.subresources, 'spec.subresources'));
  if (shared.columns) (version.additionalPrinterColumns ?? []).forEach((col, i) => appendErrors(errs, validateColumn(col, `spec.additionalPrinterColumns[${i}]`)));
  if (shared.selectableFields) appendErrors(errs, validateSelectableFields(version, 'spec'));
  return errs;
}

/** The spec rules (kube's validateCustomResourceDefinitionSpec for v1 objects). */
export function validateCrdSpec(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? {};
  const errs: FieldError[] = [];
  const group = str(spec.group);
  if (group === '') errs.push(fieldRequired('spec.group', ''));
  else if (isDNS1123Subdomain(group).length > 0) errs.push(fieldInvalid('spec.group', group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  const scope = str(spec.scope);
  if (scope === '') errs.push(fieldRequired('spec.scope', ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldNotSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  const versions = spec.versions ?? [];
  const shared = sharedVersionFields(versions);
  let storage = 0;
  const names = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (v.storage === true) storage++;
    const name = str(v.name);
    if (names.has(name)) unique = false;
    names.add(name);
    const problems = isDNS1035Label(name);
    if (problems.length > 0) errs.push(fieldInvalid(`spec.versions[${i}].name`, name, problems.join(',')));
    appendErrors(errs, validateVersion(v, `spec.versions[${i}]`, shared));
  });
  if (!unique) errs.push(fieldInvalid('spec.versions', versions, 'must contain unique version names'));
  if (storage !== 1) errs.push(fieldInvalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  const crdNames = spec.names ?? {};
  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (str(crdNames[field]) === '') errs.push(fieldRequired(`spec.names.${field}`, ''));
  }
  appendErrors(errs, validateNames(crdNames, 'spec.names'));
  if (versions.length > 0) appendErrors(errs, validateSharedFields(versions[0]!, shared));
  const conversion = spec.conversion;
  if (conversion !== undefined) {
    const strategy = str(conversion.strategy);
    if (strategy === '') errs.push(fieldRequired('spec.conversion.strategy', ''));
    else if (strategy === 'Webhook') errs.push(fieldNotSupported('spec.conversion.strategy', strategy, ['None']));
    else if (strategy !== 'None') errs.push(fieldNotSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  }
  return errs;
}

/** Create: the spec rules, the status names, and kube's refusal of spec.preserveUnknownFields=true. */
export function validateCrd(obj: KubeObject): FieldError[] {
  const crd = obj as CustomResourceDefinition;
  const errs = [...crdNameProblems(crd), ...validateCrdSpec(crd), ...validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames')];
  if (crd.spec?.preserveUnknownFields === true) {
    errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return errs;
}

function immutable(path: string, value: unknown, old: unknown): FieldError[] {
  return value === old ? [] : [fieldInvalid(path, value, 'field is immutable')];
}

/** Update-only rules: group and plural immutable; scope and kind too once established; storedVersions kept in spec.versions. */
export function validateCrdUpdate(obj: KubeObject, oldObj: KubeObject): FieldError[] {
  const crd = obj as CustomResourceDefinition;
  const old = oldObj as CustomResourceDefinition;
  const errs: FieldError[] = [];
  if (isConditionTrue(old, 'Established')) {
    appendErrors(errs, immutable('spec.scope', crd.spec?.scope, old.spec?.scope));
    appendErrors(errs, immutable('spec.names.kind', crd.spec?.names?.kind, old.spec?.names?.kind));
  }
  appendErrors(errs, immutable('spec.group', crd.spec?.group, old.spec?.group));
  appendErrors(errs, immutable('spec.names.plural', crd.spec?.names?.plural, old.spec?.names?.plural));
  appendErrors(errs, validateStoredVersions(crd));
  return errs;
}

export function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  if (stored.length === 0) return [];
  const versions = crd.spec?.versions ?? [];
  const errs: FieldError[] = [];
  const names = new Set(versions.map((v) => str(v.name)));
  stored.forEach((v, i) => {
    if (!names.has(v)) {
      errs.push(
        fieldInvalid(
          `status.storedVersions[${i}]`,
          v,
          `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
        ),
      );
    }
  });
  return errs;
}


const APPROVAL = 'api-approved.kubernetes.io';
const APPROVAL_LINK = 'see https://github.com/kubernetes/enhancements/pull/1111';

function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group === 'kubernetes.io' || group.endsWith('.k8s.io') || group.endsWith('.kubernetes.io');
}

/**
 * kube's validateAPIApproval: CRDs in the community's protected groups (`*.k8s.io`,
 * `*.kubernetes.io`) need the `api-approved.kubernetes.io` annotation, a URL or a reason
 * starting with "unapproved". Checked on create and when the annotation changes.
 */
export function validateApiApproval(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  if (!isProtectedGroup(str(crd.spec?.group))) return [];
  const value = crd.metadata.annotations?.[APPROVAL];
  if (old !== undefined && old.metadata.annotations?.[APPROVAL] === value) return [];
  const path = `metadata.annotations[${APPROVAL}]`;
  if (value === undefined) return [fieldRequired(path, `protected groups must have approval annotation ${JSON.stringify(APPROVAL)}, ${APPROVAL_LINK}`)];
  if (value.startsWith('unapproved')) return [];
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return [];
  } catch {
    // not a URL
  }
  return [
    fieldInvalid(path, value, `protected groups must have approval annotation ${JSON.stringify(APPROVAL)} with either a URL or a reason starting with "unapproved", ${APPROVAL_LINK}`),
  ];
}
