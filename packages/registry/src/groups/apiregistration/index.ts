/** apiregistration.k8s.io: hand-written behaviour by resource. */
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { GroupOverrides, ResourceOverride } from '../../builtin/override.js';

interface ApiServiceShape {
  readonly spec?: { readonly service?: { readonly namespace?: string; readonly name?: string } | null };
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly reason?: string }[] | null };
}

/** kubectl's NAME SERVICE AVAILABLE AGE (kube-aggregator's printer). */
export const apiServiceColumns = [
  nameColumn,
  column('Service', 'string', 'The reference to the service that hosts this API endpoint.', (obj) => {
    const service = (obj as ApiServiceShape).spec?.service;
    return service === undefined || service === null ? 'Local' : `${service.namespace ?? ''}/${service.name ?? ''}`;
  }),
  column('Available', 'string', 'Whether this service is available.', (obj) => {
    const available = (obj as ApiServiceShape).status?.conditions?.find((c) => c.type === 'Available');
    if (available === undefined) return 'Unknown';
    return available.status === 'True' ? 'True' : `${available.status ?? ''} (${available.reason ?? ''})`;
  }),
  ageColumn,
];

const apiServiceOverride: ResourceOverride = (generated) => ({ ...generated, printerColumns: apiServiceColumns });

export const apiregistrationOverrides: GroupOverrides = { apiservices: apiServiceOverride };
