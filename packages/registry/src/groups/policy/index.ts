/** policy: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { pdbOverride } from './poddisruptionbudgets.js';

export const policyOverrides: GroupOverrides = {
  poddisruptionbudgets: pdbOverride,
};
