/**
 * core/v1 Secret: namespaced confidential data. On write, `stringData` is merged into `data`
 * (its values win) and dropped, and an empty `type` becomes `Opaque` — as kube's v1
 * conversion and defaulting do. `data` values must be valid base64 (a 400 otherwise, as
 * kube's decoder answers). Keys follow the config-key rule; total decoded size ≤ 1 MiB;
 * `type` is immutable; `immutable: true` freezes data. Well-known types require their keys.
 * Field selector: `type`.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import {
  FIELD_IMMUTABLE_ERROR_MSG,
  ageColumn,
  column,
  countOf,
  fieldInvalid,
  fieldRequired,
  fieldTooLong,
  nameColumn,
  appendErrors,
} from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt, stringAt } from '../../builtin/builtin-strategy.js';
import { MAX_SECRET_SIZE, isConfigMapKey } from './config-key.js';
import { validateImmutableData } from './configmaps.js';

export const SECRET_TYPE_OPAQUE = 'Opaque';

/** stringData (already checked by typed decoding: a map of strings, or null) merged into data, base64-encoded. */
function mergeStringData(obj: KubeObject): void {
  const stringData = obj['stringData'];
  delete obj['stringData'];
  if (stringData === undefined || stringData === null) return;
  const entries = Object.entries(stringData as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  if (entries.length === 0) return;
  const data = recordAt(obj, 'data') ?? {};
  for (const [key, value] of entries) data[key] = Buffer.from(value, 'utf8').toString('base64');
  obj['data'] = data;
}

function decodedData(obj: KubeObject): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [key, value] of Object.entries(recordAt(obj, 'data') ?? {})) {
    if (typeof value === 'string') out.set(key, Buffer.from(value, 'base64'));
  }
  return out;
}

function requireJSON(data: Map<string, Buffer>, key: string): FieldError[] {
  const bytes = data.get(key);
  if (bytes === undefined) return [fieldRequired(`data[${key}]`)];
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('expected a JSON object');
    return [];
  } catch (err) {
    return [fieldInvalid(`data[${key}]`, '<secret contents redacted>', (err as Error).message)];
  }
}

/** Keys each well-known secret type needs. */
function validateType(obj: KubeObject, data: Map<string, Buffer>): FieldError[] {
  switch (obj['type']) {
    case 'kubernetes.io/service-account-token': {
      const annotation = 'kubernetes.io/service-account.name';
      return stringAt(obj, ['metadata', 'annotations', annotation]) ? [] : [fieldRequired(`metadata.annotations[${annotation}]`)];
    }
    case 'kubernetes.io/dockercfg':
      return requireJSON(data, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return requireJSON(data, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      return data.has('username') || data.has('password') ? [] : [fieldRequired('data[username]'), fieldRequired('data[password]')];
    case 'kubernetes.io/ssh-auth':
      return (data.get('ssh-privatekey')?.length ?? 0) > 0 ? [] : [fieldRequired('data[ssh-privatekey]')];
    case 'kubernetes.io/tls':
      return [
        ...(data.has('tls.crt') ? [] : [fieldRequired('data[tls.crt]')]),
        ...(data.has('tls.key') ? [] : [fieldRequired('data[tls.key]')]),
      ];
    default:
      return [];
  }
}

function validateSecret(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = decodedData(obj);
  let total = 0;
  for (const key of Object.keys(recordAt(obj, 'data') ?? {})) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldInvalid(`data[${key}]`, key, msg));
    total += data.get(key)?.length ?? 0;
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldTooLong('data', MAX_SECRET_SIZE));
  appendErrors(errs, validateType(obj, data));
  return errs;
}

function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj['type'] !== old['type']) errs.push(fieldInvalid('type', obj['type'], FIELD_IMMUTABLE_ERROR_MSG));
  appendErrors(errs, validateImmutableData(obj, old, ['data']));
  return errs;
}

/** kubectl's NAME TYPE DATA AGE. */
export const secretColumns = [
  nameColumn,
  column('Type', 'string', 'Used to facilitate programmatic handling of secret data.', (obj) => stringAt(obj, ['type']) ?? ''),
  column('Data', 'string', 'The number of keys in data.', (obj) => countOf(obj['data'])),
  ageColumn,
];

/** What secrets do beyond the generic built-in store. */
export const secretBehaviour: Partial<ResourceDefinition> = {
  selectableFields: { type: (obj) => stringAt(obj, ['type']) },
  printerColumns: secretColumns,
  strategy: builtinStrategy({
    decode(obj) {
      mergeStringData(obj);
      if (obj['type'] === undefined || obj['type'] === '') obj['type'] = SECRET_TYPE_OPAQUE;
    },
    validate: validateSecret,
    validateUpdate: validateSecretUpdate,
  }),
};
