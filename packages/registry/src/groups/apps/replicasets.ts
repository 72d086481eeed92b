/**
 * apps/v1 ReplicaSet: replicas default 1 and the template's PodSpec defaults; the selector
 * is required, not empty, selects the template and never changes; restartPolicy Always.
 * `kubectl get rs`: DESIRED CURRENT READY; /scale is the view of spec.replicas.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy } from '../../builtin/builtin-strategy.js';
import { defaultPodTemplateSpec } from '../core/pod-template-defaults.js';
import {
  containerColumns,
  ensureRecord,
  intAt,
  labelSelectorForScale,
  nonNegative,
  scaleSubresource,
  selectorColumn,
  selectorImmutable,
  setIfAbsent,
  specOf,
  specTemplate,
  statusOf,
  validatePodTemplate,
  validateReplicaStatus,
  validateSelectorAndTemplate,
  workloadStatusHooks,
} from './pod-controller.js';

function defaultReplicaSet(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  setIfAbsent(spec, 'replicas', 1);
  defaultPodTemplateSpec(ensureRecord(spec, 'template'));
}

function validateReplicaSet(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  return [
    ...nonNegative(spec, 'replicas', 'spec'),
    ...nonNegative(spec, 'minReadySeconds', 'spec'),
    ...validateSelectorAndTemplate(spec, 'spec', 'deployment'),
    ...validatePodTemplate(spec, 'spec', ['Always']),
  ];
}

/** DESIRED, CURRENT and READY: spec.replicas, status.replicas, status.readyReplicas (ReplicaSets and ReplicationControllers). */
export const replicaCountColumns = [
  column('Desired', 'integer', 'Number of desired pods.', (obj) => intAt(specOf(obj), 'replicas')),
  column('Current', 'integer', 'Number of pods the controller has created.', (obj) => intAt(statusOf(obj), 'replicas')),
  column('Ready', 'integer', 'Number of ready pods.', (obj) => intAt(statusOf(obj), 'readyReplicas')),
];

export const replicaSetColumns = [nameColumn, ...replicaCountColumns, ageColumn, ...containerColumns(specTemplate), selectorColumn];

export const replicaSetOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: replicaSetColumns,
  subresources: [...(generated.subresources ?? []), scaleSubresource(labelSelectorForScale)],
  strategy: builtinStrategy({
    decode: defaultReplicaSet,
    validate: validateReplicaSet,
    validateUpdate: selectorImmutable,
    ...workloadStatusHooks(['replicas']),
    validateSubresourceUpdate: (_sub, obj) => validateReplicaStatus(obj, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
  }),
});
