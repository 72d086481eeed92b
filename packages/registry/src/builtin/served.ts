/**
 * What kapi serves of the built-in API: the catalogue's table (every group, version and
 * resource kube-apiserver 1.32 serves by default, @kapi/catalog), each resource as its
 * generic definition (catalog-definition.ts) with the hand-written behaviour of its group
 * (groups/<group>/) applied. A new kind's behaviour goes into its group's folder and the
 * group's overrides below; nothing else needs to change.
 */
import { servedGroups } from '@kapi/catalog';
import type { ResourceDefinition } from '../definition.js';
import { coordinationOverrides } from '../groups/coordination/index.js';
import { coreOverrides } from '../groups/core/index.js';
import { eventsOverrides } from '../groups/events/index.js';
import { catalogDefinition } from './catalog-definition.js';
import type { GroupOverrides } from './override.js';

/** Hand-written behaviour by group. */
const OVERRIDES: Readonly<Record<string, GroupOverrides>> = {
  '': coreOverrides,
  'coordination.k8s.io': coordinationOverrides,
  'events.k8s.io': eventsOverrides,
};

/**
 * Catalogue resources (`<group>/<plural>`) and versions (`<group>/<version>/<plural>`) kapi
 * does not serve yet, and why: serving them generically would answer requests kube answers
 * differently.
 */
export const NOT_SERVED: Readonly<Record<string, string>> = {
  'autoscaling/v1/horizontalpodautoscalers':
    'v1 objects convert to and from the stored v2 form with kube\'s annotation round trip (targetCPUUtilizationPercentage, metrics, conditions, behavior): not written yet',
  '/bindings': 'binds a pod to a node (the scheduler\'s write, pods/binding): needs the pods registry',
  '/componentstatuses': 'reports the health of etcd, the scheduler and the controller manager, probed on each read: nothing is stored',
  'authentication.k8s.io/tokenreviews': 'the review APIs belong to authentication and authorization (issue 18)',
  'authentication.k8s.io/selfsubjectreviews': 'the review APIs belong to authentication and authorization (issue 18)',
  'authorization.k8s.io/localsubjectaccessreviews': 'the review APIs belong to authentication and authorization (issue 18)',
  'authorization.k8s.io/selfsubjectaccessreviews': 'the review APIs belong to authentication and authorization (issue 18)',
  'authorization.k8s.io/selfsubjectrulesreviews': 'the review APIs belong to authentication and authorization (issue 18)',
  'authorization.k8s.io/subjectaccessreviews': 'the review APIs belong to authentication and authorization (issue 18)',
  'apiextensions.k8s.io/customresourcedefinitions': 'served by apiextensions/ (kapi\'s CRD definition, strategy and controller)',
};

function build(): ResourceDefinition[] {
  const out: ResourceDefinition[] = [];
  for (const group of servedGroups()) {
    const plurals = [...new Set(group.versions.flatMap((v) => v.resources.map((r) => r.resource)))];
    for (const plural of plurals) {
      if (NOT_SERVED[`${group.group}/${plural}`] !== undefined) continue;
      const full = catalogDefinition(group, plural);
      const versions = full.versions.filter((v) => NOT_SERVED[`${group.group}/${v.name}/${plural}`] === undefined);
      const generated = versions.length === full.versions.length ? full : { ...full, versions };
      const override = OVERRIDES[group.group]?.[plural];
      out.push(override === undefined ? generated : override(generated));
    }
  }
  return out;
}

/** Every built-in resource kapi serves, in kube's discovery order. */
export const builtinDefinitions: readonly ResourceDefinition[] = build();

/** The built-in definition of group/plural. Throws when kapi does not serve it (a programming error). */
export function builtinDefinition(group: string, plural: string): ResourceDefinition {
  const found = builtinDefinitions.find((d) => d.group === group && d.plural === plural);
  if (found === undefined) throw new Error(`no built-in resource ${plural}.${group}`);
  return found;
}
