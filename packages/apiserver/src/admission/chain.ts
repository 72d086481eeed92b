/**
 * The apiserver's admission chain per resource, in kube-apiserver's plugin order: every
 * plugin's mutating phase in order, then every plugin's validating phase in order (see
 * @kapi/registry's admission.ts for where the store runs them). Each plugin is asked per
 * resource definition and may decline (undefined).
 */
import { admissionChain, type Admission, type AdmissionPlugin, type ResourceDefinition } from '@kapi/registry';

/** One plugin's part for a resource, or undefined when the plugin has nothing to do with it. */
export type PluginFactory = (definition: ResourceDefinition) => AdmissionPlugin | undefined;

/** The factories (absent ones skipped) as the registry's `admission` option. */
export function chainAdmission(factories: readonly (PluginFactory | undefined | false)[]): (definition: ResourceDefinition) => Admission | undefined {
  const present = factories.filter((f): f is PluginFactory => typeof f === 'function');
  return (definition) => admissionChain(present.map((factory) => factory(definition)));
}
