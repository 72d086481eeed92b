/**
 * apps/v1 Deployment. Defaults: replicas 1, strategy RollingUpdate with 25%/25%,
 * revisionHistoryLimit 10, progressDeadlineSeconds 600 and the template's PodSpec defaults.
 * Validation: the selector is required, not empty, selects the template and never changes;
 * restartPolicy Always; the strategy's shape. `kubectl get deploy`: READY UP-TO-DATE
 * AVAILABLE; /scale is the autoscaling/v1 view of spec.replicas.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldForbidden, fieldInvalid, fieldNotSupported, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { defaultPodTemplateSpec } from '../core/pod-template-defaults.js';
import { goIntOrString } from './go-syntax.js';
import {
  containerColumns,
  ensureRecord,
  intAt,
  invalidGo,
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

function defaultDeployment(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  setIfAbsent(spec, 'replicas', 1);
  const strategy = ensureRecord(spec, 'strategy');
  setIfAbsent(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = ensureRecord(strategy, 'rollingUpdate');
    setIfAbsent(rolling, 'maxUnavailable', '25%');
    setIfAbsent(rolling, 'maxSurge', '25%');
  }
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
  setIfAbsent(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateSpec(ensureRecord(spec, 'template'));
}

/** 0, "0" or "0%". */
function isZero(value: unknown): boolean {
  return value === 0 || value === '0%' || value === '0';
}

/** An int-or-percent of a rolling update: non-negative, a percent at most 100%. */
function validateIntOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'number') return value < 0 ? [fieldInvalid(path, value, 'must be greater than or equal to 0')] : [];
  if (typeof value !== 'string') return [];
  if (!/^[0-9]+%$/.test(value)) {
    return [invalidGo(path, goIntOrString(value), "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return Number(value.slice(0, -1)) > 100 ? [invalidGo(path, goIntOrString(value), 'must not be greater than 100%')] : [];
}

function validateStrategy(spec: Record<string, unknown>): FieldError[] {
  const strategy = recordAt(spec, 'strategy') ?? {};
  const type = strategy['type'];
  const rolling = recordAt(strategy, 'rollingUpdate');
  const errs: FieldError[] = [];
  if (type === 'Recreate') {
    if (rolling !== undefined) errs.push(fieldForbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  } else if (type === 'RollingUpdate') {
    if (rolling !== undefined) {
      errs.push(...validateIntOrPercent(rolling['maxUnavailable'], 'spec.strategy.rollingUpdate.maxUnavailable'));
      errs.push(...validateIntOrPercent(rolling['maxSurge'], 'spec.strategy.rollingUpdate.maxSurge'));
      if (isZero(rolling['maxSurge']) && isZero(rolling['maxUnavailable'])) {
        errs.push(invalidGo('spec.strategy.rollingUpdate.maxUnavailable', goIntOrString(rolling['maxUnavailable']), 'may not be 0 when `maxSurge` is 0'));
      }
    }
  } else {
    errs.push(fieldNotSupported('spec.strategy.type', type ?? '', ['Recreate', 'RollingUpdate']));
  }
  return errs;
}

function validateDeployment(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = [
    ...nonNegative(spec, 'replicas', 'spec'),
    ...validateSelectorAndTemplate(spec, 'spec', 'deployment'),
    ...validatePodTemplate(spec, 'spec', ['Always']),
    ...validateStrategy(spec),
    ...nonNegative(spec, 'minReadySeconds', 'spec'),
    ...nonNegative(spec, 'revisionHistoryLimit', 'spec'),
  ];
  const deadline = spec['progressDeadlineSeconds'];
  if (typeof deadline === 'number') {
    errs.push(...nonNegative(spec, 'progressDeadlineSeconds', 'spec'));
    if (deadline <= intAt(spec, 'minReadySeconds')) errs.push(fieldInvalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** kubectl's NAME READY UP-TO-DATE AVAILABLE AGE, and CONTAINERS IMAGES SELECTOR with -o wide. */
export const deploymentColumns = [
  nameColumn,
  column('Ready', 'string', 'Number of ready pods out of the desired replicas.', (obj) => `${intAt(statusOf(obj), 'readyReplicas')}/${intAt(specOf(obj), 'replicas')}`),
  column('Up-to-date', 'string', 'Number of pods updated to the latest template.', (obj) => intAt(statusOf(obj), 'updatedReplicas')),
  column('Available', 'string', 'Number of pods available to serve (ready for at least minReadySeconds).', (obj) => intAt(statusOf(obj), 'availableReplicas')),
  ageColumn,
  ...containerColumns(specTemplate),
  selectorColumn,
];

export const deploymentOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: deploymentColumns,
  subresources: [...(generated.subresources ?? []), scaleSubresource(labelSelectorForScale)],
  strategy: builtinStrategy({
    decode: defaultDeployment,
    validate: validateDeployment,
    validateUpdate: selectorImmutable,
    ...workloadStatusHooks([]),
    validateSubresourceUpdate: (_sub, obj) => validateReplicaStatus(obj, ['updatedReplicas', 'readyReplicas', 'availableReplicas']),
  }),
});
