/**
 * core/v1 ServiceAccount: an identity for processes in pods. On create and update each
 * entry of `secrets` is reduced to its name, as kube does.
 */
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { ageColumn, column, countOf, isPlainObject, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import { LOCAL_OBJECT_REFERENCE, OBJECT_REFERENCE } from '../schemas/core-references.js';
import { CORE_V1, array, boolean, kindSchema, listSchema, ref } from '../schemas/schema-builders.js';
import { ALL_VERBS, builtinStrategy } from './builtin-strategy.js';

const gvk = { group: '', version: 'v1', kind: 'ServiceAccount' };

export const serviceAccountSchema: JSONSchemaProps = kindSchema(gvk, 'An identity for processes running in pods, with the secrets they may use.', {
  automountServiceAccountToken: boolean('Whether pods using this account get an API token mounted automatically (pods may override it).'),
  imagePullSecrets: array(ref(LOCAL_OBJECT_REFERENCE), 'Secrets in the same namespace used to pull images for pods using this account.', {
    'x-kubernetes-list-type': 'atomic',
  }),
  secrets: array(ref(OBJECT_REFERENCE), 'Secrets in the same namespace that pods using this account may use (legacy).', {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    'x-kubernetes-patch-merge-key': 'name',
    'x-kubernetes-patch-strategy': 'merge',
  }),
});

export const serviceAccountDefinitions: Record<string, JSONSchemaProps> = {
  [`${CORE_V1}ServiceAccount`]: serviceAccountSchema,
  [`${CORE_V1}ServiceAccountList`]: listSchema(gvk, `${CORE_V1}ServiceAccount`, 'A list of service accounts.', 'The service accounts.'),
};

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

export const serviceAccounts: ResourceDefinition = {
  group: '',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  shortNames: ['sa'],
  namespaced: true,
  versions: [{ name: 'v1', served: true, storage: true, schema: serviceAccountSchema }],
  verbs: [...ALL_VERBS],
  omitEmptyCollections: true,
  returnDeletedObject: true,
  allowUnconditionalUpdate: true,
  printerColumns: serviceAccountColumns,
  strategy: builtinStrategy({
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: (obj) => cleanSecretReferences(obj),
  }),
};
