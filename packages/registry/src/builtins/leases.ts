/**
 * coordination.k8s.io/v1 Lease: a lightweight lock for leader election and heartbeats.
 * acquireTime/renewTime are MicroTime. leaseDurationSeconds > 0, leaseTransitions ≥ 0;
 * `strategy` must be a known coordinated-leader-election strategy or a qualified name, and
 * `preferredHolder` needs a strategy. Updates must carry a resourceVersion; PUT may create.
 */
import type { FieldError, JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldForbidden, fieldInvalid, fieldNotSupported, isQualifiedName, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import { COORDINATION_V1, COORDINATION_V1BETA1, META_V1, goType, int32, kindSchema, listSchema, ref, string } from '../schemas/schema-builders.js';
import { ALL_VERBS, builtinStrategy, recordAt } from './builtin-strategy.js';

const gvk = { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' };
const KNOWN_STRATEGIES = ['OldestEmulationVersion'];

const leaseSpec: JSONSchemaProps = {
  description: 'The desired state of a lease.',
  type: 'object',
  properties: {
    acquireTime: ref(`${META_V1}MicroTime`, 'When the current holder acquired the lease.'),
    holderIdentity: string('The identity of the current holder.'),
    leaseDurationSeconds: int32('How long candidates must wait before forcibly taking the lease, counted from the last renewTime.'),
    leaseTransitions: int32('How many times the lease has changed holders.'),
    preferredHolder: string('The holder the coordinated leader election wants next; only with a strategy.'),
    renewTime: ref(`${META_V1}MicroTime`, 'When the current holder last renewed the lease.'),
    strategy: goType('v1.CoordinatedLeaseStrategy', string('How coordinated leader election picks a holder, e.g. OldestEmulationVersion.')),
  },
};

export const leaseSchema: JSONSchemaProps = kindSchema(gvk, 'A lease: a lock with a holder and an expiry, used for leader election and heartbeats.', {
  spec: ref(`${COORDINATION_V1}LeaseSpec`, 'The lease holder and timing.'),
});

const gvkV1beta1 = { ...gvk, version: 'v1beta1' };

/** v1beta1 has the same fields as v1 (k8s.io/api's coordination/v1beta1 LeaseSpec); nothing to convert but apiVersion. */
export const leaseV1beta1Schema: JSONSchemaProps = kindSchema(gvkV1beta1, 'A lease: a lock with a holder and an expiry, used for leader election and heartbeats.', {
  spec: ref(`${COORDINATION_V1BETA1}LeaseSpec`, 'The lease holder and timing.'),
});

export const leaseDefinitions: Record<string, JSONSchemaProps> = {
  [`${COORDINATION_V1}Lease`]: leaseSchema,
  [`${COORDINATION_V1}LeaseSpec`]: leaseSpec,
  [`${COORDINATION_V1}LeaseList`]: listSchema(gvk, `${COORDINATION_V1}Lease`, 'A list of leases.', 'The leases.'),
  [`${COORDINATION_V1BETA1}Lease`]: leaseV1beta1Schema,
  [`${COORDINATION_V1BETA1}LeaseSpec`]: leaseSpec,
  [`${COORDINATION_V1BETA1}LeaseList`]: listSchema(gvkV1beta1, `${COORDINATION_V1BETA1}Lease`, 'A list of leases.', 'The leases.'),
};

function validateLease(obj: KubeObject): FieldError[] {
  const spec = recordAt(obj, 'spec');
  if (spec === undefined) return [];
  const errs: FieldError[] = [];
  const duration = spec['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0) errs.push(fieldInvalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = spec['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(fieldInvalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  const strategy = spec['strategy'];
  if (typeof strategy === 'string') {
    if (!strategy.includes('/')) {
      if (!KNOWN_STRATEGIES.includes(strategy)) errs.push(fieldNotSupported('spec.strategy', strategy, KNOWN_STRATEGIES));
    } else {
      for (const msg of isQualifiedName(strategy)) errs.push(fieldInvalid('spec.strategy', strategy, msg));
    }
  }
  const preferred = spec['preferredHolder'];
  if (typeof preferred === 'string' && preferred !== '' && (typeof strategy !== 'string' || strategy === '')) {
    errs.push(fieldForbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

/** kubectl's NAME HOLDER AGE. */
export const leaseColumns = [
  nameColumn,
  column('Holder', 'string', 'The identity of the current holder of the lease.', (obj) => {
    const holder = recordAt(obj, 'spec')?.['holderIdentity'];
    return typeof holder === 'string' ? holder : '';
  }),
  ageColumn,
];

export const leases: ResourceDefinition = {
  group: 'coordination.k8s.io',
  kind: 'Lease',
  listKind: 'LeaseList',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  versions: [
    { name: 'v1', served: true, storage: true, schema: leaseSchema },
    {
      // Deprecated in 1.19 and no longer served by kube from 1.22; kapi (emulating 1.32)
      // still serves it, with kube's deprecation warning, until --runtime-config disables it.
      name: 'v1beta1',
      served: true,
      storage: false,
      schema: leaseV1beta1Schema,
      deprecated: { deprecatedRelease: '1.19', removedRelease: '1.22', replacement: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' } },
    },
  ],
  verbs: [...ALL_VERBS],
  omitEmptyCollections: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  printerColumns: leaseColumns,
  strategy: builtinStrategy({ validate: validateLease }),
};
