/**
 * Pods as the watch cache indexes them: by `spec.nodeName`, which every kubelet (and KWOK
 * node) lists and watches its pods by. The pods' own behaviour (strategy, all their field
 * selectors) is the pods slice's; until it lands, this declares the one selectable field the
 * index needs.
 */
import type { ResourceDefinition } from '../../definition.js';
import { stringAt } from '../../builtin/builtin-strategy.js';

export const POD_INDEXED_FIELDS = ['spec.nodeName'] as const;

export const podNodeNameField: Partial<ResourceDefinition> = {
  selectableFields: { 'spec.nodeName': (pod) => stringAt(pod, ['spec', 'nodeName']) },
};
