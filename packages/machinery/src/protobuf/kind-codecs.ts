/**
 * The kinds kapi serves as protobuf, keyed by apiVersion and kind: each object kind with
 * its message codec and its list message. Field rules (omitempty, pointers) follow the Go
 * types in k8s.io/api; see field-codec.ts.
 */
import * as f from './field-codec.js';
import { messageCodec, type MessageCodec } from './field-codec.js';
import {
  coordinationMessages as coordination,
  coordinationV1beta1Messages as coordinationV1beta1,
  coreMessages as core,
  eventsV1Messages as eventsV1,
  eventsV1beta1Messages as eventsV1beta1,
  type MessageType,
} from './messages.js';
import { deleteOptionsCodec, objectMetaCodec, partialObjectMetadataCodec, statusCodec } from './meta-codecs.js';
import { metaMessages as meta } from './messages.js';

const metadata = f.message(objectMetaCodec);

const objectReferenceCodec = messageCodec(core.ObjectReference, {
  kind: f.string,
  namespace: f.string,
  name: f.string,
  uid: f.string,
  apiVersion: f.string,
  resourceVersion: f.string,
  fieldPath: f.string,
});

const localObjectReferenceCodec = messageCodec(core.LocalObjectReference, { name: f.string });

const namespaceConditionCodec = messageCodec(core.NamespaceCondition, {
  type: f.requiredString,
  status: f.requiredString,
  lastTransitionTime: f.time,
  reason: f.string,
  message: f.string,
});

const namespaceCodec = messageCodec(core.Namespace, {
  metadata,
  spec: f.message(messageCodec(core.NamespaceSpec, { finalizers: f.stringList })),
  status: f.message(messageCodec(core.NamespaceStatus, { phase: f.string, conditions: f.messageList(namespaceConditionCodec) })),
});

const configMapCodec = messageCodec(core.ConfigMap, {
  metadata,
  data: f.stringMap,
  binaryData: f.bytesMap,
  immutable: f.optionalBool,
});

const secretCodec = messageCodec(core.Secret, {
  metadata,
  data: f.bytesMap,
  type: f.string,
  stringData: f.stringMap,
  immutable: f.optionalBool,
});

const serviceAccountCodec = messageCodec(core.ServiceAccount, {
  metadata,
  secrets: f.messageList(objectReferenceCodec),
  imagePullSecrets: f.messageList(localObjectReferenceCodec),
  automountServiceAccountToken: f.optionalBool,
});

const eventCodec = messageCodec(core.Event, {
  metadata,
  involvedObject: f.message(objectReferenceCodec),
  reason: f.string,
  message: f.string,
  source: f.message(messageCodec(core.EventSource, { component: f.string, host: f.string })),
  firstTimestamp: f.time,
  lastTimestamp: f.time,
  count: f.int32,
  type: f.string,
  eventTime: f.microTime,
  series: f.message(messageCodec(core.EventSeries, { count: f.int32, lastObservedTime: f.microTime })),
  action: f.string,
  related: f.message(objectReferenceCodec),
  reportingComponent: f.requiredString,
  reportingInstance: f.requiredString,
});

function leaseCodecOf(messages: typeof coordination | typeof coordinationV1beta1): MessageCodec {
  return messageCodec(messages.Lease, {
    metadata,
    spec: f.message(
      messageCodec(messages.LeaseSpec, {
        holderIdentity: f.optionalString,
        leaseDurationSeconds: f.optionalInt32,
        acquireTime: f.microTime,
        renewTime: f.microTime,
        leaseTransitions: f.optionalInt32,
        strategy: f.optionalString,
        preferredHolder: f.optionalString,
      }),
    ),
  });
}

const leaseCodec = leaseCodecOf(coordination);

/** events.k8s.io Events (k8s.io/api/events/v1 and v1beta1 have the same fields and numbers). */
function eventsApiCodecOf(messages: typeof eventsV1 | typeof eventsV1beta1): MessageCodec {
  return messageCodec(messages.Event, {
    metadata,
    eventTime: f.microTime,
    series: f.message(messageCodec(messages.EventSeries, { count: f.int32, lastObservedTime: f.microTime })),
    reportingController: f.string,
    reportingInstance: f.string,
    action: f.string,
    reason: f.string,
    regarding: f.message(objectReferenceCodec),
    related: f.message(objectReferenceCodec),
    note: f.string,
    type: f.string,
    deprecatedSource: f.message(messageCodec(core.EventSource, { component: f.string, host: f.string })),
    deprecatedFirstTimestamp: f.time,
    deprecatedLastTimestamp: f.time,
    deprecatedCount: f.int32,
  });
}

/** A kind served as protobuf: its object codec and the message of its list. */
export interface ProtobufKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly codec: MessageCodec;
  /** The `<Kind>List` message (metadata=1 ListMeta, items=2); undefined for kinds without lists. */
  readonly listType: MessageType | undefined;
}

const kinds: ProtobufKind[] = [
  { apiVersion: 'v1', kind: 'Namespace', codec: namespaceCodec, listType: core.NamespaceList },
  { apiVersion: 'v1', kind: 'ConfigMap', codec: configMapCodec, listType: core.ConfigMapList },
  { apiVersion: 'v1', kind: 'Secret', codec: secretCodec, listType: core.SecretList },
  { apiVersion: 'v1', kind: 'ServiceAccount', codec: serviceAccountCodec, listType: core.ServiceAccountList },
  { apiVersion: 'v1', kind: 'Event', codec: eventCodec, listType: core.EventList },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', codec: leaseCodec, listType: coordination.LeaseList },
  { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', codec: leaseCodecOf(coordinationV1beta1), listType: coordinationV1beta1.LeaseList },
  { apiVersion: 'events.k8s.io/v1', kind: 'Event', codec: eventsApiCodecOf(eventsV1), listType: eventsV1.EventList },
  { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', codec: eventsApiCodecOf(eventsV1beta1), listType: eventsV1beta1.EventList },
  // kube answers every group version's Status and DeleteOptions as meta/v1 messages.
  { apiVersion: 'v1', kind: 'Status', codec: statusCodec, listType: undefined },
  { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', codec: deleteOptionsCodec, listType: undefined },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', codec: partialObjectMetadataCodec, listType: meta.PartialObjectMetadataList },
  { apiVersion: 'meta.k8s.io/v1beta1', kind: 'PartialObjectMetadata', codec: partialObjectMetadataCodec, listType: meta.PartialObjectMetadataList },
];

const byKey = new Map(kinds.map((k) => [`${k.apiVersion}/${k.kind}`, k]));
const byListKind = new Map(kinds.filter((k) => k.listType !== undefined).map((k) => [`${k.apiVersion}/${k.kind}List`, k]));

/** The protobuf kind for an object's apiVersion and kind, if kapi has a message for it. */
export function protobufKind(apiVersion: string, kind: string): ProtobufKind | undefined {
  return byKey.get(`${apiVersion}/${kind}`);
}

/** The protobuf kind whose list is `<apiVersion>/<listKind>`. */
export function protobufKindOfList(apiVersion: string, listKind: string): ProtobufKind | undefined {
  return byListKind.get(`${apiVersion}/${listKind}`);
}

/** Every kind served as protobuf (for tests and discovery of coverage). */
export function protobufKinds(): readonly ProtobufKind[] {
  return kinds;
}
