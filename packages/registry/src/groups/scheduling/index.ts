/** scheduling.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { priorityClassOverride } from './priorityclasses.js';

export const schedulingOverrides: GroupOverrides = { priorityclasses: priorityClassOverride };
