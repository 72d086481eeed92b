/** autoscaling: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { hpaOverride } from './horizontalpodautoscalers.js';

export const autoscalingOverrides: GroupOverrides = {
  horizontalpodautoscalers: hpaOverride,
};
