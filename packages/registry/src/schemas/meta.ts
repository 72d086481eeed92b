/**
 * Built-in schemas carry no `required` lists: kube validates built-in kinds with typed code,
 * not with their OpenAPI, so required-ness is checked by metadata validation and strategies.
 *
 * Shared meta.k8s.io/v1 schemas (ObjectMeta, ListMeta, Time, managed fields, owner
 * references, Status, DeleteOptions, ...), keyed by kube's OpenAPI names so that every
 * resource schema can `$ref` them and the OpenAPI generator can publish them as components.
 * Field names, types and list semantics follow the Kubernetes API; descriptions are ours.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { META_V1, array, boolean, goType, int32, int64, ref, string, stringMap } from './schema-builders.js';

const time: JSONSchemaProps = {
  description: 'A timestamp in RFC 3339 form with second precision, in UTC (e.g. 2024-01-02T03:04:05Z).',
  type: 'string',
  format: 'date-time',
};

const microTime: JSONSchemaProps = {
  description: 'A timestamp in RFC 3339 form with microsecond precision (e.g. 2024-01-02T03:04:05.000006Z).',
  type: 'string',
  format: 'date-time',
};

const fieldsV1: JSONSchemaProps = {
  description:
    'A set of field paths in the FieldsV1 encoding: a nested object whose keys name fields (f:), map-list items (k:), set items (v:) or list positions (i:).',
  type: 'object',
  // Its keys are data, not schema fields: never prune them.
  'x-kubernetes-preserve-unknown-fields': true,
};

const managedFieldsEntry: JSONSchemaProps = {
  description: 'Which fields one manager owns, as recorded by server-side apply and update tracking.',
  type: 'object',
  properties: {
    apiVersion: string('The version of the object the field set is expressed in.'),
    fieldsType: string('The encoding of the field set; only "FieldsV1" exists.'),
    fieldsV1: ref(`${META_V1}FieldsV1`, 'The field set, in the FieldsV1 encoding.'),
    manager: string('The name of the workflow that manages these fields.'),
    operation: goType('v1.ManagedFieldsOperationType', string('The kind of request that produced this entry: "Apply" or "Update".')),
    subresource: string('The subresource the fields were written through ("" for the main resource).'),
    time: ref(`${META_V1}Time`, 'When the fields were last changed by this manager.'),
  },
};

const ownerReference: JSONSchemaProps = {
  description:
    'Points at an object that owns this one; the garbage collector removes dependents of deleted owners. All four identifying fields are required (checked by metadata validation).',
  type: 'object',
  properties: {
    apiVersion: string('API version of the owner.'),
    blockOwnerDeletion: boolean('If true, the owner cannot be deleted in the foreground until this reference is removed.'),
    controller: boolean('If true, this owner is the managing controller; at most one reference may say so.'),
    kind: string('Kind of the owner.'),
    name: string('Name of the owner.'),
    uid: goType('types.UID', string('UID of the owner.')),
  },
  'x-kubernetes-map-type': 'atomic',
};

const objectMeta: JSONSchemaProps = {
  description: 'Metadata every persisted object carries.',
  type: 'object',
  properties: {
    annotations: stringMap('Unstructured key/value data stored with the object for tools and libraries; not queryable.'),
    creationTimestamp: ref(`${META_V1}Time`, 'When the server created the object. Set by the system; read-only.'),
    deletionGracePeriodSeconds: int64('Seconds the object is allowed to terminate gracefully before removal. Set by the system.'),
    deletionTimestamp: ref(`${META_V1}Time`, 'When deletion was requested; set by the server, the object is removed once its finalizers are gone.'),
    finalizers: array(string(''), 'Entries that must be removed before the object is deleted from storage.', {
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    generateName: string('A prefix the server uses to generate a unique name when `name` is empty.'),
    generation: int64('A sequence number for a specific generation of the desired state. Set by the system; read-only.'),
    labels: stringMap('Key/value pairs used to organize and select objects.'),
    managedFields: array(ref(`${META_V1}ManagedFieldsEntry`), 'The field sets owned by each manager, maintained by the server.', {
      'x-kubernetes-list-type': 'atomic',
    }),
    name: string('Unique name within a namespace; required when creating unless generateName is used; cannot be updated.'),
    namespace: string('The namespace the name is unique in; empty for cluster-scoped objects.'),
    ownerReferences: array(ref(`${META_V1}OwnerReference`), 'Objects this object depends on.', {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    resourceVersion: string('An opaque value that changes whenever the object changes; used for optimistic concurrency, watches and reads.'),
    selfLink: string('Deprecated and not set by the server.'),
    uid: goType('types.UID', string('Unique in time and space; set by the server on create; read-only.')),
  },
};

const listMeta: JSONSchemaProps = {
  description: 'Metadata of list responses.',
  type: 'object',
  properties: {
    continue: string('Set when more items are available; pass it back to read the next page.'),
    remainingItemCount: int64('How many items follow this page, when the server knows.'),
    resourceVersion: string('The revision the list was read at.'),
    selfLink: string('Deprecated and not set by the server.'),
  },
};

const statusCause: JSONSchemaProps = {
  description: 'One reason behind a failed request.',
  type: 'object',
  properties: {
    field: string('The field the cause refers to, in JSON path form (e.g. spec.containers[0].name).'),
    message: string('A human-readable description of the cause.'),
    reason: string('A machine-readable description of the cause.'),
  },
};

const statusDetails: JSONSchemaProps = {
  description: 'Extra data about a failure that clients may act on.',
  type: 'object',
  properties: {
    causes: array(ref(`${META_V1}StatusCause`), 'The individual causes of the failure.', { 'x-kubernetes-list-type': 'atomic' }),
    group: string('The group of the resource involved.'),
    kind: string('The kind (or, for many errors, the resource) involved.'),
    name: string('The name of the object involved.'),
    retryAfterSeconds: int32('Seconds to wait before retrying, when a retry may succeed.'),
    uid: string('The UID of the object involved.'),
  },
};

const status: JSONSchemaProps = {
  description: 'The result of a call that does not return an object, and every error.',
  type: 'object',
  properties: {
    apiVersion: string('API version of this representation.'),
    code: int32('The HTTP status code.'),
    details: ref(`${META_V1}StatusDetails`, 'Extended data associated with the reason.'),
    kind: string('Kind of this representation.'),
    message: string('A human-readable description of the result.'),
    metadata: ref(`${META_V1}ListMeta`, 'Standard list metadata.'),
    reason: string('A machine-readable description of why the call failed.'),
    status: string('"Success" or "Failure".'),
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
};

const preconditions: JSONSchemaProps = {
  description: 'Conditions that must hold before a delete is carried out.',
  type: 'object',
  properties: {
    resourceVersion: string('The object must have this resourceVersion.'),
    uid: string('The object must have this UID.'),
  },
};

const deleteOptions: JSONSchemaProps = {
  description: 'Options for a delete request.',
  type: 'object',
  properties: {
    apiVersion: string('API version of this representation.'),
    dryRun: array(string(''), 'If "All", run every stage of the request without persisting anything.', { 'x-kubernetes-list-type': 'atomic' }),
    gracePeriodSeconds: int64('Seconds before the object is deleted; zero means immediately.'),
    ignoreStoreReadErrorWithClusterBreakingPotential: boolean('Delete an object that cannot be read from storage; dangerous.'),
    kind: string('Kind of this representation.'),
    orphanDependents: boolean('Deprecated: use propagationPolicy.'),
    preconditions: ref(`${META_V1}Preconditions`, 'Must hold before the deletion happens.'),
    propagationPolicy: string('How dependents are garbage collected: "Orphan", "Background" or "Foreground".'),
  },
};

const rawExtension: JSONSchemaProps = {
  description: 'An embedded object of any kind.',
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
};

const watchEvent: JSONSchemaProps = {
  description: 'One event of a watch stream.',
  type: 'object',
  required: ['type', 'object'],
  properties: {
    object: ref('io.k8s.apimachinery.pkg.runtime.RawExtension', 'The object the event is about (or a Status for ERROR events).'),
    type: string('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
  },
};

/** meta/v1 (and runtime) schemas by kube's OpenAPI name. */
export const metaDefinitions: Record<string, JSONSchemaProps> = {
  [`${META_V1}Time`]: time,
  [`${META_V1}MicroTime`]: microTime,
  [`${META_V1}FieldsV1`]: fieldsV1,
  [`${META_V1}ManagedFieldsEntry`]: managedFieldsEntry,
  [`${META_V1}OwnerReference`]: ownerReference,
  [`${META_V1}ObjectMeta`]: objectMeta,
  [`${META_V1}ListMeta`]: listMeta,
  [`${META_V1}StatusCause`]: statusCause,
  [`${META_V1}StatusDetails`]: statusDetails,
  [`${META_V1}Status`]: status,
  [`${META_V1}Preconditions`]: preconditions,
  [`${META_V1}DeleteOptions`]: deleteOptions,
  [`${META_V1}WatchEvent`]: watchEvent,
  'io.k8s.apimachinery.pkg.runtime.RawExtension': rawExtension,
};

export const OBJECT_META = `${META_V1}ObjectMeta`;
