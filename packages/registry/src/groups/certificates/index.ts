/** certificates.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { csrBehaviour } from './csr.js';

export const certificatesOverrides: GroupOverrides = {
  certificatesigningrequests: withBehaviour(csrBehaviour),
};
