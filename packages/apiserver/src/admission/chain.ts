/** Admission plugins of one kind run in order; the first refusal ends the chain. */
import type { CreateAdmission } from '@kapi/registry';

/** The plugins given (undefined ones skipped) as one, or undefined when there is none. */
export function chainCreateAdmission(plugins: readonly (CreateAdmission | undefined | false)[]): CreateAdmission | undefined {
  const present = plugins.filter((p): p is CreateAdmission => typeof p === 'function');
  if (present.length <= 1) return present[0];
  return async (req, obj) => {
    for (const plugin of present) await plugin(req, obj);
  };
}
