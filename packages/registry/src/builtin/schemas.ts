/**
 * The named schemas of every built-in kind (OpenAPI components, by kube's names such as
 * `io.k8s.api.apps.v1.Deployment`): the catalogue's generated schemas with kapi's own
 * descriptions. `$ref`s point at `#/components/schemas/<name>`.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { schemaDefinitions } from '@kapi/catalog';
import { crdDecodingDefinitions } from '../apiextensions/json-schema-props.js';
import { coordinationDescriptions } from '../groups/coordination/descriptions.js';
import { coreDescriptions } from '../groups/core/descriptions.js';
import { eventsDescriptions } from '../groups/events/descriptions.js';
import { withDescriptions } from './descriptions.js';
import { metaDescriptions } from './meta-descriptions.js';

export const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const OBJECT_META = `${META_V1}ObjectMeta`;

/**
 * The non-zero defaults kube's OpenAPI gives key fields of associative lists, which the
 * catalogue leaves out with every other `default`: a port's `protocol` is part of the key of
 * a container's and a service's ports, and server-side apply keys an item that omits it
 * with TCP (kube's ContainerPort and ServicePort defaulting sets the same value).
 */
const LIST_KEY_DEFAULTS: readonly (readonly [schema: string, field: string, value: unknown])[] = [
  ['io.k8s.api.core.v1.ContainerPort', 'protocol', 'TCP'],
  ['io.k8s.api.core.v1.ServicePort', 'protocol', 'TCP'],
];

function withListKeyDefaults(defs: Record<string, JSONSchemaProps>): Record<string, JSONSchemaProps> {
  const out = { ...defs };
  for (const [name, field, value] of LIST_KEY_DEFAULTS) {
    const schema = out[name];
    const property = schema?.properties?.[field];
    if (schema === undefined || property === undefined) continue;
    out[name] = { ...schema, properties: { ...schema.properties, [field]: { ...property, default: value } } };
  }
  return out;
}

/**
 * Every built-in definition by name. Shared: never mutate. apiextensions' own decoding
 * definitions (JSONSchemaProps and the parts the published CRD schema leaves open) replace
 * the generated ones of the same names.
 */
export const definitions: Readonly<Record<string, JSONSchemaProps>> = {
  ...withListKeyDefaults(withDescriptions(schemaDefinitions() as Record<string, JSONSchemaProps>, [metaDescriptions, coreDescriptions, coordinationDescriptions, eventsDescriptions])),
  ...crdDecodingDefinitions,
};

/** kube's OpenAPI name of a kind's schema: `io.k8s.api.<package>.<version>.<Kind>` from the catalogue. */
export function schemaOf(name: string): JSONSchemaProps {
  const schema = definitions[name];
  if (schema === undefined) throw new Error(`no built-in schema ${name}`);
  return schema;
}
