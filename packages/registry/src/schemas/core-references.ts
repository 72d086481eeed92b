/** core/v1 reference types shared by several built-in kinds. */
import type { JSONSchemaProps } from '@kapi/machinery';
import { CORE_V1, goType, string } from './schema-builders.js';

const objectReference: JSONSchemaProps = {
  description: 'A reference to another object, by kind, namespace and name (and optionally uid, version and a field path).',
  type: 'object',
  properties: {
    apiVersion: string('API version of the referent.'),
    fieldPath: string('A path to a part of the referent instead of the whole object, e.g. spec.containers{name}.'),
    kind: string('Kind of the referent.'),
    name: string('Name of the referent.'),
    namespace: string('Namespace of the referent.'),
    resourceVersion: string('The resourceVersion this reference was made for, if any.'),
    uid: goType('types.UID', string('UID of the referent.')),
  },
  'x-kubernetes-map-type': 'atomic',
};

const localObjectReference: JSONSchemaProps = {
  description: 'A reference to an object by name within the same namespace.',
  type: 'object',
  properties: {
    name: string('Name of the referent.'),
  },
  'x-kubernetes-map-type': 'atomic',
};

export const OBJECT_REFERENCE = `${CORE_V1}ObjectReference`;
export const LOCAL_OBJECT_REFERENCE = `${CORE_V1}LocalObjectReference`;

export const coreReferenceDefinitions: Record<string, JSONSchemaProps> = {
  [OBJECT_REFERENCE]: objectReference,
  [LOCAL_OBJECT_REFERENCE]: localObjectReference,
};
