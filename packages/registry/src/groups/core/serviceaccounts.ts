/**
 * core/v1 ServiceAccount: an identity for processes in pods. On create and update each
 * entry of `secrets` is reduced to its name, as kube does.
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, countOf, isPlainObject, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy } from '../../builtin/builtin-strategy.js';

function cleanSecretReferences(obj: KubeObject): void {
  const secrets = obj['secrets'];
  if (!Array.isArray(secrets)) return;
  obj['secrets'] = secrets.map((ref) => (isPlainObject(ref) && ref['name'] !== undefined ? { name: ref['name'] } : isPlainObject(ref) ? {} : ref));
}

/** kubectl's NAME SECRETS AGE. */
export const serviceAccountColumns = [
  nameColumn,
  column('Secrets', 'string', 'The number of secrets listed in secrets.', (obj) => countOf(obj['secrets'])),
  ageColumn,
];

/** What serviceaccounts do beyond the generic built-in store. */
export const serviceAccountBehaviour: Partial<ResourceDefinition> = {
  printerColumns: serviceAccountColumns,
  strategy: builtinStrategy({
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: (obj) => cleanSecretReferences(obj),
  }),
};
