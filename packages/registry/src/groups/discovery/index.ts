/**
 * discovery.k8s.io: EndpointSlices. Port protocols default to TCP and names to "" (kube's
 * SetDefaults_EndpointPort), endpoints carry `conditions` (a struct in Go), port names are
 * unique; kubectl's NAME ADDRESSTYPE PORTS ENDPOINTS AGE, the lists cut
 * at three entries with "+ N more..." and `<unset>` when empty.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { builtinStrategy } from '../../builtin/builtin-strategy.js';
import { listWithMore } from '../core/network-columns.js';

type Entry = Record<string, unknown>;
const entries = (value: unknown): Entry[] => (Array.isArray(value) ? (value as Entry[]).filter((e) => typeof e === 'object' && e !== null) : []);

function ports(obj: KubeObject): string {
  const items = entries(obj['ports']).map((p) => (typeof p['port'] === 'number' ? String(p['port']) : typeof p['name'] === 'string' ? p['name'] : '*'));
  return listWithMore(items, 3, '<unset>');
}

function endpoints(obj: KubeObject): string {
  const items = entries(obj['endpoints']).flatMap((e) => (Array.isArray(e['addresses']) ? (e['addresses'] as unknown[]).map(String) : []));
  return listWithMore(items, 3, '<unset>');
}

export const endpointSliceColumns = [
  nameColumn,
  column('AddressType', 'string', 'The kind of address the slice carries: IPv4, IPv6 or FQDN.', (obj) => String(obj['addressType'] ?? '')),
  column('Ports', 'string', 'The ports of the slice\'s endpoints, at most three, then how many more.', ports),
  column('Endpoints', 'string', 'The addresses of the slice\'s endpoints, at most three, then how many more.', endpoints),
  ageColumn,
];

/** kube's rule that an EndpointSlice's port names are unique ("" included). */
function validatePortNames(obj: KubeObject): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  entries(obj['ports']).forEach((port, i) => {
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `ports[${i}].name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    seen.add(name);
  });
  return errs;
}

export const discoveryOverrides: GroupOverrides = {
  endpointslices: withBehaviour({
    printerColumns: endpointSliceColumns,
    strategy: builtinStrategy({
      validate: validatePortNames,
      decode(obj) {
        for (const port of entries(obj['ports'])) if (port['protocol'] === undefined || port['protocol'] === '') port['protocol'] = 'TCP';
        for (const port of entries(obj['ports'])) port['name'] ??= '';
        // A Go struct, not a pointer: kube always writes it.
        for (const endpoint of entries(obj['endpoints'])) endpoint['conditions'] ??= {};
      },
    }),
  }),
};
