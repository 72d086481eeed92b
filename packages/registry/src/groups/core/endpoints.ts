/**
 * core/v1 Endpoints: port protocols default to TCP (kube's SetDefaults_Endpoints), every
 * address's IP is one a Service may route to (see endpoint-ip.ts), and
 * kubectl's NAME ENDPOINTS AGE, where ENDPOINTS lists `ip:port` (or the bare IP of a subset
 * without ports), three at most and then "+ N more...".
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy } from '../../builtin/builtin-strategy.js';
import { NONE, listWithMore } from './network-columns.js';
import { endpointIPErrors } from './endpoint-ip.js';

type Entry = Record<string, unknown>;
const entries = (value: unknown): Entry[] => (Array.isArray(value) ? (value as Entry[]).filter((e) => typeof e === 'object' && e !== null) : []);

function hostPort(ip: string, port: unknown): string {
  return ip.includes(':') ? `[${ip}]:${String(port)}` : `${ip}:${String(port)}`;
}

function formatEndpoints(obj: KubeObject): string {
  const subsets = entries(obj['subsets']);
  if (subsets.length === 0) return NONE;
  const items: string[] = [];
  for (const subset of subsets) {
    const addresses = entries(subset['addresses']).map((a) => String(a['ip'] ?? ''));
    const ports = entries(subset['ports']);
    if (ports.length === 0) items.push(...addresses);
    for (const port of ports) for (const ip of addresses) items.push(hostPort(ip, port['port']));
  }
  return listWithMore(items, 3, '');
}

function defaultEndpoints(obj: KubeObject): void {
  for (const subset of entries(obj['subsets'])) {
    for (const port of entries(subset['ports'])) if (port['protocol'] === undefined || port['protocol'] === '') port['protocol'] = 'TCP';
  }
}

/** kube's address checks of validateEndpointSubsets: `addresses`, then `notReadyAddresses`, per subset. */
function validateEndpoints(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  entries(obj['subsets']).forEach((subset, i) => {
    for (const list of ['addresses', 'notReadyAddresses']) {
      entries(subset[list]).forEach((address, j) => {
        errs.push(...endpointIPErrors(`subsets[${i}].${list}[${j}].ip`, typeof address['ip'] === 'string' ? address['ip'] : ''));
      });
    }
  });
  return errs;
}

export const endpointsColumns = [
  nameColumn,
  column('Endpoints', 'string', 'The addresses and ports of the endpoints, at most three, then how many more.', formatEndpoints),
  ageColumn,
];

/** What endpoints do beyond the generic built-in store. */
export const endpointsBehaviour: Partial<ResourceDefinition> = {
  printerColumns: endpointsColumns,
  strategy: builtinStrategy({ decode: defaultEndpoints, validate: validateEndpoints }),
};
