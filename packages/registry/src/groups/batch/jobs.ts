/**
 * batch/v1 Job. Defaults: completions and parallelism 1 (parallelism alone when completions
 * is set), backoffLimit 6, completionMode NonIndexed, suspend false, manualSelector false,
 * podReplacementPolicy, the template's PodSpec defaults except restartPolicy. On create,
 * unless manualSelector, the server generates the selector (the controller-uid label) and
 * labels the template with the uid and job name; the Job takes the template's labels when
 * it has none. Validation: restartPolicy OnFailure or Never, a generated selector untouched;
 * selector, completions, completionMode and template never change (a suspended Job that
 * never started may change its pods' scheduling directives).
 * `kubectl get jobs`: STATUS COMPLETIONS DURATION; field selector status.successful.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { FIELD_IMMUTABLE_ERROR_MSG, ageColumn, column, fieldInvalid, humanDuration, isPlainObject, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { semanticEqual } from '../../semantic-equal.js';
import { defaultPodTemplateSpec } from '../core/pod-template-defaults.js';
import { goLabelSelector } from '../apps/go-syntax.js';
import {
  containerColumns,
  ensureRecord,
  intAt,
  invalidGo,
  nonNegative,
  selectorColumn,
  selectorImmutable,
  setIfAbsent,
  specOf,
  specTemplate,
  statusOf,
  validatePodTemplate,
  validateSelectorAndTemplate,
  workloadStatusHooks,
} from '../apps/pod-controller.js';

export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
const LEGACY_JOB_NAME_LABEL = 'job-name';
const MAX_INT32 = 2147483647;

/** kube's Job defaults on a JobSpec (`spec`). */
function defaultJobSpec(spec: Record<string, unknown>): void {
  if (spec['completions'] === undefined && spec['parallelism'] === undefined) {
    spec['completions'] = 1;
    spec['parallelism'] = 1;
  }
  setIfAbsent(spec, 'parallelism', 1);
  setIfAbsent(spec, 'backoffLimit', spec['backoffLimitPerIndex'] !== undefined ? MAX_INT32 : 6);
  setIfAbsent(spec, 'completionMode', 'NonIndexed');
  setIfAbsent(spec, 'suspend', false);
  setIfAbsent(spec, 'podReplacementPolicy', spec['podFailurePolicy'] !== undefined ? 'Failed' : 'TerminatingOrFailed');
  setIfAbsent(spec, 'manualSelector', false);
  defaultPodTemplateSpec(ensureRecord(spec, 'template'), { restartPolicy: false });
}

function copyTemplateLabels(obj: KubeObject): void {
  const labels = recordAt(specTemplate(obj) ?? {}, 'metadata')?.['labels'];
  if (isPlainObject(labels) && Object.keys(labels).length > 0 && Object.keys(obj.metadata.labels ?? {}).length === 0) {
    obj.metadata.labels = { ...(labels as Record<string, string>) };
  }
}

function defaultJob(obj: KubeObject): void {
  defaultJobSpec(ensureRecord(obj, 'spec'));
  copyTemplateLabels(obj);
}

/** The selector and template labels kube generates for a Job without manualSelector. */
function generateSelector(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  if (spec['manualSelector'] === true) return;
  const uid = String(obj.metadata.uid ?? '');
  const name = String(obj.metadata.name ?? '');
  const labels = ensureRecord(ensureRecord(ensureRecord(spec, 'template'), 'metadata'), 'labels');
  setIfAbsent(labels, LEGACY_JOB_NAME_LABEL, name);
  setIfAbsent(labels, JOB_NAME_LABEL, name);
  setIfAbsent(labels, LEGACY_CONTROLLER_UID_LABEL, uid);
  setIfAbsent(labels, CONTROLLER_UID_LABEL, uid);
  setIfAbsent(ensureRecord(ensureRecord(spec, 'selector'), 'matchLabels'), CONTROLLER_UID_LABEL, uid);
}

/** A generated selector must be exactly the controller-uid label. */
function validateGeneratedSelector(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  if (spec['manualSelector'] === true || !isPlainObject(spec['selector'])) return [];
  const expected = { matchLabels: { [CONTROLLER_UID_LABEL]: String(obj.metadata.uid ?? '') } };
  return semanticEqual(spec['selector'], expected) ? [] : [invalidGo('spec.selector', goLabelSelector(spec['selector']), '`selector` not auto-generated')];
}

/** The JobSpec checks a Job and a CronJob's jobTemplate share; `path` is where the spec is. */
export function validateJobSpec(spec: Record<string, unknown>, path: string): FieldError[] {
  return [
    ...nonNegative(spec, 'parallelism', path),
    ...nonNegative(spec, 'completions', path),
    ...nonNegative(spec, 'backoffLimit', path),
    ...validatePodTemplate(spec, path, ['OnFailure', 'Never']),
  ];
}

function validateJob(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  return [...validateSelectorAndTemplate(spec, 'spec'), ...validateJobSpec(spec, 'spec'), ...validateGeneratedSelector(obj)];
}

function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const errs = selectorImmutable(obj, old);
  for (const field of ['completions', 'completionMode']) {
    if (!semanticEqual(spec[field], oldSpec[field])) errs.push(fieldInvalid(`spec.${field}`, spec[field], FIELD_IMMUTABLE_ERROR_MSG));
  }
  if (!semanticEqual(templateForComparison(obj, old), templateForComparison(old, old))) {
    errs.push(invalidGo('spec.template', 'core.PodTemplateSpec{...}', FIELD_IMMUTABLE_ERROR_MSG));
  }
  return errs;
}

/**
 * The template as far as it is immutable: a Job that is suspended and never started may
 * change its pods' scheduling directives (labels, annotations, nodeSelector, tolerations,
 * affinity, schedulingGates) as kube allows, for queueing controllers.
 */
function templateForComparison(obj: KubeObject, old: KubeObject): unknown {
  const template = structuredClone(specOf(obj)['template']);
  const suspendedUnstarted = specOf(old)['suspend'] === true && statusOf(old)['startTime'] === undefined;
  if (!suspendedUnstarted || !isPlainObject(template)) return template;
  const meta = recordAt(template, 'metadata');
  if (meta !== undefined) {
    delete meta['labels'];
    delete meta['annotations'];
  }
  const pod = recordAt(template, 'spec');
  if (pod !== undefined) for (const f of ['nodeSelector', 'tolerations', 'affinity', 'schedulingGates']) delete pod[f];
  return template;
}

function hasCondition(obj: KubeObject, type: string): boolean {
  const conditions = statusOf(obj)['conditions'];
  return Array.isArray(conditions) && conditions.some((c) => isPlainObject(c) && c['type'] === type && c['status'] === 'True');
}

/** kubectl's job STATUS: the first of Complete, Failed, Terminating, Suspended, FailureTarget, SuccessCriteriaMet; else Running. */
function jobStatus(obj: KubeObject): string {
  if (hasCondition(obj, 'Complete')) return 'Complete';
  if (hasCondition(obj, 'Failed')) return 'Failed';
  if (obj.metadata.deletionTimestamp !== undefined) return 'Terminating';
  if (hasCondition(obj, 'Suspended')) return 'Suspended';
  if (hasCondition(obj, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(obj, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function completions(obj: KubeObject): string {
  const spec = specOf(obj);
  const succeeded = intAt(statusOf(obj), 'succeeded');
  if (typeof spec['completions'] === 'number') return `${succeeded}/${spec['completions']}`;
  const parallelism = spec['parallelism'];
  if (typeof parallelism === 'number' && parallelism > 1) return `${succeeded}/1 of ${parallelism}`;
  return `${succeeded}/1`;
}

function duration(obj: KubeObject, now: number): string {
  const status = statusOf(obj);
  const start = typeof status['startTime'] === 'string' ? Date.parse(status['startTime']) : NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status['completionTime'] === 'string' ? Date.parse(status['completionTime']) : now;
  return humanDuration(end - start);
}

/** kubectl's NAME STATUS COMPLETIONS DURATION AGE, and CONTAINERS IMAGES SELECTOR with -o wide. */
export const jobColumns = [
  nameColumn,
  column('Status', 'string', 'Status of the job.', jobStatus),
  column('Completions', 'string', 'Succeeded pods out of the desired completions.', completions),
  column('Duration', 'string', 'Time the job took, or has been running.', duration),
  ageColumn,
  ...containerColumns(specTemplate),
  selectorColumn,
];

export const jobOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: jobColumns,
  selectableFields: { 'status.successful': (obj) => String(intAt(statusOf(obj), 'succeeded')) },
  unsupportedFieldLabel: (field) => `field label ${JSON.stringify(field)} not supported for Job`,
  strategy: builtinStrategy({
    decode: defaultJob,
    ...workloadStatusHooks([]),
    prepareForCreate(obj) {
      obj['status'] = {};
      generateSelector(obj);
      copyTemplateLabels(obj);
    },
    validate: validateJob,
    validateUpdate: validateJobUpdate,
  }),
});
