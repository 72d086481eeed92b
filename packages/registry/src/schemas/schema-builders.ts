/**
 * Small helpers to write structural schemas as data. They only build plain
 * `JSONSchemaProps` values; nothing here validates.
 */
import type { JSONSchemaProps } from '@kapi/machinery';

/** Where OpenAPI v3 documents keep named schemas; `$ref`s below point there. */
export const COMPONENTS = '#/components/schemas/';

export const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const CORE_V1 = 'io.k8s.api.core.v1.';
export const COORDINATION_V1 = 'io.k8s.api.coordination.v1.';
export const COORDINATION_V1BETA1 = 'io.k8s.api.coordination.v1beta1.';
export const EVENTS_V1 = 'io.k8s.api.events.v1.';
export const EVENTS_V1BETA1 = 'io.k8s.api.events.v1beta1.';
export const AUTOSCALING_V1 = 'io.k8s.api.autoscaling.v1.';

export function string(description: string, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'string', description, ...extra };
}

export function boolean(description: string): JSONSchemaProps {
  return { type: 'boolean', description };
}

export function int32(description: string): JSONSchemaProps {
  return { type: 'integer', format: 'int32', description };
}

export function int64(description: string): JSONSchemaProps {
  return { type: 'integer', format: 'int64', description };
}

/**
 * `schema` with the Go type it decodes into in kube where its definition name does not give
 * it (named scalar types such as `types.UID` or `v1.SecretType`, structs written inline):
 * the typed decoder's messages name it. kapi-only; published documents leave it out.
 */
export function goType(name: string, schema: JSONSchemaProps): JSONSchemaProps {
  return { ...schema, 'x-kapi-go-type': name };
}

/** A map of strings (`map[string]string`). */
export function stringMap(description: string): JSONSchemaProps {
  return { type: 'object', description, additionalProperties: { type: 'string' } };
}

/** A map of base64-encoded bytes (`map[string][]byte`). */
export function byteMap(description: string): JSONSchemaProps {
  return { type: 'object', description, additionalProperties: { type: 'string', format: 'byte' } };
}

/** A reference to a named schema, wrapped in `allOf` so a description can sit beside it (as kube's v3 documents do). */
export function ref(name: string, description?: string): JSONSchemaProps {
  const target: JSONSchemaProps = { $ref: `${COMPONENTS}${name}` };
  return description === undefined ? target : { description, allOf: [target] };
}

export function array(items: JSONSchemaProps, description: string, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'array', description, items, ...extra };
}

export const API_VERSION_DESCRIPTION =
  'The versioned schema of this representation of an object (group/version). Servers convert recognized versions to their latest internal value and may reject unrecognized ones.';
export const KIND_DESCRIPTION =
  'The REST resource type this object represents, in CamelCase. Servers may infer it from the endpoint the client posts to; it cannot be updated.';

/**
 * The schema of a top-level kind: apiVersion, kind, metadata plus the given properties,
 * tagged with its group-version-kind for clients that look schemas up by GVK.
 */
export function kindSchema(
  gvk: { group: string; version: string; kind: string },
  description: string,
  properties: Record<string, JSONSchemaProps>,
  extra: JSONSchemaProps = {},
): JSONSchemaProps {
  return {
    description,
    type: 'object',
    properties: {
      apiVersion: string(API_VERSION_DESCRIPTION),
      kind: string(KIND_DESCRIPTION),
      metadata: ref(`${META_V1}ObjectMeta`, "Standard object metadata: name, namespace, labels, annotations and the server's bookkeeping fields."),
      ...properties,
    },
    ...extra,
    'x-kubernetes-group-version-kind': [{ group: gvk.group, kind: gvk.kind, version: gvk.version }],
  };
}

/** The schema of a `<Kind>List`: apiVersion, kind, ListMeta and the items. */
export function listSchema(
  gvk: { group: string; version: string; kind: string },
  itemName: string,
  description: string,
  itemsDescription: string,
): JSONSchemaProps {
  return {
    description,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: string(API_VERSION_DESCRIPTION),
      kind: string(KIND_DESCRIPTION),
      metadata: ref(`${META_V1}ListMeta`, 'Standard list metadata: resourceVersion, continue token and remaining item count.'),
      items: array(ref(itemName), itemsDescription),
    },
    'x-kubernetes-group-version-kind': [{ group: gvk.group, kind: `${gvk.kind}List`, version: gvk.version }],
  };
}
