/**
 * kapi's own descriptions on the generated schemas (kube's descriptions are prose, left out
 * of the catalogue). They only feed `kubectl explain` and the published OpenAPI; nothing
 * validates against them.
 */
import type { JSONSchemaProps } from '@kapi/machinery';

/** Per definition name: `''` describes the type, other keys its properties. */
export type Descriptions = Readonly<Record<string, Readonly<Record<string, string>>>>;

const TYPE_META: Readonly<Record<string, string>> = {
  apiVersion:
    'The versioned schema of this representation of an object (group/version). Servers convert recognized versions to their latest internal value and may reject unrecognized ones.',
  kind: 'The REST resource type this object represents, in CamelCase. Servers may infer it from the endpoint the client posts to; it cannot be updated.',
};
const OBJECT_METADATA = "Standard object metadata: name, namespace, labels, annotations and the server's bookkeeping fields.";
const LIST_METADATA = 'Standard list metadata: resourceVersion, continue token and remaining item count.';

/** The descriptions every kind and list schema shares (apiVersion, kind, metadata). */
function typeMetaDescriptions(schema: JSONSchemaProps): Record<string, string> {
  const properties = schema.properties ?? {};
  if (schema['x-kubernetes-group-version-kind'] === undefined || properties['apiVersion'] === undefined || properties['kind'] === undefined) return {};
  const metadata = JSON.stringify(properties['metadata'] ?? {});
  return {
    ...TYPE_META,
    ...(metadata.includes('meta.v1.ObjectMeta"') ? { metadata: OBJECT_METADATA } : metadata.includes('meta.v1.ListMeta"') ? { metadata: LIST_METADATA } : {}),
  };
}

function describe(schema: JSONSchemaProps, texts: Readonly<Record<string, string>>): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = { ...(schema.properties ?? {}) };
  for (const [name, text] of Object.entries(texts)) {
    if (name !== '' && properties[name] !== undefined) properties[name] = { ...properties[name], description: text };
  }
  const described: JSONSchemaProps = { ...schema, ...(schema.properties !== undefined ? { properties } : {}) };
  if (texts[''] !== undefined) described.description = texts[''];
  return described;
}

/**
 * The definitions with the descriptions applied (new objects where a description lands; the
 * generated ones are shared and never changed).
 */
export function withDescriptions(definitions: Readonly<Record<string, JSONSchemaProps>>, sets: readonly Descriptions[]): Record<string, JSONSchemaProps> {
  const out: Record<string, JSONSchemaProps> = {};
  for (const [name, schema] of Object.entries(definitions)) {
    const texts = { ...typeMetaDescriptions(schema), ...Object.assign({}, ...sets.map((set) => set[name] ?? {})) } as Record<string, string>;
    out[name] = Object.keys(texts).length === 0 ? schema : describe(schema, texts);
  }
  return out;
}
