/**
 * The structural schema of apiextensions.k8s.io/v1 CustomResourceDefinition (field names and
 * list semantics from upstream's v1 types; descriptions are ours). openAPIV3Schema is kept
 * whole (it is itself a schema, validated by structural-schema.ts).
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { COMPONENTS, META_V1, goType, ref } from '../schemas/schema-builders.js';
import { JSON_SCHEMA_PROPS, SUBRESOURCE_STATUS, WEBHOOK_CONVERSION } from './json-schema-props.js';

const s = (description: string): JSONSchemaProps => ({ type: 'string', description });
const b = (description: string): JSONSchemaProps => ({ type: 'boolean', description });
const strings = (description: string): JSONSchemaProps => ({ type: 'array', description, items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' });

const names: JSONSchemaProps = {
  type: 'object',
  'x-kapi-go-type': 'v1.CustomResourceDefinitionNames',
  description: 'The names a custom resource is served under.',
  required: ['plural', 'kind'],
  properties: {
    plural: s('The plural name, used in URLs: /apis/<group>/<version>/<plural>. Lowercase.'),
    singular: s('The singular name, an alias on the CLI; defaults to the lowercased kind.'),
    kind: s('The serialized kind, CamelCase.'),
    listKind: s('The serialized kind of lists; defaults to <kind>List.'),
    shortNames: strings('Short names on the CLI (kubectl get <shortname>).'),
    categories: strings('Groups of resources the custom resource belongs to (kubectl get all).'),
  },
};

const column: JSONSchemaProps = {
  type: 'object',
  'x-kapi-go-type': 'v1.CustomResourceColumnDefinition',
  required: ['name', 'type', 'jsonPath'],
  properties: {
    name: s('A human readable column name.'),
    type: s('OpenAPI type of the column: integer, number, string, boolean or date.'),
    format: s('Optional OpenAPI format of the column.'),
    description: s('A human readable description of the column.'),
    priority: { type: 'integer', format: 'int32', description: '0 = shown by default; higher = only with -o wide.' },
    jsonPath: s('A simple JSON path evaluated against each custom resource to produce the cell.'),
  },
};

const version: JSONSchemaProps = {
  type: 'object',
  'x-kapi-go-type': 'v1.CustomResourceDefinitionVersion',
  required: ['name', 'served', 'storage'],
  properties: {
    name: s('The version name, e.g. v1, v2beta1; served at /apis/<group>/<version>/...'),
    served: b('Whether this version is served by REST APIs.'),
    storage: b('Whether this version is used when persisting custom resources; exactly one version has it.'),
    deprecated: b('Whether this version is deprecated; requests to it get a warning header.'),
    deprecationWarning: s('Overrides the default warning returned to API clients (only for deprecated versions).'),
    schema: {
      type: 'object',
      'x-kapi-go-type': 'v1.CustomResourceValidation',
      description: 'The schema used for validation, pruning and defaulting of this version.',
      properties: {
        openAPIV3Schema: {
          type: 'object',
          description: 'The OpenAPI v3 schema of the custom resource.',
          'x-kubernetes-preserve-unknown-fields': true,
          'x-kapi-decode-as': JSON_SCHEMA_PROPS,
        },
      },
    },
    subresources: {
      type: 'object',
      'x-kapi-go-type': 'v1.CustomResourceSubresources',
      description: 'The subresources of this version: status and scale.',
      properties: {
        status: {
          type: 'object',
          description: 'Enables the /status subresource.',
          'x-kubernetes-preserve-unknown-fields': true,
          'x-kapi-decode-as': SUBRESOURCE_STATUS,
        },
        scale: {
          type: 'object',
          'x-kapi-go-type': 'v1.CustomResourceSubresourceScale',
          description: 'Enables the /scale subresource.',
          required: ['specReplicasPath', 'statusReplicasPath'],
          properties: {
            specReplicasPath: s('JSON path inside .spec to the desired replicas.'),
            statusReplicasPath: s('JSON path inside .status to the observed replicas.'),
            labelSelectorPath: s('JSON path inside .spec or .status to the serialized label selector.'),
          },
        },
      },
    },
    additionalPrinterColumns: { type: 'array', description: 'Extra columns in server-side tables.', items: column, 'x-kubernetes-list-type': 'atomic' },
    selectableFields: {
      type: 'array',
      description: 'Field paths usable as field selectors (at most 8).',
      items: {
        type: 'object',
        'x-kapi-go-type': 'v1.SelectableField',
        required: ['jsonPath'],
        properties: { jsonPath: s('A simple JSON path to a string, integer or boolean field.') },
      },
      'x-kubernetes-list-type': 'atomic',
    },
  },
};

const condition: JSONSchemaProps = {
  type: 'object',
  'x-kapi-go-type': 'v1.CustomResourceDefinitionCondition',
  required: ['type', 'status'],
  properties: {
    type: goType('v1.CustomResourceDefinitionConditionType', s('The type of the condition: Established, NamesAccepted, Terminating.')),
    status: goType('v1.ConditionStatus', s('True, False or Unknown.')),
    lastTransitionTime: ref(`${META_V1}Time`, 'When the condition last changed status.'),
    reason: s('A machine-readable reason for the last transition.'),
    message: s('A human-readable message about the last transition.'),
  },
};

export const crdSpecSchema: JSONSchemaProps = {
  type: 'object',
  'x-kapi-go-type': 'v1.CustomResourceDefinitionSpec',
  description: 'How the custom resource is named, scoped, versioned and validated.',
  required: ['group', 'names', 'scope', 'versions'],
  properties: {
    group: s('The API group of the custom resources: /apis/<group>/<version>.'),
    names: names,
    scope: goType('v1.ResourceScope', s('Cluster or Namespaced.')),
    versions: { type: 'array', description: 'The served versions; exactly one is the storage version.', items: version, 'x-kubernetes-list-type': 'atomic' },
    conversion: {
      type: 'object',
      'x-kapi-go-type': 'v1.CustomResourceConversion',
      description: 'How custom resources convert between versions; only None (apiVersion changes only).',
      required: ['strategy'],
      properties: {
        strategy: goType('v1.ConversionStrategyType', s('None or Webhook.')),
        webhook: {
          type: 'object',
          description: 'Webhook conversion (not supported).',
          'x-kubernetes-preserve-unknown-fields': true,
          'x-kapi-decode-as': WEBHOOK_CONVERSION,
        },
      },
    },
    preserveUnknownFields: b('Deprecated: must be false (use x-kubernetes-preserve-unknown-fields in the schema).'),
  },
};

export const crdStatusSchema: JSONSchemaProps = {
  type: 'object',
  'x-kapi-go-type': 'v1.CustomResourceDefinitionStatus',
  description: 'The observed state of the definition.',
  properties: {
    conditions: { type: 'array', items: condition, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
    acceptedNames: { ...names, required: [] },
    storedVersions: strings('Every version custom resources were ever persisted in.'),
  },
};

export const crdSchema: JSONSchemaProps = {
  type: 'object',
  description: 'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name must be in the format <.spec.name>.<.spec.group>.',
  required: ['spec'],
  properties: {
    apiVersion: s('The versioned schema of this representation of an object.'),
    kind: s('The REST resource type this object represents.'),
    metadata: { $ref: `${COMPONENTS}${META_V1}ObjectMeta` },
    spec: crdSpecSchema,
    status: crdStatusSchema,
  },
  'x-kubernetes-group-version-kind': [{ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', version: 'v1' }],
};

/** kube's OpenAPI names for the CRD kinds, so documents name them as kube-apiserver does. */
export const APIEXTENSIONS_V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

export const apiextensionsDefinitions: Record<string, JSONSchemaProps> = {
  [`${APIEXTENSIONS_V1}CustomResourceDefinition`]: crdSchema,
  [`${APIEXTENSIONS_V1}CustomResourceDefinitionList`]: {
    type: 'object',
    description: 'CustomResourceDefinitionList is a list of CustomResourceDefinition objects.',
    required: ['items'],
    properties: {
      apiVersion: s('The versioned schema of this representation of an object.'),
      kind: s('The REST resource type this object represents.'),
      metadata: { $ref: `${COMPONENTS}${META_V1}ListMeta` },
      items: { type: 'array', description: 'The CustomResourceDefinitions.', items: { $ref: `${COMPONENTS}${APIEXTENSIONS_V1}CustomResourceDefinition` } },
    },
    'x-kubernetes-group-version-kind': [{ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinitionList', version: 'v1' }],
  },
};
