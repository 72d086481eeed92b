/** batch: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { cronJobOverride } from './cronjobs.js';
import { jobOverride } from './jobs.js';

export const batchOverrides: GroupOverrides = {
  cronjobs: cronJobOverride,
  jobs: jobOverride,
};
