/**
 * core/v1 Pod: kube's defaulting on decode (pod-defaults.ts), status reset on create
 * (phase Pending, the QoS class, the SchedulingGated condition) and kept on update, spec kept
 * on /status, spec.ephemeralContainers the only change through /ephemeralcontainers,
 * validation (pod-validation.ts), kube's Table (pod-columns.ts), field selectors and the
 * grace period of a graceful delete (store-delete.ts applies it); binding, eviction and the
 * kubelet subresources are in their own files.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldForbidden } from '@kapi/machinery';
import type { FieldGetter, ResourceDefinition } from '../../../definition.js';
import { builtinStrategy, stringAt } from '../../../builtin/builtin-strategy.js';
import { semanticEqual } from '../../../semantic-equal.js';
import { podColumns } from './pod-columns.js';
import { defaultPod } from './pod-defaults.js';
import { podQOSClass } from './pod-qos.js';
import { validatePod, validatePodStatus, validatePodUpdate } from './pod-validation.js';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

/** kube's pod field set (PodToSelectableFields plus the labels its v1 conversion accepts). */
export const podSelectableFields: Record<string, FieldGetter> = {
  'spec.nodeName': (pod) => stringAt(pod, ['spec', 'nodeName']),
  'spec.restartPolicy': (pod) => stringAt(pod, ['spec', 'restartPolicy']),
  'spec.schedulerName': (pod) => stringAt(pod, ['spec', 'schedulerName']),
  'spec.serviceAccountName': (pod) => stringAt(pod, ['spec', 'serviceAccountName']),
  'spec.hostNetwork': (pod) => String(rec(pod['spec'])['hostNetwork'] === true),
  'status.phase': (pod) => stringAt(pod, ['status', 'phase']),
  'status.podIP': (pod) => {
    const ips = rec(pod['status'])['podIPs'];
    const ip = Array.isArray(ips) ? rec(ips[0])['ip'] : undefined;
    return typeof ip === 'string' ? ip : undefined;
  },
  // Accepted as a label by kube's conversion but absent from its field set: always "".
  'status.podIPs': () => undefined,
  'status.nominatedNodeName': (pod) => stringAt(pod, ['status', 'nominatedNodeName']),
};

export const SCHEDULING_GATED_MESSAGE = 'Scheduling is blocked due to non-empty scheduling gates';

function prepareForCreate(pod: KubeObject): void {
  const status: Rec = { phase: 'Pending', qosClass: podQOSClass(pod) };
  const gates = rec(pod['spec'])['schedulingGates'];
  if (Array.isArray(gates) && gates.length > 0) {
    status['conditions'] = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: SCHEDULING_GATED_MESSAGE }];
  }
  pod['status'] = status;
}

/** Through /status the spec stays; through /ephemeralcontainers only spec.ephemeralContainers changes. */
function prepareForSubresourceUpdate(subresource: string, pod: KubeObject, old: KubeObject): void {
  if (subresource === 'ephemeralcontainers') {
    const ephemeral = rec(pod['spec'])['ephemeralContainers'];
    const spec = structuredClone(rec(old['spec']));
    if (ephemeral === undefined) delete spec['ephemeralContainers'];
    else spec['ephemeralContainers'] = ephemeral;
    pod['spec'] = spec;
    pod['status'] = structuredClone(old['status']);
    if (old['status'] === undefined) delete pod['status'];
    return;
  }
  pod['spec'] = structuredClone(old['spec']);
  if (old['spec'] === undefined) delete pod['spec'];
}

function containerNamed(list: unknown, name: unknown): unknown {
  return Array.isArray(list) ? list.find((c) => rec(c)['name'] === name) : undefined;
}

/** kube's ValidatePodEphemeralContainersUpdate: ephemeral containers are only ever added. */
function validateEphemeralContainersUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const after = rec(pod['spec'])['ephemeralContainers'];
  const before = rec(old['spec'])['ephemeralContainers'];
  for (const container of Array.isArray(before) ? before : []) {
    const name = rec(container)['name'];
    const now = containerNamed(after, name);
    if (now === undefined) errs.push(fieldForbidden('spec.ephemeralContainers', `existing ephemeral containers "${String(name)}" may not be removed\n`));
    else if (!semanticEqual(now, container)) errs.push(fieldForbidden('spec.ephemeralContainers', `existing ephemeral containers "${String(name)}" may not be changed\n`));
  }
  return [...errs, ...validatePod(pod)];
}

/**
 * kube's pod CheckGracefulDelete: the requested period, else spec.terminationGracePeriodSeconds
 * (else 0); 0 for a pod on no node or in a terminal phase.
 */
export function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = rec(pod['spec']);
  const configured = spec['terminationGracePeriodSeconds'];
  let period = requested ?? (typeof configured === 'number' ? configured : 0);
  const phase = rec(pod['status'])['phase'];
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '' || phase === 'Succeeded' || phase === 'Failed') period = 0;
  return period;
}

/** What pods do beyond the generic built-in store (subresources are added in index.ts). */
export const podBehaviour: Partial<ResourceDefinition> = {
  selectableFields: podSelectableFields,
  printerColumns: podColumns,
  strategy: builtinStrategy({
    decode: defaultPod,
    prepareForCreate,
    prepareForSubresourceUpdate,
    validate: validatePod,
    validateUpdate: validatePodUpdate,
    gracefulDeletePeriod: podGracePeriod,
    validateSubresourceUpdate: (subresource, pod, old) => {
      if (subresource === 'ephemeralcontainers') return validateEphemeralContainersUpdate(pod, old);
      return subresource === 'status' ? validatePodStatus(pod) : [];
    },
  }),
};
