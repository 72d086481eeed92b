/** apiregistration.k8s.io: hand-written behaviour by resource. */
import { ageColumn, column, fieldInvalid, fieldRequired, isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, nameColumn, nowRFC3339, type FieldError, type KubeObject } from '@kapi/machinery';
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

interface ApiServiceSpec {
  readonly group?: string;
  readonly version?: string;
  readonly groupPriorityMinimum?: number;
  readonly versionPriority?: number;
  readonly caBundle?: string;
  readonly insecureSkipTLSVerify?: boolean;
  readonly service?: { readonly namespace?: string; readonly name?: string; readonly port?: number } | null;
}

/**
 * kube-aggregator's ValidateAPIService: the name is `<version>.<group>` (`v1.` for the core
 * group, the only one whose group may be empty), priorities in range, a local APIService
 * (no service) without TLS settings, a remote one naming its Service and a valid port.
 */
function validateApiService(obj: KubeObject): FieldError[] {
  const spec = ((obj as { spec?: ApiServiceSpec }).spec ?? {});
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const name = obj.metadata.name ?? '';
  const errs: FieldError[] = [];
  const required = `${version}.${group}`;
  if (isValidPathSegmentName(name).length === 0 && name !== required) {
    errs.push(fieldInvalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (group === '' && version !== 'v1') errs.push(fieldRequired('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(fieldInvalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldInvalid('spec.version', version, msg));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(fieldInvalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(fieldInvalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = Buffer.from(spec.caBundle ?? '', 'base64');
  if (spec.service === undefined || spec.service === null) {
    if (caBundle.length > 0) errs.push(fieldInvalid('spec.caBundle', `${caBundle.length} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify === true) errs.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if ((spec.service.namespace ?? '') === '') errs.push(fieldRequired('spec.service.namespace'));
  if ((spec.service.name ?? '') === '') errs.push(fieldRequired('spec.service.name'));
  const port = spec.service.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldInvalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (spec.insecureSkipTLSVerify === true && caBundle.length > 0) errs.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

/**
 * kube-aggregator's PrepareForCreate: the status starts empty, and a local APIService (no
 * service) is Available at once, within the create (so the create answer carries the
 * condition, and no managedFields entry records it). Mutates `obj`.
 */
export function markLocalApiServiceAvailable(obj: KubeObject): void {
  const service = (obj as ApiServiceShape).spec?.service;
  if (service !== undefined && service !== null) return;
  obj['status'] = {
    conditions: [{ type: 'Available', status: 'True', lastTransitionTime: nowRFC3339(), reason: 'Local', message: 'Local APIServices are always available' }],
  };
}

const apiServiceOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: apiServiceColumns,
  // kube validates names only as path segments here; the `<version>.<group>` rule is the strategy's.
  nameValidation: 'PathSegmentName',
  strategy: {
    ...generated.strategy,
    prepareForCreate(obj, req): void {
      generated.strategy?.prepareForCreate?.(obj, req);
      markLocalApiServiceAvailable(obj);
    },
    validate: validateApiService,
  },
});

export const apiregistrationOverrides: GroupOverrides = { apiservices: apiServiceOverride };
