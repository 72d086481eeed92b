/** coordination.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { leaseOverride } from './leases.js';

export const coordinationOverrides: GroupOverrides = { leases: leaseOverride };
