/**
 * apps/v1 StatefulSet. Defaults: replicas 1, podManagementPolicy OrderedReady,
 * updateStrategy RollingUpdate with partition 0, revisionHistoryLimit 10, the PVC retention
 * policy Retain/Retain, each volumeClaimTemplate as a typed PersistentVolumeClaim
 * (apiVersion/kind, volumeMode Filesystem, status.phase Pending) and the template's PodSpec
 * defaults. Only replicas, ordinals, template, updateStrategy, the retention policy and
 * minReadySeconds may change. `kubectl get sts`: READY; /scale is the view of spec.replicas.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldForbidden, fieldInvalid, fieldNotSupported, isPlainObject, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { semanticEqual } from '../../semantic-equal.js';
import { defaultPodTemplateSpec } from '../core/pod-template-defaults.js';
import {
  containerColumns,
  ensureRecord,
  intAt,
  labelSelectorForScale,
  nonNegative,
  scaleSubresource,
  setIfAbsent,
  specOf,
  specTemplate,
  statusOf,
  validatePodTemplate,
  validateSelectorAndTemplate,
  workloadStatusHooks,
} from './pod-controller.js';

function defaultStatefulSet(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  setIfAbsent(spec, 'podManagementPolicy', 'OrderedReady');
  const update = ensureRecord(spec, 'updateStrategy');
  setIfAbsent(update, 'type', 'RollingUpdate');
  if (update['type'] === 'RollingUpdate') setIfAbsent(ensureRecord(update, 'rollingUpdate'), 'partition', 0);
  setIfAbsent(spec, 'replicas', 1);
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
  const retention = ensureRecord(spec, 'persistentVolumeClaimRetentionPolicy');
  setIfAbsent(retention, 'whenDeleted', 'Retain');
  setIfAbsent(retention, 'whenScaled', 'Retain');
  const claims = spec['volumeClaimTemplates'];
  if (Array.isArray(claims)) {
    for (const claim of claims) {
      if (!isPlainObject(claim)) continue;
      claim['apiVersion'] = 'v1';
      claim['kind'] = 'PersistentVolumeClaim';
      setIfAbsent(ensureRecord(claim, 'spec'), 'volumeMode', 'Filesystem');
      setIfAbsent(ensureRecord(claim, 'status'), 'phase', 'Pending');
    }
  }
  defaultPodTemplateSpec(ensureRecord(spec, 'template'));
}

function validateStatefulSet(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const policy = spec['podManagementPolicy'];
  if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(fieldInvalid('spec.podManagementPolicy', policy ?? '', "must be 'OrderedReady' or 'Parallel'"));
  const type = recordAt(spec, 'updateStrategy')?.['type'];
  if (type !== 'RollingUpdate' && type !== 'OnDelete') errs.push(fieldNotSupported('spec.updateStrategy.type', type ?? '', ['OnDelete', 'RollingUpdate']));
  errs.push(
    ...nonNegative(spec, 'replicas', 'spec'),
    ...nonNegative(spec, 'minReadySeconds', 'spec'),
    ...validateSelectorAndTemplate(spec, 'spec', 'statefulset'),
    ...validatePodTemplate(spec, 'spec', ['Always']),
  );
  return errs;
}

const MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const rest = (o: KubeObject) => Object.fromEntries(Object.entries(specOf(o)).filter(([k]) => !MUTABLE.includes(k)));
  if (semanticEqual(rest(obj), rest(old))) return [];
  return [
    fieldForbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** kubectl's NAME READY AGE, and CONTAINERS IMAGES with -o wide. */
export const statefulSetColumns = [
  nameColumn,
  column('Ready', 'string', 'Number of ready pods out of the desired replicas.', (obj) => `${intAt(statusOf(obj), 'readyReplicas')}/${intAt(specOf(obj), 'replicas')}`),
  ageColumn,
  ...containerColumns(specTemplate),
];

export const statefulSetOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: statefulSetColumns,
  subresources: [...(generated.subresources ?? []), scaleSubresource(labelSelectorForScale)],
  strategy: builtinStrategy({
    decode: defaultStatefulSet,
    validate: validateStatefulSet,
    validateUpdate: validateStatefulSetUpdate,
    ...workloadStatusHooks(['replicas', 'availableReplicas']),
  }),
});
