/** meta/v1 messages: object and list metadata, Status, DeleteOptions, PartialObjectMetadata. */
import * as f from './field-codec.js';
import { messageCodec } from './field-codec.js';
import { metaMessages as meta } from './messages.js';

export const ownerReferenceCodec = messageCodec(meta.OwnerReference, {
  apiVersion: f.requiredString,
  kind: f.requiredString,
  name: f.requiredString,
  uid: f.requiredString,
  controller: f.optionalBool,
  blockOwnerDeletion: f.optionalBool,
});

export const managedFieldsEntryCodec = messageCodec(meta.ManagedFieldsEntry, {
  manager: f.string,
  operation: f.string,
  apiVersion: f.string,
  time: f.time,
  fieldsType: f.string,
  fieldsV1: f.fieldsV1,
  subresource: f.string,
});

export const objectMetaCodec = messageCodec(meta.ObjectMeta, {
  name: f.string,
  generateName: f.string,
  namespace: f.string,
  selfLink: f.string,
  uid: f.string,
  resourceVersion: f.string,
  generation: f.int64,
  creationTimestamp: f.time,
  deletionTimestamp: f.time,
  deletionGracePeriodSeconds: f.optionalInt64,
  labels: f.stringMap,
  annotations: f.stringMap,
  ownerReferences: f.messageList(ownerReferenceCodec),
  finalizers: f.stringList,
  managedFields: f.messageList(managedFieldsEntryCodec),
});

export const listMetaCodec = messageCodec(meta.ListMeta, {
  selfLink: f.string,
  resourceVersion: f.string,
  continue: f.string,
  remainingItemCount: f.optionalInt64,
});

const statusCauseCodec = messageCodec(meta.StatusCause, {
  reason: f.string,
  message: f.string,
  field: f.string,
});

const statusDetailsCodec = messageCodec(meta.StatusDetails, {
  name: f.string,
  group: f.string,
  kind: f.string,
  uid: f.string,
  causes: f.messageList(statusCauseCodec),
  retryAfterSeconds: f.int32,
});

export const statusCodec = messageCodec(meta.Status, {
  metadata: f.message(listMetaCodec),
  status: f.string,
  message: f.string,
  reason: f.string,
  details: f.message(statusDetailsCodec),
  code: f.int32,
});

const preconditionsCodec = messageCodec(meta.Preconditions, {
  uid: f.optionalString,
  resourceVersion: f.optionalString,
});

export const deleteOptionsCodec = messageCodec(meta.DeleteOptions, {
  gracePeriodSeconds: f.optionalInt64,
  preconditions: f.message(preconditionsCodec),
  orphanDependents: f.optionalBool,
  propagationPolicy: f.optionalString,
  dryRun: f.stringList,
  ignoreStoreReadErrorWithClusterBreakingPotential: f.optionalBool,
});

export const partialObjectMetadataCodec = messageCodec(meta.PartialObjectMetadata, {
  metadata: f.message(objectMetaCodec),
});
