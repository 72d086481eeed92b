/**
 * apiextensions.k8s.io/v1 types as kube's Go types decode them where kapi's published CRD
 * schema stays open: a CRD's `openAPIV3Schema` decodes as JSONSchemaProps in typed
 * decoding (`x-kapi-decode-as`), so that a schema whose `maxLength` is 1.5 or whose
 * `minimum` is a string is refused as kube refuses it (400) instead of being stored where
 * apiextensions clients cannot decode it; the status subresource and webhook conversion
 * likewise. The published schema keeps these open (openAPIV3Schema is itself validated as
 * a structural schema, structural-schema.ts). Field names and types follow kube's types.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { WELL_KNOWN_TYPES } from '@kapi/machinery';
import { COMPONENTS, goType } from '../schemas/schema-builders.js';

export const JSON_SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
const EXTERNAL_DOCUMENTATION = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ExternalDocumentation';
const VALIDATION_RULE = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ValidationRule';
export const SUBRESOURCE_STATUS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus';
export const WEBHOOK_CONVERSION = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookConversion';
const WEBHOOK_CLIENT_CONFIG = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookClientConfig';
const SERVICE_REFERENCE = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ServiceReference';

const to = (name: string): JSONSchemaProps => ({ $ref: `${COMPONENTS}${name}` });
const str: JSONSchemaProps = { type: 'string' };
const bool: JSONSchemaProps = { type: 'boolean' };
const int64: JSONSchemaProps = { type: 'integer', format: 'int64' };
const float64: JSONSchemaProps = { type: 'number', format: 'double' };
const strings: JSONSchemaProps = { type: 'array', items: str };
const schemas = (goTypeName?: string): JSONSchemaProps => (goTypeName === undefined ? { type: 'object', additionalProperties: to(JSON_SCHEMA_PROPS) } : goType(goTypeName, { type: 'object', additionalProperties: to(JSON_SCHEMA_PROPS) }));

const jsonSchemaProps: JSONSchemaProps = {
  type: 'object',
  properties: {
    id: str,
    $schema: goType('v1.JSONSchemaURL', str),
    $ref: str,
    description: str,
    type: str,
    format: str,
    title: str,
    default: to(WELL_KNOWN_TYPES.json),
    maximum: float64,
    exclusiveMaximum: bool,
    minimum: float64,
    exclusiveMinimum: bool,
    maxLength: int64,
    minLength: int64,
    pattern: str,
    maxItems: int64,
    minItems: int64,
    uniqueItems: bool,
    multipleOf: float64,
    enum: { type: 'array', items: to(WELL_KNOWN_TYPES.json) },
    maxProperties: int64,
    minProperties: int64,
    required: strings,
    items: to(WELL_KNOWN_TYPES.schemaOrArray),
    allOf: { type: 'array', items: to(JSON_SCHEMA_PROPS) },
    oneOf: { type: 'array', items: to(JSON_SCHEMA_PROPS) },
    anyOf: { type: 'array', items: to(JSON_SCHEMA_PROPS) },
    not: to(JSON_SCHEMA_PROPS),
    properties: schemas(),
    additionalProperties: to(WELL_KNOWN_TYPES.schemaOrBool),
    patternProperties: schemas(),
    dependencies: goType('v1.JSONSchemaDependencies', { type: 'object', additionalProperties: to(WELL_KNOWN_TYPES.schemaOrStringArray) }),
    additionalItems: to(WELL_KNOWN_TYPES.schemaOrBool),
    definitions: schemas('v1.JSONSchemaDefinitions'),
    externalDocs: to(EXTERNAL_DOCUMENTATION),
    example: to(WELL_KNOWN_TYPES.json),
    nullable: bool,
    'x-kubernetes-preserve-unknown-fields': bool,
    'x-kubernetes-embedded-resource': bool,
    'x-kubernetes-int-or-string': bool,
    'x-kubernetes-list-map-keys': strings,
    'x-kubernetes-list-type': str,
    'x-kubernetes-map-type': str,
    'x-kubernetes-validations': goType('v1.ValidationRules', { type: 'array', items: to(VALIDATION_RULE) }),
  },
};

/**
 * The decoding definitions, by kube's OpenAPI names (resolved by `$ref` and
 * `x-kapi-decode-as`; never published): JSONSchemaProps and its parts, and the CRD parts
 * the published schema leaves open (the empty status subresource, webhook conversion).
 */
export const crdDecodingDefinitions: Record<string, JSONSchemaProps> = {
  // Decoded by their own rules (machinery's typed-decode-well-known.ts); described here so every $ref resolves.
  [WELL_KNOWN_TYPES.json]: { description: 'Any JSON value.' },
  [WELL_KNOWN_TYPES.schemaOrArray]: { description: 'A JSONSchemaProps or a list of them; anything else is ignored.' },
  [WELL_KNOWN_TYPES.schemaOrBool]: { description: 'A JSONSchemaProps, or a bool that allows or forbids.' },
  [WELL_KNOWN_TYPES.schemaOrStringArray]: { description: 'A JSONSchemaProps or a list of property names.' },
  [SUBRESOURCE_STATUS]: { type: 'object', properties: {} },
  [WEBHOOK_CONVERSION]: { type: 'object', properties: { clientConfig: to(WEBHOOK_CLIENT_CONFIG), conversionReviewVersions: strings } },
  [WEBHOOK_CLIENT_CONFIG]: { type: 'object', properties: { url: str, service: to(SERVICE_REFERENCE), caBundle: { type: 'string', format: 'byte' } } },
  [SERVICE_REFERENCE]: { type: 'object', properties: { namespace: str, name: str, path: str, port: { type: 'integer', format: 'int32' } } },
  [JSON_SCHEMA_PROPS]: jsonSchemaProps,
  [EXTERNAL_DOCUMENTATION]: { type: 'object', properties: { description: str, url: str } },
  [VALIDATION_RULE]: {
    type: 'object',
    properties: {
      rule: str,
      message: str,
      messageExpression: str,
      reason: goType('v1.FieldValueErrorReason', str),
      fieldPath: str,
      optionalOldSelf: bool,
    },
  },
};
