/**
 * What kapi serves of the built-in API: the catalogue's table (every group, version and
 * resource kube-apiserver 1.32 serves by default, @kapi/catalog), each resource as its
 * generic definition (catalog-definition.ts) with the hand-written behaviour of its group
 * (groups/<group>/) applied. A new kind's behaviour goes into its group's folder and the
 * group's overrides below; nothing else needs to change.
 */
import { servedGroups } from '@kapi/catalog';
import type { ResourceDefinition } from '../definition.js';
import { admissionregistrationOverrides } from '../groups/admissionregistration/index.js';
import { apiregistrationOverrides } from '../groups/apiregistration/index.js';
import { appsOverrides } from '../groups/apps/index.js';
import { autoscalingOverrides } from '../groups/autoscaling/index.js';
import { batchOverrides } from '../groups/batch/index.js';
import { certificatesOverrides } from '../groups/certificates/index.js';
import { coordinationOverrides } from '../groups/coordination/index.js';
import { coreOverrides } from '../groups/core/index.js';
import { discoveryOverrides } from '../groups/discovery/index.js';
import { eventsOverrides } from '../groups/events/index.js';
import { flowcontrolOverrides } from '../groups/flowcontrol/index.js';
import { networkingOverrides } from '../groups/networking/index.js';
import { nodeOverrides } from '../groups/node/index.js';
import { policyOverrides } from '../groups/policy/index.js';
import { rbacOverrides } from '../groups/rbac/index.js';
import { schedulingOverrides } from '../groups/scheduling/index.js';
import { storageOverrides } from '../groups/storage/index.js';
import { catalogDefinition } from './catalog-definition.js';
import type { GroupOverrides } from './override.js';
import { GROUP_DEFAULTS } from './group-defaults.js';
import { withDefaults } from './defaults.js';

/** Hand-written behaviour by group. */
const OVERRIDES: Readonly<Record<string, GroupOverrides>> = {
  '': coreOverrides,
  'admissionregistration.k8s.io': admissionregistrationOverrides,
  'apiregistration.k8s.io': apiregistrationOverrides,
  apps: appsOverrides,
  autoscaling: autoscalingOverrides,
  batch: batchOverrides,
  'certificates.k8s.io': certificatesOverrides,
  'coordination.k8s.io': coordinationOverrides,
  'discovery.k8s.io': discoveryOverrides,
  'events.k8s.io': eventsOverrides,
  'flowcontrol.apiserver.k8s.io': flowcontrolOverrides,
  'networking.k8s.io': networkingOverrides,
  'node.k8s.io': nodeOverrides,
  policy: policyOverrides,
  'rbac.authorization.k8s.io': rbacOverrides,
  'scheduling.k8s.io': schedulingOverrides,
  'storage.k8s.io': storageOverrides,
};

/**
 * Catalogue resources (`<group>/<plural>`) and versions (`<group>/<version>/<plural>`) kapi
 * does not serve yet, and why: serving them generically would answer requests kube answers
 * differently.
 */
export const NOT_SERVED: Readonly<Record<string, string>> = {
};

/**
 * Catalogue resources served, but not from this table: apiextensions/ has kapi's CRD
 * definition, strategy and controller; the review APIs (create only, nothing stored) are the
 * apiserver's (packages/apiserver/src/auth/reviews.ts), since they ask its authenticator and authorizer;
 * so are componentstatuses (packages/apiserver/src/component-statuses.ts: probed, not stored).
 */
export const SERVED_ELSEWHERE: ReadonlySet<string> = new Set([
  '/componentstatuses',
  'apiextensions.k8s.io/customresourcedefinitions',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
]);

/**
 * Catalogue subresources (`<group>/<plural>/<subresource>`) kapi does not serve yet: each
 * needs a component of its own (the generic store serves `status`; groups add others, such
 * as namespaces' `finalize`). Requests for them answer 404 until a later slice adds them.
 */
export const SUBRESOURCES_NOT_SERVED: Readonly<Record<string, string>> = {
};

function build(): ResourceDefinition[] {
  const out: ResourceDefinition[] = [];
  for (const group of servedGroups()) {
    const plurals = [...new Set(group.versions.flatMap((v) => v.resources.map((r) => r.resource)))];
    for (const plural of plurals) {
      if (NOT_SERVED[`${group.group}/${plural}`] !== undefined || SERVED_ELSEWHERE.has(`${group.group}/${plural}`)) continue;
      const full = catalogDefinition(group, plural);
      const versions = full.versions.filter((v) => NOT_SERVED[`${group.group}/${v.name}/${plural}`] === undefined);
      const generated = versions.length === full.versions.length ? full : { ...full, versions };
      const override = OVERRIDES[group.group]?.[plural];
      const overridden = override === undefined ? generated : override(generated);
      const defaults = GROUP_DEFAULTS[group.group]?.[plural];
      out.push(defaults === undefined ? overridden : withDefaults(overridden, defaults));
    }
  }
  return out;
}

/** Every built-in resource kapi serves, in kube's discovery order. */
export const builtinDefinitions: readonly ResourceDefinition[] = build();

/** The built-in groups in kube's discovery order (the core group first); other groups (custom resources) follow them. */
export const builtinGroupOrder: readonly string[] = servedGroups().map((g) => g.group);

/** The built-in definition of group/plural. Throws when kapi does not serve it (a programming error). */
export function builtinDefinition(group: string, plural: string): ResourceDefinition {
  const found = builtinDefinitions.find((d) => d.group === group && d.plural === plural);
  if (found === undefined) throw new Error(`no built-in resource ${plural}.${group}`);
  return found;
}
