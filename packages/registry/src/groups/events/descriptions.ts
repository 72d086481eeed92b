/**
 * kapi's own descriptions of events.k8s.io schemas (kube's are prose and not copied).
 */
import type { Descriptions } from '../../builtin/descriptions.js';

export const eventsDescriptions: Descriptions = {
  'io.k8s.api.events.v1.Event': {
    '': 'A report of an event somewhere in the cluster (events.k8s.io), for observability rather than state.',
    action: 'What action was taken or failed regarding the regarding object, machine-readable; at most 128 characters.',
    deprecatedCount: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    deprecatedFirstTimestamp: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    deprecatedLastTimestamp: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    deprecatedSource: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    eventTime: 'When the event was first observed. Required.',
    note: 'A human-readable description of the status of this operation; at most 1kB.',
    reason: 'Why the action was taken, in UpperCamelCase; at most 128 characters.',
    regarding: 'The object this event is about (for a kubelet event, usually the pod).',
    related: 'A secondary object for more complex actions, if any.',
    reportingController: 'The controller that emitted the event, e.g. kubernetes.io/kubelet. Required for new events.',
    reportingInstance: 'The ID of the controller instance, e.g. kubelet-xyzf; at most 128 characters. Required for new events.',
    series: 'Data about the event series this event represents, or nil for a singleton event.',
    type: 'The type of this event: Normal or Warning (new types may come). Required for new events.',
  },
  'io.k8s.api.events.v1.EventList': {
    '': 'A list of events.',
    items: 'The events.',
  },
  'io.k8s.api.events.v1.EventSeries': {
    '': 'Data about a series of events: an event that happened many times, with the count and time of the last occurrence.',
    count: 'How many occurrences of the event the series has seen since the last heartbeat.',
    lastObservedTime: 'When the last event of the series was seen.',
  },
  'io.k8s.api.events.v1beta1.Event': {
    '': 'A report of an event somewhere in the cluster (events.k8s.io), for observability rather than state.',
    action: 'What action was taken or failed regarding the regarding object, machine-readable; at most 128 characters.',
    deprecatedCount: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    deprecatedFirstTimestamp: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    deprecatedLastTimestamp: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    deprecatedSource: 'The deprecated field assuring backward compatibility with core.v1 Event type.',
    eventTime: 'When the event was first observed. Required.',
    note: 'A human-readable description of the status of this operation; at most 1kB.',
    reason: 'Why the action was taken, in UpperCamelCase; at most 128 characters.',
    regarding: 'The object this event is about (for a kubelet event, usually the pod).',
    related: 'A secondary object for more complex actions, if any.',
    reportingController: 'The controller that emitted the event, e.g. kubernetes.io/kubelet. Required for new events.',
    reportingInstance: 'The ID of the controller instance, e.g. kubelet-xyzf; at most 128 characters. Required for new events.',
    series: 'Data about the event series this event represents, or nil for a singleton event.',
    type: 'The type of this event: Normal or Warning (new types may come). Required for new events.',
  },
  'io.k8s.api.events.v1beta1.EventList': {
    '': 'A list of events.',
    items: 'The events.',
  },
  'io.k8s.api.events.v1beta1.EventSeries': {
    '': 'Data about a series of events: an event that happened many times, with the count and time of the last occurrence.',
    count: 'How many occurrences of the event the series has seen since the last heartbeat.',
    lastObservedTime: 'When the last event of the series was seen.',
  },
};
