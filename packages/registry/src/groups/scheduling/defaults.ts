/** scheduling.k8s.io defaulting: a PriorityClass preempts lower priorities unless told not to. */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';

function defaultPriorityClass(obj: KubeObject): void {
  const pc = obj as Record<string, unknown>;
  if (pc['preemptionPolicy'] === undefined) pc['preemptionPolicy'] = 'PreemptLowerPriority';
}

export const schedulingDefaults: GroupDefaults = {
  priorityclasses: { decode: defaultPriorityClass },
};
