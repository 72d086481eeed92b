/**
 * The APIServices kube-apiserver registers for what it serves itself (no `spec.service`):
 * one per built-in group-version, with the priorities of kube 1.32's table (a group-version
 * missing from the table gets none, as in kube), labelled `onstart`; and one per served
 * version of a CRD group, labelled `true`, at the priorities kube gives every CRD.
 */
import type { ApiServiceObject } from './apiservices.js';

/** The label the autoregister controller reads: how an APIService is kept. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
/** Created (or its spec set) once, when a server starts. */
export const MANAGED_ON_START = 'onstart';
/** Kept in step continuously (CRD group-versions). */
export const MANAGED_CONTINUOUSLY = 'true';

export type ManagedType = typeof MANAGED_ON_START | typeof MANAGED_CONTINUOUSLY;

/** groupPriorityMinimum and versionPriority per built-in group-version (`group/version`; core is `/v1`). */
const PRIORITIES: Readonly<Record<string, readonly [number, number]>> = {
  '/v1': [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'events.k8s.io/v1beta1': [17750, 5],
  'authentication.k8s.io/v1': [17700, 15],
  'authentication.k8s.io/v1beta1': [17700, 9],
  'authentication.k8s.io/v1alpha1': [17700, 1],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'autoscaling/v2beta1': [17500, 9],
  'autoscaling/v2beta2': [17500, 1],
  'batch/v1': [17400, 15],
  'batch/v1beta1': [17400, 9],
  'batch/v2alpha1': [17400, 9],
  'certificates.k8s.io/v1': [17300, 15],
  'certificates.k8s.io/v1beta1': [17300, 9],
  'certificates.k8s.io/v1alpha1': [17300, 1],
  'networking.k8s.io/v1': [17200, 15],
  'networking.k8s.io/v1beta1': [17200, 9],
  'networking.k8s.io/v1alpha1': [17200, 1],
  'policy/v1': [17100, 15],
  'policy/v1beta1': [17100, 9],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'storage.k8s.io/v1beta1': [16800, 9],
  'storage.k8s.io/v1alpha1': [16800, 1],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1beta1': [16700, 12],
  'admissionregistration.k8s.io/v1alpha1': [16700, 9],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'coordination.k8s.io/v1beta1': [16500, 13],
  'coordination.k8s.io/v1alpha2': [16500, 12],
  'node.k8s.io/v1': [16300, 15],
  'node.k8s.io/v1beta1': [16300, 9],
  'node.k8s.io/v1alpha1': [16300, 1],
  'discovery.k8s.io/v1': [16200, 15],
  'discovery.k8s.io/v1beta1': [16200, 12],
  'resource.k8s.io/v1beta1': [16200, 9],
  'resource.k8s.io/v1alpha3': [16200, 1],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'flowcontrol.apiserver.k8s.io/v1beta3': [16100, 18],
  'flowcontrol.apiserver.k8s.io/v1beta2': [16100, 15],
  'flowcontrol.apiserver.k8s.io/v1beta1': [16100, 12],
  'flowcontrol.apiserver.k8s.io/v1alpha1': [16100, 9],
  'internal.apiserver.k8s.io/v1alpha1': [16000, 9],
  'storagemigration.k8s.io/v1alpha1': [15800, 9],
};

/** kube's priorities for every CRD group-version ("CRDs should have relatively low priority"). */
const CRD_GROUP_PRIORITY = 1000;
const CRD_VERSION_PRIORITY = 100;

/** An APIService's name for a group-version: `<version>.<group>` (`v1.` for the core group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

function localApiService(group: string, version: string, groupPriorityMinimum: number, versionPriority: number, managed: ManagedType): ApiServiceObject {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: apiServiceName(group, version), labels: { [AUTOMANAGED_LABEL]: managed } },
    // The core group's APIService has no `group` (kube's zero value is omitted).
    spec: { ...(group !== '' ? { group } : {}), version, groupPriorityMinimum, versionPriority },
  } as ApiServiceObject;
}

/** The APIService for a built-in group-version, or undefined when kube's table has no priority for it. */
export function builtinApiService(group: string, version: string): ApiServiceObject | undefined {
  const priority = PRIORITIES[`${group}/${version}`];
  return priority === undefined ? undefined : localApiService(group, version, priority[0], priority[1], MANAGED_ON_START);
}

/** The APIService for a served version of a CRD group. */
export function crdApiService(group: string, version: string): ApiServiceObject {
  return localApiService(group, version, CRD_GROUP_PRIORITY, CRD_VERSION_PRIORITY, MANAGED_CONTINUOUSLY);
}

/** How `apiService` says it is kept (its automanaged label), if at all. */
export function managedType(apiService: ApiServiceObject | undefined): ManagedType | undefined {
  const value = apiService?.metadata.labels?.[AUTOMANAGED_LABEL];
  return value === MANAGED_ON_START || value === MANAGED_CONTINUOUSLY ? value : undefined;
}
