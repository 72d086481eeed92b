/**
 * apps/v1 DaemonSet. Defaults: updateStrategy RollingUpdate with maxUnavailable 1 and
 * maxSurge 0, revisionHistoryLimit 10, the template's PodSpec defaults. The selector is
 * required, not empty, selects the template and never changes; restartPolicy Always.
 * `kubectl get ds`: DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldNotSupported, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { semanticEqual } from '../../semantic-equal.js';
import { defaultPodTemplateSpec } from '../core/pod-template-defaults.js';
import {
  containerColumns,
  ensureRecord,
  formatLabels,
  intAt,
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
} from './pod-controller.js';

function defaultDaemonSet(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  const update = ensureRecord(spec, 'updateStrategy');
  setIfAbsent(update, 'type', 'RollingUpdate');
  if (update['type'] === 'RollingUpdate') {
    const rolling = ensureRecord(update, 'rollingUpdate');
    setIfAbsent(rolling, 'maxUnavailable', 1);
    setIfAbsent(rolling, 'maxSurge', 0);
  }
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(ensureRecord(spec, 'template'));
}

function validateDaemonSet(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = [
    ...nonNegative(spec, 'minReadySeconds', 'spec'),
    ...nonNegative(spec, 'revisionHistoryLimit', 'spec'),
    ...validateSelectorAndTemplate(spec, 'spec', 'daemonset'),
    ...validatePodTemplate(spec, 'spec', ['Always']),
  ];
  const type = recordAt(spec, 'updateStrategy')?.['type'];
  if (type !== 'RollingUpdate' && type !== 'OnDelete') errs.push(fieldNotSupported('spec.updateStrategy.type', type ?? '', ['OnDelete', 'RollingUpdate']));
  return errs;
}

const count = (name: string, description: string, field: string) => column(name, 'integer', description, (obj) => intAt(statusOf(obj), field));

/** kubectl's NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, and CONTAINERS IMAGES SELECTOR with -o wide. */
export const daemonSetColumns = [
  nameColumn,
  count('Desired', 'Number of nodes that should run the daemon pod.', 'desiredNumberScheduled'),
  count('Current', 'Number of nodes running at least one daemon pod that should.', 'currentNumberScheduled'),
  count('Ready', 'Number of nodes whose daemon pod is ready.', 'numberReady'),
  count('Up-to-date', 'Number of nodes running the updated daemon pod.', 'updatedNumberScheduled'),
  count('Available', 'Number of nodes whose daemon pod is available.', 'numberAvailable'),
  column('Node Selector', 'string', 'The node selector of the pod template.', (obj) => formatLabels(recordAt(specTemplate(obj) ?? {}, 'spec')?.['nodeSelector'])),
  ageColumn,
  ...containerColumns(specTemplate),
  selectorColumn,
];

/** kube keeps the template's generation in this annotation (1 on create, + 1 whenever the template changes). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

function setTemplateGeneration(obj: KubeObject, generation: string): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: generation };
}

const statusHooks = workloadStatusHooks(['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady']);

export const daemonSetOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: daemonSetColumns,
  strategy: builtinStrategy({
    decode: defaultDaemonSet,
    validate: validateDaemonSet,
    validateUpdate: selectorImmutable,
    ...statusHooks,
    prepareForCreate(obj) {
      statusHooks.prepareForCreate?.(obj);
      setTemplateGeneration(obj, '1');
    },
    prepareForUpdate(obj, old) {
      const previous = Number(old.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? '0');
      if (!semanticEqual(specTemplate(obj), specTemplate(old))) setTemplateGeneration(obj, String((Number.isFinite(previous) ? previous : 0) + 1));
      else if (obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] === undefined && old.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] !== undefined) {
        setTemplateGeneration(obj, old.metadata.annotations[TEMPLATE_GENERATION_ANNOTATION]);
      }
    },
  }),
});
