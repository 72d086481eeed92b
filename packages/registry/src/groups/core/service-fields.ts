/**
 * The field selectors kube registers for core/v1 Services (besides metadata): spec.clusterIP
 * and spec.type, as kube-proxy and controllers select them. Kept apart from the Service
 * strategy so the two can be composed.
 */
import type { FieldGetter } from '../../definition.js';
import { stringAt } from '../../builtin/builtin-strategy.js';

export const serviceSelectableFields: Record<string, FieldGetter> = {
  'spec.clusterIP': (service) => stringAt(service, ['spec', 'clusterIP']),
  'spec.type': (service) => stringAt(service, ['spec', 'type']),
};
