/**
 * Pods as the watch cache indexes them: by `spec.nodeName`, which every kubelet (and KWOK
 * node) lists and watches its pods by. The pods' own behaviour (strategy, all their field
 * selectors) is the pods slice's; until it lands, this declares the selectable fields the
 * index and `kubectl describe node` need.
 */
import type { ResourceDefinition } from '../../definition.js';
import { stringAt } from '../../builtin/builtin-strategy.js';

export const POD_INDEXED_FIELDS = ['spec.nodeName'] as const;

export const podNodeNameField: Partial<ResourceDefinition> = {
  selectableFields: {
    'spec.nodeName': (pod) => stringAt(pod, ['spec', 'nodeName']),
    // kubectl describe node lists the node's pods by spec.nodeName and status.phase.
    'status.phase': (pod) => stringAt(pod, ['status', 'phase']),
  },
};
