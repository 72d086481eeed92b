/**
 * kapi's own descriptions of core/v1 schemas (kube's are prose and not copied).
 */
import type { Descriptions } from '../../builtin/descriptions.js';

export const coreDescriptions: Descriptions = {
  'io.k8s.api.core.v1.ConfigMap': {
    '': 'Non-confidential configuration data for pods and other consumers.',
    binaryData: 'Binary values by key, base64-encoded in JSON; keys may not also appear in data.',
    data: 'UTF-8 values by key; keys may not also appear in binaryData.',
    immutable: 'If true, data and binaryData can no longer be changed (only metadata can).',
  },
  'io.k8s.api.core.v1.ConfigMapList': {
    '': 'A list of config maps.',
    items: 'The config maps.',
  },
  'io.k8s.api.core.v1.Event': {
    '': 'A report of an event somewhere in the cluster.',
    action: 'What action was taken or failed regarding the involved object.',
    count: 'How many times this event has occurred.',
    eventTime: 'When the event was first observed (new-style events).',
    firstTimestamp: 'When the event was first recorded.',
    involvedObject: 'The object this event is about.',
    lastTimestamp: 'When the most recent occurrence of the event was recorded.',
    message: 'A human-readable description of the event.',
    reason: 'A short, machine-understandable reason for the event, in UpperCamelCase.',
    related: 'A secondary object involved in the event, if any.',
    reportingComponent: 'The controller that emitted the event, e.g. kubernetes.io/kubelet.',
    reportingInstance: 'The instance of the controller that emitted the event, e.g. kubelet-node-1.',
    series: 'Data about the series this event belongs to, if it is repeated.',
    source: 'The component reporting the event.',
    type: 'The type of the event: "Normal" or "Warning" (more may come).',
  },
  'io.k8s.api.core.v1.EventList': {
    '': 'A list of events.',
    items: 'The events.',
  },
  'io.k8s.api.core.v1.EventSeries': {
    '': 'Data about a series of repeated events.',
    count: 'How many times the event has occurred since the series started.',
    lastObservedTime: 'When the last event of the series was seen.',
  },
  'io.k8s.api.core.v1.EventSource': {
    '': 'The component that reported an event.',
    component: 'The component that generated the event.',
    host: 'The node the event was generated on.',
  },
  'io.k8s.api.core.v1.LocalObjectReference': {
    '': 'A reference to an object by name within the same namespace.',
    name: 'Name of the referent.',
  },
  'io.k8s.api.core.v1.Namespace': {
    '': 'A scope for names; most objects live in exactly one namespace.',
    spec: 'The desired state of the namespace.',
    status: 'The observed state of the namespace.',
  },
  'io.k8s.api.core.v1.NamespaceCondition': {
    '': 'One observed condition of a namespace.',
    lastTransitionTime: 'When the condition last changed status.',
    message: 'Human-readable details.',
    reason: 'A machine-readable reason for the last transition.',
    status: '"True", "False" or "Unknown".',
    type: 'The condition type, e.g. NamespaceDeletionDiscoveryFailure.',
  },
  'io.k8s.api.core.v1.NamespaceList': {
    '': 'A list of namespaces.',
    items: 'The namespaces.',
  },
  'io.k8s.api.core.v1.NamespaceSpec': {
    '': 'The desired state of a namespace.',
    finalizers: 'Values that must be cleared before the namespace is removed from storage.',
  },
  'io.k8s.api.core.v1.NamespaceStatus': {
    '': 'The observed state of a namespace.',
    conditions: 'The latest observations of the namespace state.',
    phase: 'The lifecycle phase: "Active" or "Terminating".',
  },
  'io.k8s.api.core.v1.ObjectReference': {
    '': 'A reference to another object, by kind, namespace and name (and optionally uid, version and a field path).',
    apiVersion: 'API version of the referent.',
    fieldPath: 'A path to a part of the referent instead of the whole object, e.g. spec.containers{name}.',
    kind: 'Kind of the referent.',
    name: 'Name of the referent.',
    namespace: 'Namespace of the referent.',
    resourceVersion: 'The resourceVersion this reference was made for, if any.',
    uid: 'UID of the referent.',
  },
  'io.k8s.api.core.v1.Secret': {
    '': 'Confidential data (passwords, tokens, keys) of a limited size.',
    data: 'Secret values by key, base64-encoded in JSON.',
    immutable: 'If true, data can no longer be changed (only metadata can).',
    stringData: 'Write-only convenience: plain-text values merged into data on write (overriding it); never returned.',
    type: 'Used to check and process the secret data programmatically, e.g. "Opaque" (default), "kubernetes.io/tls".',
  },
  'io.k8s.api.core.v1.SecretList': {
    '': 'A list of secrets.',
    items: 'The secrets.',
  },
  'io.k8s.api.core.v1.ServiceAccount': {
    '': 'An identity for processes running in pods, with the secrets they may use.',
    automountServiceAccountToken: 'Whether pods using this account get an API token mounted automatically (pods may override it).',
    imagePullSecrets: 'Secrets in the same namespace used to pull images for pods using this account.',
    secrets: 'Secrets in the same namespace that pods using this account may use (legacy).',
  },
  'io.k8s.api.core.v1.ServiceAccountList': {
    '': 'A list of service accounts.',
    items: 'The service accounts.',
  },
};
