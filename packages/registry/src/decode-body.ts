/**
 * The first step of every write: turn a decoded request body into a private object of the
 * expected kind, or fail with kube's 400 texts.
 */
import type { KubeObject } from '@kapi/machinery';
import { badRequest, deepCopy, fieldInvalid, invalid, isPlainObject, jsonTypeName, type StatusError } from '@kapi/machinery';
import { catalogKinds } from '@kapi/catalog';
import { dropNulls } from './drop-nulls.js';

export interface ExpectedKind {
  group: string;
  version: string;
  kind: string;
  /**
   * A custom resource: kube decodes any kind into an unstructured object and its validator
   * then refuses another kind (422 `kind: Invalid value: "X": must be Y`), where typed kinds
   * fail at decode (400).
   */
  unstructured?: boolean;
}

export function formatApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

function goType(value: unknown): string {
  const name = jsonTypeName(value);
  return name === 'integer' ? 'number' : name === 'boolean' ? 'bool' : name;
}

/** kube's 400 for a body its decoder cannot read into the kind's type: `<Kind> in version "<v>" cannot be handled as a <Kind>: <detail>`. */
export function cannotBeHandled(expected: ExpectedKind, detail: string): StatusError {
  return badRequest(`${expected.kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: ${detail}`);
}

/** The group-versions of kube's scheme with the kinds registered in each (kapi's catalog of kube 1.32's kinds). */
const registeredKinds = once(() => {
  const byVersion = new Map<string, Set<string>>();
  for (const k of catalogKinds()) {
    const gv = formatApiVersion(k.group, k.version);
    if (!byVersion.has(gv)) byVersion.set(gv, new Set());
    byVersion.get(gv)!.add(k.kind);
  }
  return byVersion;
});

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * kube's 400 for a typed body of another kind: its decoder reads the body's kind when the
 * scheme knows it and then finds no conversion into the expected kind
 * (`converting (v1.Secret) to (core.ConfigMap): unknown conversion`, the internal type named
 * by its group's package), else it names the kind as unregistered.
 */
function otherKind(expected: ExpectedKind, apiVersion: string, bodyKind: string): StatusError {
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  const prefix = `${bodyKind} in version "${apiVersion}" cannot be handled as a ${expected.kind}: `;
  if (registeredKinds().get(apiVersion)?.has(bodyKind) === true) {
    const internalPackage = expected.group === '' ? 'core' : expected.group.split('.')[0]!;
    return badRequest(`${prefix}converting (${version}.${bodyKind}) to (${internalPackage}.${expected.kind}): unknown conversion`);
  }
  return badRequest(`${prefix}no kind "${bodyKind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`);
}

/**
 * Returns a deep copy of `body` with apiVersion and kind set to the expected ones. Empty
 * apiVersion/kind are defaulted (as kube's decoder defaults them from the endpoint); others
 * must match: `the API version in the data (x) does not match the expected API version (y)`,
 * `the kind in the data (X) does not match the expected kind (Y)`. Null fields of metadata
 * are dropped (ObjectMeta is typed in kube). Throws 400 BadRequest for a body that is not
 * an object or whose metadata is not an object. Never mutates `body`, unless `owned` (the
 * caller gives it up): then the result is `body` itself, changed in place.
 */
export function decodeBody(body: unknown, expected: ExpectedKind, owned = false): KubeObject {
  const { kind } = expected;
  const expectedApiVersion = formatApiVersion(expected.group, expected.version);
  if (!isPlainObject(body)) {
    throw badRequest(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${goType(body)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const cannotHandle = (detail: string) => cannotBeHandled(expected, detail);
  for (const field of ['apiVersion', 'kind'] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw cannotHandle(`json: cannot unmarshal ${goType(value)} into Go struct field ${kind}.${field} of type string`);
    }
  }
  const apiVersion = typeof body['apiVersion'] === 'string' ? body['apiVersion'] : '';
  const typedKind = typeof body['kind'] === 'string' ? body['kind'] : '';
  if (typedKind !== '' && typedKind !== kind && expected.unstructured !== true) throw otherKind(expected, apiVersion === '' ? expectedApiVersion : apiVersion, typedKind);
  if (apiVersion !== '' && apiVersion !== expectedApiVersion) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expectedApiVersion})`);
  }
  const bodyKind = typeof body['kind'] === 'string' ? body['kind'] : '';
  if (bodyKind !== '' && bodyKind !== kind && expected.unstructured === true) {
    const name = isPlainObject(body['metadata']) && typeof body['metadata']['name'] === 'string' ? body['metadata']['name'] : '';
    throw invalid({ group: expected.group, kind: bodyKind }, name, [fieldInvalid('kind', bodyKind, `must be ${kind}`)]);
  }
  if (bodyKind !== '' && bodyKind !== kind) {
    throw badRequest(`the kind in the data (${bodyKind}) does not match the expected kind (${kind})`);
  }
  const metadata = body['metadata'];
  if (metadata !== undefined && metadata !== null && !isPlainObject(metadata)) {
    throw cannotHandle(`json: cannot unmarshal ${goType(metadata)} into Go struct field ${kind}.metadata of type v1.ObjectMeta`);
  }
  const obj = (owned ? body : deepCopy(body)) as KubeObject;
  obj.apiVersion = expectedApiVersion;
  obj.kind = kind;
  obj.metadata = isPlainObject(obj.metadata) ? obj.metadata : {};
  dropNulls(obj.metadata);
  return obj;
}
