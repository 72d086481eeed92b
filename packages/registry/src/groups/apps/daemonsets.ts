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
  // apps/v1 carries the template generation in an annotation that its conversion always
  // writes (0 until the strategy sets it), so managedFields record it as kube's do.
  if (obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] === undefined) setTemplateGeneration(obj, '0');
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

function storedTemplateGeneration(obj: KubeObject): number {
  const value = Number(obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? '0');
  return Number.isFinite(value) ? value : 0;
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
    // The generation is always the stored one (what a client sends is ignored), + 1 when the template changes.
    prepareForUpdate(obj, old) {
      const previous = storedTemplateGeneration(old);
      setTemplateGeneration(obj, String(semanticEqual(specTemplate(obj), specTemplate(old)) ? previous : previous + 1));
    },
    prepareForSubresourceUpdate(subresource, obj, old) {
      statusHooks.prepareForSubresourceUpdate?.(subresource, obj, old);
      setTemplateGeneration(obj, String(storedTemplateGeneration(old)));
    },
  }),
});
