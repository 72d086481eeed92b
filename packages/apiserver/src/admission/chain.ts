/**
 * The apiserver's admission chain per resource, in kube-apiserver's plugin order: every
 * plugin's mutating phase in order, then every plugin's validating phase in order (see
 * @kapi/registry's admission.ts for where the store runs them). Each plugin is asked per
 * resource definition and may decline (undefined).
 */
import { admissionChain, type Admission, type AdmissionPlugin, type ResourceDefinition } from '@kapi/registry';
import type { AdmissionMetrics } from './metrics.js';

/** One plugin's part for a resource, or undefined when the plugin has nothing to do with it. */
export type PluginFactory = (definition: ResourceDefinition) => AdmissionPlugin | undefined;

/**
 * The factories (absent ones skipped) as the registry's `admission` option; with `metrics`,
 * each phase's latency is kube's apiserver_admission_step_admission_duration_seconds.
 */
export function chainAdmission(factories: readonly (PluginFactory | undefined | false)[], metrics?: AdmissionMetrics): (definition: ResourceDefinition) => Admission | undefined {
  const present = factories.filter((f): f is PluginFactory => typeof f === 'function');
  return (definition) => {
    const chain = admissionChain(present.map((factory) => factory(definition)));
    if (chain === undefined || metrics === undefined) return chain;
    const timed = (type: 'admit' | 'validate', phase: Admission['admit']): Admission['admit'] => async (attributes) => {
      const started = performance.now();
      let rejected = true;
      try {
        await phase(attributes);
        rejected = false;
      } finally {
        metrics.recordStep(type, attributes.operation, rejected, (performance.now() - started) / 1000);
      }
    };
    return { handles: chain.handles, admit: timed('admit', chain.admit), validate: timed('validate', chain.validate) };
  };
}
