/**
 * networking.k8s.io: kubectl's columns for Ingresses (NAME CLASS HOSTS ADDRESS PORTS AGE),
 * IngressClasses (NAME CONTROLLER PARAMETERS AGE) and NetworkPolicies (NAME POD-SELECTOR
 * AGE). The group's defaults are defaults.ts.
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { recordAt } from '../../builtin/builtin-strategy.js';
import { NONE, formatLabelSelector, loadBalancerIngress } from '../core/network-columns.js';

const spec = (obj: KubeObject): Record<string, unknown> => recordAt(obj, 'spec') ?? {};

function hosts(obj: KubeObject): string {
  const rules = Array.isArray(spec(obj)['rules']) ? (spec(obj)['rules'] as Record<string, unknown>[]) : [];
  const list: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (list.length === 3) more = true;
    if (!more && typeof rule['host'] === 'string' && rule['host'] !== '') list.push(rule['host']);
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${rules.length - 3} more...` : list.join(',');
}

function parameters(obj: KubeObject): string {
  const p = recordAt(spec(obj), 'parameters');
  if (p === undefined) return NONE;
  const kind = typeof p['apiGroup'] === 'string' ? `${String(p['kind'] ?? '')}.${p['apiGroup']}` : String(p['kind'] ?? '');
  return `${kind}/${String(p['name'] ?? '')}`;
}

const ingressColumns = [
  nameColumn,
  column('Class', 'string', 'The IngressClass that configures the Ingress.', (obj) => (typeof spec(obj)['ingressClassName'] === 'string' ? spec(obj)['ingressClassName'] : NONE)),
  column('Hosts', 'string', 'The hosts the Ingress\'s rules match.', hosts),
  column('Address', 'string', 'Where the load balancer receives the Ingress\'s traffic.', (obj) => loadBalancerIngress(recordAt(recordAt(obj, 'status') ?? {}, 'loadBalancer'))),
  column('Ports', 'string', 'The ports the Ingress opens (443 as well with TLS).', (obj) => (Array.isArray(spec(obj)['tls']) && (spec(obj)['tls'] as unknown[]).length > 0 ? '80, 443' : '80')),
  ageColumn,
];

const ingressClassColumns = [
  nameColumn,
  column('Controller', 'string', 'The controller that implements the class.', (obj) => String(spec(obj)['controller'] ?? '')),
  column('Parameters', 'string', 'The resource that holds the class\'s parameters.', parameters),
  ageColumn,
];

const networkPolicyColumns = [
  nameColumn,
  column('Pod-Selector', 'string', 'The pods the policy applies to.', (obj) => formatLabelSelector(spec(obj)['podSelector'])),
  ageColumn,
];

export const networkingOverrides: GroupOverrides = {
  ingresses: withBehaviour({ printerColumns: ingressColumns }),
  ingressclasses: withBehaviour({ printerColumns: ingressClassColumns }),
  networkpolicies: withBehaviour({ printerColumns: networkPolicyColumns }),
};
