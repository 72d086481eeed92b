/**
 * ObjectMeta validation as kube's generic apiserver runs it on create and update
 * (apimachinery api/validation/objectmeta.go). Returns field errors with kube's texts;
 * never throws, whatever shape `meta` has.
 */
import { isPlainObject } from './object.js';
import type { FieldError } from './status.js';
import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, appendErrors } from './field-error.js';
import { parseApiVersion } from './gvk.js';
import {
  byteLength,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  type NameValidator,
} from './validation.js';

/** The total size limit of all annotation keys and values, in bytes (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';

export interface ObjectMetaValidationOptions {
  /** Whether the resource is namespaced (namespace required) or cluster-scoped (forbidden). */
  namespaced: boolean;
  /** The resource's name rule; defaults to DNS-1123 subdomain. */
  nameValidator?: NameValidator;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function stringMap(value: unknown): [string, string][] {
  if (!isPlainObject(value)) return [];
  return Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)]);
}

/**
 * Validates `metadata` of an object being created: name/generateName, namespace, generation,
 * labels, annotations, ownerReferences and finalizers. Field paths start at `metadata`.
 */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaValidationOptions): FieldError[] {
  if (!isPlainObject(meta)) return [fieldRequired('metadata')];
  const nameFn = opts.nameValidator ?? nameIsDNSSubdomain;
  const errs: FieldError[] = [];
  const name = str(meta['name']);
  const generateName = str(meta['generateName']);
  const namespace = str(meta['namespace']);

  if (generateName !== '') {
    for (const msg of nameFn(generateName, true)) errs.push(fieldInvalid('metadata.generateName', generateName, msg));
  }
  if (name === '') errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(fieldInvalid('metadata.name', name, msg));

  if (opts.namespaced) {
    if (namespace === '') errs.push(fieldRequired('metadata.namespace'));
    else for (const msg of nameIsDNSLabel(namespace, false)) errs.push(fieldInvalid('metadata.namespace', namespace, msg));
  } else if (namespace !== '') {
    errs.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }

  const generation = meta['generation'];
  if (typeof generation === 'number' && generation < 0) {
    errs.push(fieldInvalid('metadata.generation', generation, 'must be greater than or equal to 0'));
  }
  appendErrors(errs, validateLabels(meta['labels'], 'metadata.labels'));
  appendErrors(errs, validateAnnotations(meta['annotations'], 'metadata.annotations'));
  appendErrors(errs, validateOwnerReferences(meta['ownerReferences'], 'metadata.ownerReferences'));
  appendErrors(errs, validateFinalizers(meta['finalizers'], 'metadata.finalizers'));
  return errs;
}

/**
 * Validates `metadata` on update against the stored object's: resourceVersion must be set,
 * generation must not decrease, name/namespace/uid/creationTimestamp/deletionTimestamp/
 * deletionGracePeriodSeconds are immutable, no finalizers may be added once deletion
 * started; labels, annotations and ownerReferences are validated again.
 */
export function validateObjectMetaUpdate(newMeta: unknown, oldMeta: unknown): FieldError[] {
  if (!isPlainObject(newMeta)) return [fieldRequired('metadata')];
  const old = isPlainObject(oldMeta) ? oldMeta : {};
  const errs: FieldError[] = [];

  if (old['deletionTimestamp'] !== undefined && old['deletionTimestamp'] !== null) {
    appendErrors(errs, validateNoNewFinalizers(newMeta['finalizers'], old['finalizers'], 'metadata.finalizers'));
  }
  if (str(newMeta['resourceVersion']) === '') {
    errs.push(fieldInvalid('metadata.resourceVersion', '', 'must be specified for an update'));
  }
  const newGeneration = typeof newMeta['generation'] === 'number' ? newMeta['generation'] : 0;
  const oldGeneration = typeof old['generation'] === 'number' ? old['generation'] : 0;
  if (newGeneration < oldGeneration) {
    errs.push(fieldInvalid('metadata.generation', newGeneration, 'must not be decremented'));
  }
  for (const key of ['name', 'namespace', 'uid'] as const) {
    if (str(newMeta[key]) !== str(old[key])) errs.push(fieldInvalid(`metadata.${key}`, str(newMeta[key]), FIELD_IMMUTABLE_ERROR_MSG));
  }
  for (const key of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    const now = newMeta[key] ?? null;
    const before = old[key] ?? null;
    if (now !== before) errs.push(fieldInvalid(`metadata.${key}`, now, FIELD_IMMUTABLE_ERROR_MSG));
  }
  appendErrors(errs, validateLabels(newMeta['labels'], 'metadata.labels'));
  appendErrors(errs, validateAnnotations(newMeta['annotations'], 'metadata.annotations'));
  appendErrors(errs, validateOwnerReferences(newMeta['ownerReferences'], 'metadata.ownerReferences'));
  return errs;
}

/** Label keys must be qualified names, values valid label values. */
export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of stringMap(labels)) {
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid(field, key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(fieldInvalid(field, value, msg));
  }
  return errs;
}

/** Annotation keys are qualified names (case-insensitive); all keys and values ≤ 256 KiB. */
export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of stringMap(annotations)) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(fieldInvalid(field, key, msg));
    total += byteLength(key) + byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(fieldTooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/**
 * Each owner reference needs apiVersion (with a version), kind, name and uid; v1 Events may
 * not own anything; at most one reference may be the controller. Paths are not indexed,
 * as in kube.
 */
export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs) {
    const r = isPlainObject(ref) ? ref : {};
    const apiVersion = str(r['apiVersion']);
    const kind = str(r['kind']);
    const gv = parseApiVersion(apiVersion);
    const version = gv?.version ?? '';
    if (version === '') errs.push(fieldInvalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(fieldInvalid(`${field}.kind`, kind, 'kind must not be empty'));
    if (str(r['name']) === '') errs.push(fieldInvalid(`${field}.name`, str(r['name']), 'name must not be empty'));
    if (str(r['uid']) === '') errs.push(fieldInvalid(`${field}.uid`, str(r['uid']), 'uid must not be empty'));
    if (gv !== undefined && gv.group === '' && version === 'v1' && kind === 'Event') {
      errs.push(fieldInvalid(field, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (r['controller'] === true) {
      const current = `${kind}/${str(r['name'])}`;
      if (firstController !== '') {
        errs.push(
          fieldInvalid(
            field,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** Finalizers are qualified names; `orphan` and `foregroundDeletion` exclude each other. */
export function validateFinalizers(finalizers: unknown, field: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  for (const finalizer of finalizers) {
    const text = typeof finalizer === 'string' ? finalizer : String(finalizer);
    for (const msg of isQualifiedName(text)) errs.push(fieldInvalid(field, text, msg));
  }
  if (finalizers.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_FOREGROUND)) {
    errs.push(fieldInvalid(field, finalizers, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}

function validateNoNewFinalizers(newFinalizers: unknown, oldFinalizers: unknown, field: string): FieldError[] {
  const before = new Set(Array.isArray(oldFinalizers) ? oldFinalizers.map(String) : []);
  const added = [...new Set(Array.isArray(newFinalizers) ? newFinalizers.map(String) : [])].filter((f) => !before.has(f)).sort();
  if (added.length === 0) return [];
  const goList = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
  return [fieldForbidden(field, `no new finalizers can be added if the object is being deleted, found new finalizers ${goList}`)];
}
