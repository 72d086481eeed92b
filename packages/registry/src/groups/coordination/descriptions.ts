/**
 * kapi's own descriptions of coordination.k8s.io schemas (kube's are prose and not copied).
 */
import type { Descriptions } from '../../builtin/descriptions.js';

export const coordinationDescriptions: Descriptions = {
  'io.k8s.api.coordination.v1.Lease': {
    '': 'A lease: a lock with a holder and an expiry, used for leader election and heartbeats.',
    spec: 'The lease holder and timing.',
  },
  'io.k8s.api.coordination.v1.LeaseList': {
    '': 'A list of leases.',
    items: 'The leases.',
  },
  'io.k8s.api.coordination.v1.LeaseSpec': {
    '': 'The desired state of a lease.',
    acquireTime: 'When the current holder acquired the lease.',
    holderIdentity: 'The identity of the current holder.',
    leaseDurationSeconds: 'How long candidates must wait before forcibly taking the lease, counted from the last renewTime.',
    leaseTransitions: 'How many times the lease has changed holders.',
    preferredHolder: 'The holder the coordinated leader election wants next; only with a strategy.',
    renewTime: 'When the current holder last renewed the lease.',
    strategy: 'How coordinated leader election picks a holder, e.g. OldestEmulationVersion.',
  },
  'io.k8s.api.coordination.v1beta1.Lease': {
    '': 'A lease: a lock with a holder and an expiry, used for leader election and heartbeats.',
    spec: 'The lease holder and timing.',
  },
  'io.k8s.api.coordination.v1beta1.LeaseList': {
    '': 'A list of leases.',
    items: 'The leases.',
  },
  'io.k8s.api.coordination.v1beta1.LeaseSpec': {
    '': 'The desired state of a lease.',
    acquireTime: 'When the current holder acquired the lease.',
    holderIdentity: 'The identity of the current holder.',
    leaseDurationSeconds: 'How long candidates must wait before forcibly taking the lease, counted from the last renewTime.',
    leaseTransitions: 'How many times the lease has changed holders.',
    preferredHolder: 'The holder the coordinated leader election wants next; only with a strategy.',
    renewTime: 'When the current holder last renewed the lease.',
    strategy: 'How coordinated leader election picks a holder, e.g. OldestEmulationVersion.',
  },
};
