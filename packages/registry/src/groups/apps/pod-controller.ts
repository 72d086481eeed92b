/**
 * What kube's pod controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
 * ReplicationController) share: the selector/template checks, their printer cells
 * (CONTAINERS, IMAGES, SELECTOR), the status fields Go always writes, and the `scale`
 * subresource's view of spec.replicas.
 */
import type { FieldError, KubeObject, LabelSelectorObject } from '@kapi/machinery';
import { FIELD_IMMUTABLE_ERROR_MSG, column, fieldInvalid, fieldNotSupported, fieldRequired, isPlainObject, labelSelectorFromObject, labelSelectorFromSet } from '@kapi/machinery';
import type { Strategy, SubresourceDefinition } from '../../definition.js';
import { recordAt } from '../../builtin/builtin-strategy.js';
import { semanticEqual } from '../../semantic-equal.js';
import { goLabelSelector, goStringMap } from './go-syntax.js';

type Json = Record<string, unknown>;

/** `obj.spec`, or an empty record. */
export function specOf(obj: Json): Json {
  return recordAt(obj, 'spec') ?? {};
}

/** `obj.status`, or an empty record. */
export function statusOf(obj: Json): Json {
  return recordAt(obj, 'status') ?? {};
}

export function intAt(record: Json, key: string): number {
  const value = record[key];
  return typeof value === 'number' ? value : 0;
}

/** A FieldValueInvalid whose value is already printed Go-style. */
export function invalidGo(field: string, goValue: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${goValue}: ${detail}` };
}

/** The record at obj[key], created when absent. */
export function ensureRecord(obj: Json, key: string): Json {
  const value = obj[key];
  if (isPlainObject(value)) return value;
  const created: Json = {};
  obj[key] = created;
  return created;
}

export function setIfAbsent(obj: Json, key: string, value: unknown): void {
  if (obj[key] === undefined) obj[key] = value;
}

/**
 * Go writes a struct's non-`omitempty` integers even when zero, and a status struct as `{}`:
 * kube answers `status: {replicas: 0}` for a ReplicaSet it just created. Sets them on `obj`.
 */
export function zeroStatus(obj: Json, fields: readonly string[]): void {
  const status = ensureRecord(obj, 'status');
  for (const f of fields) setIfAbsent(status, f, 0);
}

/**
 * Status hooks of a workload: on create and on every write through /status, the status
 * holds what Go always writes (`zeroFields` at 0, the struct itself); /status changes
 * nothing but status.
 */
export function workloadStatusHooks(zeroFields: readonly string[]): Pick<Strategy, 'prepareForCreate' | 'prepareForSubresourceUpdate'> {
  return {
    prepareForCreate: (obj) => zeroStatus(obj, zeroFields),
    prepareForSubresourceUpdate(_subresource, obj, old) {
      const kept = new Set(['metadata', 'status', 'apiVersion', 'kind']);
      for (const field of new Set([...Object.keys(obj), ...Object.keys(old)])) {
        if (kept.has(field)) continue;
        if (old[field] === undefined) delete obj[field];
        else obj[field] = structuredClone(old[field]);
      }
      zeroStatus(obj, zeroFields);
    },
  };
}

/**
 * kube's checks of a replica-counting status (Deployment, ReplicaSet, ReplicationController
 * through /status): every count non-negative; none above status.replicas; available
 * replicas not above ready ones.
 */
export function validateReplicaStatus(obj: Json, counts: readonly string[]): FieldError[] {
  const status = statusOf(obj);
  const errs: FieldError[] = [];
  for (const f of ['replicas', ...counts]) errs.push(...nonNegative(status, f, 'status'));
  const replicas = intAt(status, 'replicas');
  for (const f of counts) {
    const value = status[f];
    if (typeof value === 'number' && value > replicas) errs.push(fieldInvalid(`status.${f}`, value, 'cannot be greater than status.replicas'));
  }
  const available = status['availableReplicas'];
  if (typeof available === 'number' && available > intAt(status, 'readyReplicas')) {
    errs.push(fieldInvalid('status.availableReplicas', available, 'cannot be greater than readyReplicas'));
  }
  return errs;
}

/** A non-negative integer field of spec (`must be greater than or equal to 0`). */
export function nonNegative(spec: Json, key: string, path: string): FieldError[] {
  const value = spec[key];
  return typeof value === 'number' && value < 0 ? [fieldInvalid(`${path}.${key}`, value, 'must be greater than or equal to 0')] : [];
}

/**
 * kube's checks of an apps/v1 (or batch) LabelSelector spec.selector against the template's
 * labels: required, not empty (`empty selector is invalid for <kind>`, when `emptyKind` is
 * given), and it must select the template.
 */
export function validateSelectorAndTemplate(spec: Json, path: string, emptyKind?: string): FieldError[] {
  const errs: FieldError[] = [];
  const selector = spec['selector'];
  // The template is a struct in these kinds: an absent one is an empty one.
  const template = recordAt(spec, 'template') ?? {};
  const labels = recordAt(template, 'metadata')?.['labels'];
  if (!isPlainObject(selector)) {
    errs.push(fieldRequired(`${path}.selector`));
  } else if (emptyKind !== undefined && Object.keys(selector['matchLabels'] ?? {}).length + ((selector['matchExpressions'] as unknown[] | undefined)?.length ?? 0) === 0) {
    errs.push(invalidGo(`${path}.selector`, goLabelSelector(selector), `empty selector is invalid for ${emptyKind}`));
  }
  let parsed;
  try {
    parsed = labelSelectorFromObject(isPlainObject(selector) ? (selector as LabelSelectorObject) : undefined);
  } catch {
    return errs;
  }
  // An empty selector (selects everything) is not checked against the labels; an absent one selects nothing.
  if (!(isPlainObject(selector) && parsed.empty) && !parsed.matches(isPlainObject(labels) ? (labels as Record<string, string>) : {})) {
    errs.push(invalidGo(`${path}.template.metadata.labels`, goStringMap(labels), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** The template's containers must be given; `restartPolicy` must be one of `allowed`. */
export function validatePodTemplate(spec: Json, path: string, allowed: readonly string[]): FieldError[] {
  const pod = recordAt(recordAt(spec, 'template') ?? {}, 'spec') ?? {};
  const errs: FieldError[] = [];
  const containers = pod['containers'];
  if (!Array.isArray(containers) || containers.length === 0) errs.push(fieldRequired(`${path}.template.spec.containers`));
  const policy = pod['restartPolicy'];
  if (typeof policy !== 'string' || policy === '') {
    errs.push(fieldRequired(`${path}.template.spec.restartPolicy`, `valid values: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`));
  } else if (!allowed.includes(policy)) {
    errs.push(fieldNotSupported(`${path}.template.spec.restartPolicy`, policy, allowed));
  }
  return errs;
}

/** apps/v1: spec.selector cannot change (`field is immutable`). */
export function selectorImmutable(obj: Json, old: Json): FieldError[] {
  const selector = specOf(obj)['selector'];
  if (semanticEqual(selector, specOf(old)['selector'])) return [];
  return [invalidGo('spec.selector', goLabelSelector(selector), FIELD_IMMUTABLE_ERROR_MSG)];
}

/** The selector as kube prints it (`a=b,c in (d)`); "" when absent or unparseable. */
export function selectorText(selector: unknown): string {
  if (!isPlainObject(selector)) return '';
  try {
    return labelSelectorFromObject(selector as LabelSelectorObject).toString();
  } catch {
    return '';
  }
}

/** A plain label map as kube's labels.FormatLabels prints it: `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  if (!isPlainObject(labels) || Object.keys(labels).length === 0) return '<none>';
  return labelSelectorFromSet(labels as Record<string, string>).toString();
}

function containersOf(template: Json | undefined): Json[] {
  const containers = template === undefined ? undefined : recordAt(template, 'spec')?.['containers'];
  return Array.isArray(containers) ? containers.filter(isPlainObject) : [];
}

/** The CONTAINERS and IMAGES columns of a pod template found by `template`. */
export function containerColumns(template: (obj: KubeObject) => Json | undefined, priority = 1) {
  return [
    column('Containers', 'string', 'Names of each container in the template.', (obj) => containersOf(template(obj)).map((c) => String(c['name'] ?? '')).join(','), { priority }),
    column('Images', 'string', 'Images referenced by each container in the template.', (obj) => containersOf(template(obj)).map((c) => String(c['image'] ?? '')).join(','), { priority }),
  ];
}

/** SELECTOR (wide): spec.selector as a label selector string. */
export const selectorColumn = column('Selector', 'string', 'The label selector of the pods this controller manages.', (obj) => selectorText(specOf(obj)['selector']), { priority: 1 });

/** The spec.template of a workload. */
export const specTemplate = (obj: KubeObject): Json | undefined => recordAt(specOf(obj), 'template');

/**
 * The autoscaling/v1 Scale view of spec.replicas and status.replicas; `selector` prints the
 * selector kube puts in the Scale's status.
 */
export function scaleSubresource(selector: (obj: KubeObject) => string | undefined): SubresourceDefinition {
  return {
    name: 'scale',
    verbs: ['get', 'patch', 'update'],
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selector, builtin: true },
  };
}

/** The Scale selector of an apps/v1 workload: its LabelSelector as a string. */
export const labelSelectorForScale = (obj: KubeObject): string | undefined => selectorText(specOf(obj)['selector']);
