/**
 * core/v1 ConfigMap: namespaced key/value data. Keys of `data` and `binaryData` follow the
 * config-key rule and may not repeat across the two maps; the whole payload is at most
 * 1 MiB; once `immutable` is true, data, binaryData and immutable itself cannot change.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, base64DecodedLength, column, countOf, fieldForbidden, fieldInvalid, fieldTooLong, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { MAX_SECRET_SIZE, isConfigMapKey } from './config-key.js';
import { semanticEqual } from '../../semantic-equal.js';

export const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

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

/** What configmaps do beyond the generic built-in store. */
export const configMapBehaviour: Partial<ResourceDefinition> = {
  printerColumns: configMapColumns,
  strategy: builtinStrategy({
    validate: validateConfigMap,
    validateUpdate: (obj, old) => validateImmutableData(obj, old, ['data', 'binaryData']),
  }),
};
