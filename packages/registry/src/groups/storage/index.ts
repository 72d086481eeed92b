/** storage.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';

export const storageOverrides: GroupOverrides = {
  // kube's CSIDriver strategy sets no generation on create and counts spec changes from there.
  csidrivers: (generated) => ({ ...generated, managesGeneration: 'onUpdate' }),
};
