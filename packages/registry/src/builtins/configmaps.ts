/**
 * core/v1 ConfigMap: namespaced key/value data. Keys of `data` and `binaryData` follow the
 * config-key rule and may not repeat across the two maps; the whole payload is at most
 * 1 MiB; once `immutable` is true, data, binaryData and immutable itself cannot change.
 */
import type { FieldError, JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { ageColumn, base64DecodedLength, column, countOf, fieldForbidden, fieldInvalid, fieldTooLong, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import { CORE_V1, boolean, byteMap, kindSchema, listSchema, stringMap } from '../schemas/schema-builders.js';
import { ALL_VERBS, builtinStrategy, recordAt } from './builtin-strategy.js';
import { MAX_SECRET_SIZE, isConfigMapKey } from './config-key.js';
import { semanticEqual } from '../semantic-equal.js';

const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };

export const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

export const configMapSchema: JSONSchemaProps = kindSchema(gvk, 'Non-confidential configuration data for pods and other consumers.', {
  binaryData: byteMap('Binary values by key, base64-encoded in JSON; keys may not also appear in data.'),
  data: stringMap('UTF-8 values by key; keys may not also appear in binaryData.'),
  immutable: boolean('If true, data and binaryData can no longer be changed (only metadata can).'),
});

export const configMapDefinitions: Record<string, JSONSchemaProps> = {
  [`${CORE_V1}ConfigMap`]: configMapSchema,
  [`${CORE_V1}ConfigMapList`]: listSchema(gvk, `${CORE_V1}ConfigMap`, 'A list of config maps.', 'The config maps.'),
};

function entries(obj: KubeObject, field: string): [string, unknown][] {
  return Object.entries(recordAt(obj, field) ?? {});
}

function validateConfigMap(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const binary = recordAt(obj, 'binaryData') ?? {};
  let total = 0;
  for (const [key, value] of entries(obj, 'data')) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldInvalid(`data[${key}]`, key, msg));
    if (Object.prototype.hasOwnProperty.call(binary, key)) {
      errs.push(fieldInvalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
    if (typeof value === 'string') total += Buffer.byteLength(value, 'utf8');
  }
  for (const [key, value] of entries(obj, 'binaryData')) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldInvalid(`binaryData[${key}]`, key, msg));
    if (typeof value === 'string') total += base64DecodedLength(value);
  }
  // The whole object: kube reports it on the empty root path, which it prints as `[]`.
  if (total > MAX_SECRET_SIZE) errs.push(fieldTooLong('[]', MAX_SECRET_SIZE));
  return errs;
}

/** Shared by ConfigMap and Secret: what `immutable: true` on the stored object forbids. */
export function validateImmutableData(obj: KubeObject, old: KubeObject, fields: readonly string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  if (obj['immutable'] !== true) errs.push(fieldForbidden('immutable', IMMUTABLE_WHEN_SET));
  for (const field of fields) {
    if (!semanticEqual(emptyAsAbsent(obj[field]), emptyAsAbsent(old[field]))) errs.push(fieldForbidden(field, IMMUTABLE_WHEN_SET));
  }
  return errs;
}

/** Go's reflect.DeepEqual on maps treats nil and absent alike; `{}` stays distinct, but JSON clients rarely care. */
function emptyAsAbsent(value: unknown): unknown {
  return value === null ? undefined : value;
}

/** kubectl's NAME DATA AGE; DATA counts data and binaryData keys. */
export const configMapColumns = [
  nameColumn,
  column('Data', 'string', 'The number of keys in data and binaryData.', (obj) => countOf(obj['data']) + countOf(obj['binaryData'])),
  ageColumn,
];

export const configMaps: ResourceDefinition = {
  group: '',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  versions: [{ name: 'v1', served: true, storage: true, schema: configMapSchema }],
  verbs: [...ALL_VERBS],
  omitEmptyCollections: true,
  allowUnconditionalUpdate: true,
  printerColumns: configMapColumns,
  strategy: builtinStrategy({
    validate: validateConfigMap,
    validateUpdate: (obj, old) => validateImmutableData(obj, old, ['data', 'binaryData']),
  }),
};
