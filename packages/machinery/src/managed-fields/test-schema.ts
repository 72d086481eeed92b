/**
 * A small schema for the merge-engine tests (not used by the server): object metadata as
 * kube declares it, and a spec with every list and map flavour.
 */
import type { JSONSchemaProps } from '../schema.js';
import type { SchemaDefinitions } from '../schema-resolve.js';

const str: JSONSchemaProps = { type: 'string' };
const int: JSONSchemaProps = { type: 'integer' };

export const testDefinitions: SchemaDefinitions = {
  ObjectMeta: {
    type: 'object',
    properties: {
      name: str,
      namespace: str,
      uid: str,
      resourceVersion: str,
      generation: int,
      creationTimestamp: str,
      labels: { type: 'object', additionalProperties: str },
      annotations: { type: 'object', additionalProperties: str },
      finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      ownerReferences: {
        type: 'array',
        items: { $ref: '#/components/schemas/OwnerReference' },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'atomic' },
    },
  },
  OwnerReference: {
    type: 'object',
    properties: { apiVersion: str, kind: str, name: str, uid: str, controller: { type: 'boolean' } },
    'x-kubernetes-map-type': 'atomic',
  },
  Container: {
    type: 'object',
    properties: {
      name: str,
      image: str,
      args: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
      ports: {
        type: 'array',
        items: { type: 'object', properties: { containerPort: int, protocol: { type: 'string', default: 'TCP' }, name: str } },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      },
      env: {
        type: 'array',
        items: { type: 'object', properties: { name: str, value: str } },
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      },
      resources: { type: 'object', properties: { limits: { type: 'object', additionalProperties: str } } },
    },
  },
};

export const testSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: { $ref: '#/components/schemas/ObjectMeta' },
    data: { type: 'object', additionalProperties: str },
    spec: {
      type: 'object',
      properties: {
        replicas: int,
        paused: { type: 'boolean' },
        selector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
        tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: str },
        containers: {
          type: 'array',
          items: { allOf: [{ $ref: '#/components/schemas/Container' }] },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
        },
        strategy: {
          type: 'object',
          properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: int, maxUnavailable: int } } },
        },
        template: { type: 'object', properties: { metadata: { $ref: '#/components/schemas/ObjectMeta' } } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: {
      type: 'object',
      properties: {
        phase: str,
        conditions: {
          type: 'array',
          items: { type: 'object', properties: { type: str, status: str, reason: str } },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
        },
      },
    },
  },
};
