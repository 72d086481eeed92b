/**
 * core/v1 ReplicationController. Defaults: the selector and the controller's labels from
 * the template's labels when empty, replicas 1, the template's PodSpec defaults. The
 * selector (a plain label map) is required and must select the template; restartPolicy
 * Always. `kubectl get rc`: DESIRED CURRENT READY; field selector status.replicas; /scale
 * is the autoscaling/v1 view of spec.replicas.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldRequired, isPlainObject, labelSelectorFromSet, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { goStringMap } from '../apps/go-syntax.js';
import { containerColumns, ensureRecord, formatLabels, intAt, invalidGo, nonNegative, scaleSubresource, setIfAbsent, specOf, specTemplate, statusOf, validatePodTemplate, validateReplicaStatus, workloadStatusHooks } from '../apps/pod-controller.js';
import { replicaCountColumns } from '../apps/replicasets.js';
import { defaultPodTemplateSpec } from './pod-template-defaults.js';

function templateLabels(obj: KubeObject): Record<string, string> | undefined {
  const labels = recordAt(specTemplate(obj) ?? {}, 'metadata')?.['labels'];
  return isPlainObject(labels) ? (labels as Record<string, string>) : undefined;
}

function defaultReplicationController(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  const labels = templateLabels(obj);
  if (labels !== undefined) {
    if (Object.keys(recordAt(spec, 'selector') ?? {}).length === 0) spec['selector'] = { ...labels };
    if (Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...labels };
  }
  setIfAbsent(spec, 'replicas', 1);
  defaultPodTemplateSpec(spec['template']);
}

function validateReplicationController(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = [...nonNegative(spec, 'replicas', 'spec'), ...nonNegative(spec, 'minReadySeconds', 'spec')];
  const selector = recordAt(spec, 'selector') ?? {};
  if (Object.keys(selector).length === 0) errs.push(fieldRequired('spec.selector'));
  if (recordAt(spec, 'template') === undefined) {
    errs.push(fieldRequired('spec.template'));
    return errs;
  }
  const labels = templateLabels(obj);
  if (Object.keys(selector).length > 0 && !labelSelectorFromSet(selector as Record<string, string>).matches(labels ?? {})) {
    errs.push(invalidGo('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplate(spec, 'spec', ['Always']));
  return errs;
}

/** kubectl's NAME DESIRED CURRENT READY AGE, and CONTAINERS IMAGES SELECTOR with -o wide. */
export const replicationControllerColumns = [
  nameColumn,
  ...replicaCountColumns,
  ageColumn,
  ...containerColumns(specTemplate),
  column('Selector', 'string', 'The label selector of the pods this controller manages.', (obj) => formatLabels(specOf(obj)['selector']), { priority: 1 }),
];

const scaleSelector = (obj: KubeObject): string => labelSelectorFromSet((recordAt(specOf(obj), 'selector') ?? {}) as Record<string, string>).toString();

export const replicationControllerOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: replicationControllerColumns,
  selectableFields: { 'status.replicas': (obj) => String(intAt(statusOf(obj), 'replicas')) },
  subresources: [...(generated.subresources ?? []), scaleSubresource(scaleSelector)],
  strategy: builtinStrategy({
    decode: defaultReplicationController,
    validate: validateReplicationController,
    ...workloadStatusHooks(['replicas']),
    validateSubresourceUpdate: (_sub, obj) => validateReplicaStatus(obj, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
  }),
});
