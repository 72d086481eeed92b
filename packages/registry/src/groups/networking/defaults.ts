/** networking.k8s.io defaulting beyond NetworkPolicy's (index.ts): an IngressClass's parameters are cluster-scoped unless said otherwise. */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';
import { recordAt } from '../../builtin/builtin-strategy.js';

function defaultIngressClass(obj: KubeObject): void {
  const parameters = recordAt(recordAt(obj, 'spec') ?? {}, 'parameters');
  if (parameters !== undefined && parameters['scope'] === undefined) parameters['scope'] = 'Cluster';
}

export const networkingDefaults: GroupDefaults = {
  ingressclasses: { decode: defaultIngressClass },
};
