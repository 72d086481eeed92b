/**
 * certificates.k8s.io/v1 CertificateSigningRequest as kube serves it:
 * - a create records who asks (spec.username, uid, groups, extra from the request's user,
 *   whatever the body said) and starts with an empty status (no pre-approved requests);
 * - the main resource changes metadata only (spec and status kept);
 * - `/approval` changes status.conditions only (kubectl certificate approve/deny), `/status`
 *   changes status only; condition timestamps are filled in (lastUpdateTime now,
 *   lastTransitionTime kept while a condition's status stays);
 * - field selector spec.signerName; `kubectl get csr` columns NAME AGE SIGNERNAME REQUESTOR
 *   REQUESTEDDURATION CONDITION.
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, humanDuration, nameColumn, nowRFC3339 } from '@kapi/machinery';
import type { RequestContext, ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt, stringAt } from '../../builtin/builtin-strategy.js';
import { conditionsOf, validateCSR, validateCSRUpdate } from './csr-validation.js';

function recordRequester(csr: KubeObject, req: RequestContext | undefined): void {
  const spec = recordAt(csr, 'spec') ?? {};
  csr['spec'] = spec;
  for (const field of ['username', 'uid', 'groups', 'extra']) delete spec[field];
  const user = req?.user;
  if (user === undefined) return;
  if (user.name !== '') spec['username'] = user.name;
  if (user.uid !== '') spec['uid'] = user.uid;
  if (user.groups.length > 0) spec['groups'] = [...user.groups];
  if (Object.keys(user.extra).length > 0) spec['extra'] = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
}

/** Fills in condition timestamps as kube does on every write. */
function stampConditions(csr: KubeObject, old: KubeObject | undefined): void {
  const now = nowRFC3339();
  const before = old === undefined ? [] : conditionsOf(old);
  for (const condition of conditionsOf(csr)) {
    if (!condition['lastUpdateTime']) condition['lastUpdateTime'] = now;
    if (condition['lastTransitionTime']) continue;
    const previous = before.find((c) => c['type'] === condition['type']);
    condition['lastTransitionTime'] = previous !== undefined && previous['status'] === condition['status'] && previous['lastTransitionTime'] ? previous['lastTransitionTime'] : now;
  }
}

function keep(obj: KubeObject, old: KubeObject, field: string): void {
  if (old[field] === undefined) delete obj[field];
  else obj[field] = structuredClone(old[field]);
}

/** kubectl's CONDITION: Denied, else Approved, else Pending; then Failed and Issued. */
function condition(csr: KubeObject): string {
  const types = new Set(conditionsOf(csr).map((c) => c['type']));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (stringAt(csr, ['status', 'certificate'])) out += ',Issued';
  return out;
}

function requestedDuration(csr: KubeObject): string {
  const seconds = recordAt(csr, 'spec')?.['expirationSeconds'];
  return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
}

export const csrColumns = [
  nameColumn,
  ageColumn,
  column('SignerName', 'string', 'The signer the request asks for.', (csr) => stringAt(csr, ['spec', 'signerName']) ?? ''),
  column('Requestor', 'string', 'The user who created the request.', (csr) => stringAt(csr, ['spec', 'username']) ?? ''),
  column('RequestedDuration', 'string', 'The validity the request asks for.', requestedDuration),
  column('Condition', 'string', 'Approval and issuance of the request.', condition),
];

/** What CertificateSigningRequests do beyond the generic built-in store. */
export const csrBehaviour: Partial<ResourceDefinition> = {
  selectableFields: { 'spec.signerName': (csr) => stringAt(csr, ['spec', 'signerName']) },
  printerColumns: csrColumns,
  subresources: [
    { name: 'status', verbs: ['get', 'patch', 'update'] },
    { name: 'approval', verbs: ['get', 'patch', 'update'] },
  ],
  // kube's CSR strategies: the requester's spec is never owned by a write of the main
  // resource (the server fills it), and /status owns neither spec nor the conditions.
  resetFields: {
    '': [['spec'], ['status']],
    status: [['spec'], ['status', 'conditions']],
    approval: [['spec'], ['status', 'certificate']],
  },
  strategy: builtinStrategy({
    prepareForCreate(csr, req) {
      recordRequester(csr, req);
      csr['status'] = {};
    },
    prepareForUpdate(csr, old) {
      keep(csr, old, 'spec');
    },
    prepareForSubresourceUpdate(subresource, csr, old) {
      keep(csr, old, 'spec');
      if (subresource === 'approval') {
        const status = structuredClone(recordAt(old, 'status') ?? {});
        const conditions = recordAt(csr, 'status')?.['conditions'];
        if (conditions === undefined) delete status['conditions'];
        else status['conditions'] = conditions;
        csr['status'] = status;
      }
      stampConditions(csr, old);
    },
    validate: validateCSR,
    validateUpdate: (csr, old) => validateCSRUpdate('', csr, old),
    validateSubresourceUpdate: (subresource, csr, old) => validateCSRUpdate(subresource, csr, old),
  }),
};
