/**
 * networking.k8s.io defaulting: a NetworkPolicy's policy types and port protocols; an
 * IngressClass's parameters are cluster-scoped unless said otherwise.
 */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';
import { recordAt } from '../../builtin/builtin-strategy.js';

/** kube's SetDefaults_NetworkPolicySpec: policyTypes from the rules present when unset; port protocols TCP. */
function defaultNetworkPolicy(obj: KubeObject): void {
  const s = recordAt(obj, 'spec');
  if (s === undefined) return;
  for (const direction of ['ingress', 'egress']) {
    for (const rule of Array.isArray(s[direction]) ? (s[direction] as Record<string, unknown>[]) : []) {
      for (const port of Array.isArray(rule['ports']) ? (rule['ports'] as Record<string, unknown>[]) : []) {
        if (port['protocol'] === undefined || port['protocol'] === '') port['protocol'] = 'TCP';
      }
    }
  }
  if (!Array.isArray(s['policyTypes']) || (s['policyTypes'] as unknown[]).length === 0) {
    s['policyTypes'] = Array.isArray(s['egress']) && (s['egress'] as unknown[]).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

function defaultIngressClass(obj: KubeObject): void {
  const parameters = recordAt(recordAt(obj, 'spec') ?? {}, 'parameters');
  if (parameters !== undefined && parameters['scope'] === undefined) parameters['scope'] = 'Cluster';
}

export const networkingDefaults: GroupDefaults = {
  networkpolicies: { decode: defaultNetworkPolicy },
  ingressclasses: { decode: defaultIngressClass },
};
