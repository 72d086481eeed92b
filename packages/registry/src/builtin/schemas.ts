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
 * Every built-in definition by name. Shared: never mutate. apiextensions' own decoding
 * definitions (JSONSchemaProps and the parts the published CRD schema leaves open) replace
 * the generated ones of the same names.
 */
export const definitions: Readonly<Record<string, JSONSchemaProps>> = {
  ...withDescriptions(schemaDefinitions() as Record<string, JSONSchemaProps>, [metaDescriptions, coreDescriptions, coordinationDescriptions, eventsDescriptions]),
  ...crdDecodingDefinitions,
};

/** kube's OpenAPI name of a kind's schema: `io.k8s.api.<package>.<version>.<Kind>` from the catalogue. */
export function schemaOf(name: string): JSONSchemaProps {
  const schema = definitions[name];
  if (schema === undefined) throw new Error(`no built-in schema ${name}`);
  return schema;
}
