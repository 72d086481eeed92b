/**
 * core/v1 PodTemplate: the template's PodSpec defaults; containers are required.
 * `kubectl get podtemplates`: CONTAINERS IMAGES POD LABELS.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { column, fieldRequired, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { containerColumns, formatLabels } from '../apps/pod-controller.js';
import { defaultPodTemplateSpec } from './pod-template-defaults.js';

const template = (obj: KubeObject) => recordAt(obj, 'template');

function validatePodTemplate(obj: KubeObject): FieldError[] {
  const containers = recordAt(template(obj) ?? {}, 'spec')?.['containers'];
  return Array.isArray(containers) && containers.length > 0 ? [] : [fieldRequired('template.spec.containers')];
}

export const podTemplateBehaviour: Partial<ResourceDefinition> = {
  printerColumns: [
    nameColumn,
    ...containerColumns(template, 0),
    column('Pod Labels', 'string', 'The labels of the pods made from the template.', (obj) => formatLabels(recordAt(template(obj) ?? {}, 'metadata')?.['labels'])),
  ],
  strategy: builtinStrategy({
    decode: (obj) => defaultPodTemplateSpec(obj['template']),
    validate: validatePodTemplate,
  }),
};
