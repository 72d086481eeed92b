/**
 * coordination.k8s.io/v1 Lease: a lightweight lock for leader election and heartbeats.
 * acquireTime/renewTime are MicroTime. leaseDurationSeconds > 0, leaseTransitions ≥ 0;
 * `strategy` must be a known coordinated-leader-election strategy or a qualified name, and
 * `preferredHolder` needs a strategy. Updates must carry a resourceVersion; PUT may create.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldForbidden, fieldInvalid, fieldNotSupported, isQualifiedName, nameColumn } from '@kapi/machinery';
import type { VersionDefinition } from '../../definition.js';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { schemaOf } from '../../builtin/schemas.js';

const KNOWN_STRATEGIES = ['OldestEmulationVersion'];

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

/**
 * Deprecated in 1.19 and no longer served by kube from 1.22; kapi (emulating 1.32) still
 * serves it, with kube's deprecation warning, until --runtime-config disables it. Same fields
 * as v1: nothing to convert but apiVersion.
 */
const v1beta1: VersionDefinition = {
  name: 'v1beta1',
  served: true,
  storage: false,
  schema: schemaOf('io.k8s.api.coordination.v1beta1.Lease'),
  deprecated: { deprecatedRelease: '1.19', removedRelease: '1.22', replacement: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' } },
};

/** Leases: kube's validation and columns, and the deprecated v1beta1 besides v1. */
export const leaseOverride: ResourceOverride = (generated) => ({
  ...generated,
  versions: [...generated.versions, v1beta1],
  printerColumns: leaseColumns,
  strategy: builtinStrategy({ validate: validateLease }),
});
