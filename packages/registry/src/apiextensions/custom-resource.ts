/**
 * A CustomResourceDefinition becomes a `ResourceDefinition` (DESIGN §2): the same generic
 * store serves custom resources, with kube's custom-resource behaviour expressed as data —
 * names, scope, served/storage/deprecated versions, the version schemas wrapped with
 * apiVersion/kind/ObjectMeta, storage under `<group>/<plural>`, status and scale
 * subresources, printer columns from JSONPaths, selectable fields, no strategic merge
 * patch, path-segment names, generation managed — plus a strategy for what the schema
 * validator does not check (list-type set/map uniqueness, metadata name restrictions, the
 * `x-kubernetes-validations` rules) and the refusal of creates while the CRD terminates.
 */
import type { FieldError, JSONSchemaProps, KubeObject, PrinterColumn } from '@kapi/machinery';
import { StatusError, applyDefaults, column, fieldDuplicate, fieldInvalid, goFormatValue, goTypeName, isInt64, isPlainObject, nameColumn, timestampSince, validateAgainstSchema, appendErrors } from '@kapi/machinery';
import type { FieldGetter, ResourceDefinition, ScaleDefinition, SubresourceDefinition, VersionDefinition } from '../definition.js';
import { META_V1, ref } from '../schemas/schema-builders.js';
import type { CrdColumn, CrdVersion, CustomResourceDefinition } from './crd-types.js';
import { compileJsonPath, evaluateJsonPath } from './jsonpath.js';
import { validateValues } from './value-validation.js';
import { rulesValidation } from './custom-resource-rules.js';
import { ratchetSchemaErrors } from './schema-ratcheting.js';

const METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const CREATION_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created.';

/** The version's schema as the store needs it: apiVersion, kind and ObjectMeta at the root, tagged with its GVK. */
export function wrapSchema(schema: JSONSchemaProps | undefined, gvk: { group: string; version: string; kind: string }): JSONSchemaProps {
  const user: JSONSchemaProps = schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const { apiVersion: _a, kind: _k, metadata: _m, ...properties } = user.properties ?? {};
  return {
    ...user,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: user.properties?.['apiVersion']?.description ?? 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: user.properties?.['kind']?.description ?? 'Kind is a string value representing the REST resource this object represents.' },
      metadata: ref(`${META_V1}ObjectMeta`, METADATA_DESCRIPTION),
      ...properties,
    },
    'x-kubernetes-group-version-kind': [gvk],
  };
}

/** The cell of a printer column (kube's CRD table convertor): strings as printed, other types as JSON values, dates as ages. */
function columnCell(col: CrdColumn): PrinterColumn['cell'] {
  const path = compileJsonPath(col.jsonPath ?? '.');
  return (obj, now) => {
    const value = evaluateJsonPath(path, obj)[0];
    if (value === undefined) return null;
    switch (col.type) {
      case 'string':
        return typeof value === 'string' ? value : JSON.stringify(value);
      case 'integer':
        return typeof value === 'number' ? Math.trunc(value) : null;
      case 'number':
        return typeof value === 'number' ? value : null;
      case 'boolean':
        return typeof value === 'boolean' ? value : null;
      case 'date':
        return typeof value === 'string' ? timestampSince(value, now) : null;
      default:
        return value;
    }
  };
}

/** Name, then the version's additionalPrinterColumns (kube's default: Age from creationTimestamp). */
export function printerColumnsFor(version: CrdVersion | undefined): PrinterColumn[] {
  const cols: CrdColumn[] = version?.additionalPrinterColumns?.length
    ? version.additionalPrinterColumns
    : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: CREATION_DESCRIPTION }];
  return [
    nameColumn,
    ...cols.map((col) =>
      // kube describes a column without a description by its JSONPath.
      column(col.name ?? '', col.type ?? 'string', col.description || `Custom resource definition column (in JSONPath format): ${col.jsonPath ?? ''}`, columnCell(col), {
        format: col.format ?? '',
        priority: col.priority ?? 0,
      }),
    ),
  ];
}

function selectableFieldsFor(version: CrdVersion | undefined): Record<string, FieldGetter> | undefined {
  const fields = version?.selectableFields ?? [];
  if (fields.length === 0) return {};
  const out: Record<string, FieldGetter> = {};
  for (const f of fields) {
    const path = compileJsonPath(f.jsonPath ?? '.');
    out[(f.jsonPath ?? '').replace(/^\./, '')] = (obj) => {
      const value = evaluateJsonPath(path, obj)[0];
      if (value === undefined || value === null) return undefined;
      return typeof value === 'string' ? value : String(value);
    };
  }
  return out;
}

/** Whether any node of `schema` has a `default`. */
function hasDefaults(schema: JSONSchemaProps | undefined): boolean {
  if (schema === undefined) return false;
  if (schema.default !== undefined) return true;
  return (
    Object.values(schema.properties ?? {}).some(hasDefaults) ||
    hasDefaults(schema.items) ||
    (isPlainObject(schema.additionalProperties) && hasDefaults(schema.additionalProperties))
  );
}

/** A `fromStorage` hook that applies the version's defaults to (a private copy of) a stored object. */
function defaultingOnRead(schema: JSONSchemaProps): (stored: KubeObject) => KubeObject {
  return (stored) => {
    const { metadata, ...rest } = stored;
    applyDefaults(rest, schema);
    return { ...rest, metadata } as KubeObject;
  };
}

/** A CRD version's status and scale subresources. */
function subresourcesFor(version: CrdVersion | undefined): SubresourceDefinition[] {
  const out: SubresourceDefinition[] = [];
  const sub = version?.subresources;
  if (sub?.status !== undefined) out.push({ name: 'status', verbs: ['get', 'update', 'patch'] });
  if (sub?.scale !== undefined) {
    out.push({
      name: 'scale',
      verbs: ['get', 'update', 'patch'],
      scale: {
        specReplicasPath: sub.scale.specReplicasPath ?? '',
        statusReplicasPath: sub.scale.statusReplicasPath ?? '',
        ...(sub.scale.labelSelectorPath ? { labelSelectorPath: sub.scale.labelSelectorPath } : {}),
      },
    });
  }
  return out;
}

/** kube's default warning for a deprecated CRD version. */
export function defaultDeprecationWarning(group: string, version: string, kind: string): string {
  return `${group}/${version} ${kind} is deprecated`;
}

/** Duplicates in list-type set/map arrays (the schema validator does not know these extensions). */
function listUniqueness(value: unknown, schema: JSONSchemaProps | undefined, path: string, errs: FieldError[]): void {
  if (schema === undefined || value === null || value === undefined) return;
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set' || listType === 'map') {
      const keys = schema['x-kubernetes-list-map-keys'] ?? [];
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const identity = listType === 'set' ? item : isPlainObject(item) ? Object.fromEntries(keys.map((k) => [k, item[k]])) : item;
        const text = JSON.stringify(identity);
        if (seen.has(text)) errs.push(fieldDuplicate(`${path}[${i}]`, identity));
        seen.add(text);
      });
    }
    value.forEach((item, i) => listUniqueness(item, schema.items, `${path}[${i}]`, errs));
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const child = schema.properties?.[k] ?? (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      listUniqueness(v, child, path === '' ? k : `${path}.${k}`, errs);
    }
  }
}

/**
 * kube's PruneNonNullableNullsWithoutDefaults: a null where the schema is not nullable and
 * has no default is dropped (defaulting fills the others), before validation sees it.
 */
export function dropNonNullableNulls(value: unknown, schema: JSONSchemaProps | undefined, root = false): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) dropNonNullableNulls(item, schema.items);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (root && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) continue;
    const childSchema = schema.properties?.[key] ?? (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (child === null) {
      if (childSchema !== undefined && childSchema.nullable !== true && childSchema.default === undefined) delete value[key];
    } else {
      dropNonNullableNulls(child, childSchema);
    }
  }
}

/** The user's restrictions on metadata.name/generateName (the only metadata a CRD schema may restrict). */
function metadataRestrictions(obj: KubeObject, schema: JSONSchemaProps | undefined): FieldError[] {
  const meta = schema?.properties?.['metadata'];
  if (meta?.properties === undefined) return [];
  const errs: FieldError[] = [];
  for (const field of ['name', 'generateName'] as const) {
    const s = meta.properties[field];
    const value = obj.metadata[field];
    if (s !== undefined && value !== undefined) appendErrors(errs, validateAgainstSchema(value, s, `metadata.${field}`));
  }
  return errs;
}

const MAX_INT32 = 2 ** 31 - 1;

/** Go's %v of an unstructured value in an accessor error (`1.5`, `x`, `map[a:1]`). */
function accessorValue(value: unknown): string {
  return typeof value === 'string' ? value : goFormatValue(value);
}

/**
 * kube's checks of the replicas a scale subresource reads (ValidateScaleSpec and
 * ValidateScaleStatus, on every write of the object): an int64 in [0, 2^31-1] at `path`
 * (`.spec.replicas`), or absent. The field path is the scale path as written.
 */
function scaleReplicasErrors(obj: KubeObject, path: string): FieldError[] {
  const fields = path.replace(/^\./, '').split('.');
  const jsonPath = (upTo: number) => `.${fields.slice(0, upTo).join('.')}`;
  let value: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (value === null || value === undefined) return [];
    if (!isPlainObject(value)) {
      return [fieldInvalid(path, 0, `${jsonPath(i + 1)} accessor error: ${accessorValue(value)} is of the type ${goTypeName(value)}, expected map[string]interface{}`)];
    }
    if (!Object.prototype.hasOwnProperty.call(value, fields[i]!)) return [];
    value = value[fields[i]!];
  }
  if (typeof value !== 'number' || !isInt64(value)) {
    const type = value === null || value === undefined ? '<nil>' : goTypeName(value);
    return [fieldInvalid(path, 0, `${jsonPath(fields.length)} accessor error: ${value === null || value === undefined ? '<nil>' : accessorValue(value)} is of the type ${type}, expected int64`)];
  }
  if (value < 0) return [fieldInvalid(path, value, 'should be a non-negative integer')];
  if (value > MAX_INT32) return [fieldInvalid(path, value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** The replica checks of `scale` (spec and status, or status alone for writes through /status). */
function scaleErrors(obj: KubeObject, scale: ScaleDefinition | undefined, statusOnly: boolean): FieldError[] {
  if (scale === undefined) return [];
  return [...(statusOnly ? [] : scaleReplicasErrors(obj, scale.specReplicasPath)), ...scaleReplicasErrors(obj, scale.statusReplicasPath)];
}

export interface CustomResourceOptions {
  /** True while the CRD is terminating: creates answer kube's 405. */
  readonly terminating: () => boolean;
}

function terminatingError(group: string, plural: string): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'create not allowed while custom resource definition is terminating',
    details: { group, kind: plural },
  });
}

/** The ResourceDefinition serving the custom resources of `crd` (validated and established). */
export function customResourceDefinition(crd: CustomResourceDefinition, options: CustomResourceOptions): ResourceDefinition {
  const spec = crd.spec!;
  const group = spec.group!;
  const names = crd.status?.acceptedNames?.kind ? { ...spec.names, ...crd.status.acceptedNames } : spec.names!;
  const kind = names.kind!;
  const plural = names.plural!;
  const crdVersions = spec.versions ?? [];
  const storage = crdVersions.find((v) => v.storage === true);
  const versions: VersionDefinition[] = crdVersions.map((v) => ({
    name: v.name!,
    served: v.served === true,
    storage: v.storage === true,
    schema: wrapSchema(v.schema?.openAPIV3Schema, { group, version: v.name!, kind }),
    ...(v.deprecated === true ? { deprecated: { warning: v.deprecationWarning ?? defaultDeprecationWarning(group, v.name!, kind) } } : {}),
    printerColumns: printerColumnsFor(v),
    subresources: subresourcesFor(v),
    // kube defaults on read too: objects stored before a default was added show it.
    ...(hasDefaults(v.schema?.openAPIV3Schema) ? { fromStorage: defaultingOnRead(v.schema!.openAPIV3Schema!) } : {}),
  }));
  const schemaByVersion = new Map(crdVersions.map((v) => [v.name, v.schema?.openAPIV3Schema]));
  const scaleByVersion = new Map(crdVersions.map((v) => [v.name, subresourcesFor(v).find((sub) => sub.name === 'scale')?.scale]));
  const rules = rulesValidation(schemaByVersion, storage?.name);
  const versionOf = (obj: KubeObject, version: string | undefined) =>
    version ?? (typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1) : undefined);
  const schemaOf = (obj: KubeObject, version: string | undefined) => schemaByVersion.get(versionOf(obj, version)) ?? storage?.schema?.openAPIV3Schema;
  /** The version's metadata restrictions and scale replicas (every write). */
  const validateVersion = (obj: KubeObject, version: string | undefined, statusOnly: boolean): FieldError[] => {
    const name = versionOf(obj, version);
    const errs: FieldError[] = statusOnly ? [] : metadataRestrictions(obj, schemaOf(obj, version));
    const scale = schemaByVersion.has(name) ? scaleByVersion.get(name) : scaleByVersion.get(storage?.name);
    appendErrors(errs, scaleErrors(obj, scale, statusOnly));
    return errs;
  };
  const listErrors = (obj: KubeObject, schema: JSONSchemaProps | undefined): FieldError[] => {
    const errs: FieldError[] = [];
    listUniqueness(obj, schema, '', errs);
    return errs;
  };
  /**
   * On update the list-type set/map duplicates count only when the old object had none,
   * and junctor and format errors are ratcheted like the schema's (through status: only
   * status is checked, without ratcheting), as in kube 1.32.
   */
  const validateValuesUpdate = (obj: KubeObject, old: KubeObject, version: string | undefined, statusOnly: boolean): FieldError[] => {
    const schema = schemaOf(obj, version);
    const values = statusOnly ? validateValues({ status: obj['status'] }, schema) : ratchetSchemaErrors(validateValues(obj, schema), obj, old, schema);
    const lists = listErrors(old, schema).length === 0 ? listErrors(obj, schema) : [];
    return [...values, ...lists];
  };
  return {
    group,
    kind,
    listKind: names.listKind ?? `${kind}List`,
    plural,
    singular: names.singular ?? kind.toLowerCase(),
    ...(names.shortNames?.length ? { shortNames: [...names.shortNames] } : {}),
    ...(names.categories?.length ? { categories: [...names.categories] } : {}),
    namespaced: spec.scope === 'Namespaced',
    versions,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    storagePrefix: `${group}/${plural}`,
    // The main resource ignores status when any version has the status subresource.
    hasStatus: crdVersions.some((v) => v.subresources?.status !== undefined),
    subresources: subresourcesFor(storage),
    strategicMergePatch: false,
    managesGeneration: true,
    bodyDecoding: 'unstructured',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    printerColumns: printerColumnsFor(storage),
    selectableFields: selectableFieldsFor(storage) ?? {},
    strategy: {
      decode(obj) {
        // Decoding happens in the request's version (its apiVersion is already the expected one).
        const version = typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1) : '';
        dropNonNullableNulls(obj, schemaByVersion.get(version) ?? storage?.schema?.openAPIV3Schema, true);
      },
      prepareForCreate() {
        if (options.terminating()) throw terminatingError(group, plural);
      },
      validate(obj: KubeObject, version?: string) {
        return validateVersion(obj, version, false);
      },
      validateCreate(obj: KubeObject, version?: string) {
        const schema = schemaOf(obj, version);
        return [...validateValues(obj, schema), ...listErrors(obj, schema)];
      },
      validateUpdate(obj: KubeObject, old: KubeObject, version?: string) {
        return validateValuesUpdate(obj, old, version, false);
      },
      ratchetSchemaErrors(errors, obj, old, subresource, version) {
        // A status write checks status alone (and metadata); the main resource ratchets.
        if (subresource === 'status') return errors.filter((e) => /^(status|metadata)([.[]|$)/.test(e.field));
        return ratchetSchemaErrors(errors, obj, old, schemaOf(obj, version));
      },
      validateSubresourceUpdate(subresource: string, obj: KubeObject, old: KubeObject, version?: string) {
        // kube's ValidateStatusUpdate: status against the schema, and the status replicas.
        return subresource === 'status' ? [...validateValuesUpdate(obj, old, version, true), ...validateVersion(obj, version, true)] : [];
      },
      validateLast(obj, old, earlier, context) {
        return rules(obj, old, earlier, { ...context, version: versionOf(obj, context.version) });
      },
    },
  };
}
