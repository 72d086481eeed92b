/** apps/v1 ControllerRevision: `kubectl get controllerrevisions` prints CONTROLLER and REVISION. */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';

/** The controlling owner as `<kind>.<group>/<name>` (kind lower-cased), or `<none>`. */
function controllerOf(obj: KubeObject): string {
  const owner = (obj.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
  if (owner === undefined) return '<none>';
  const slash = owner.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : owner.apiVersion.slice(0, slash);
  return `${owner.kind.toLowerCase()}${group === '' ? '' : `.${group}`}/${owner.name}`;
}

export const controllerRevisionBehaviour: Partial<ResourceDefinition> = {
  printerColumns: [
    nameColumn,
    column('Controller', 'string', 'The controller that owns the revision.', controllerOf),
    column('Revision', 'string', 'The revision number.', (obj) => (typeof obj['revision'] === 'number' ? obj['revision'] : 0)),
    ageColumn,
  ],
};
