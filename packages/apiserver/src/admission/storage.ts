/**
 * kube's storage admission plugins:
 * - StorageObjectInUseProtection: every created PersistentVolumeClaim gets the
 *   `kubernetes.io/pvc-protection` finalizer and every PersistentVolume
 *   `kubernetes.io/pv-protection`; kube-controller-manager's pvc-protection and pv-protection
 *   controllers (kapi's copies: controllers/src/storage-protection.ts) remove them once the
 *   object is no longer in use.
 * - DefaultStorageClass: a claim created without a class (no `spec.storageClassName`, no
 *   beta class annotation) gets the default StorageClass — the newest one annotated
 *   `storageclass.kubernetes.io/is-default-class` (or the beta annotation) "true", ties broken
 *   by name — when there is one.
 * - PersistentVolumeClaimResize: a claim's storage request may only grow when the claim is
 *   Bound and its StorageClass (the same before and after) allows volume expansion (403).
 * The plugins read StorageClasses from an informer copy (kube's lister).
 */
import type { KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from '@kapi/registry';
import { admissionForbidden } from './forbidden.js';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';
const BETA_CLAIM_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const isCore = (a: AdmissionAttributes, resource: string) => a.resource.group === '' && a.resource.resource === resource && a.subresource === '';

/** Reads every StorageClass (an informer's copy). */
export type ClassLister = () => readonly KubeObject[];

/**
 * The default class among `classes` by `isDefault`: the most recently created, then the
 * first by name (kube's GetDefaultClass and the IngressClass plugin's getDefaultClass).
 */
export function newestDefault(classes: readonly KubeObject[], isDefault: (c: KubeObject) => boolean): KubeObject | undefined {
  const defaults = classes.filter(isDefault);
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
    if (ta !== tb) return tb - ta;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  return defaults[0];
}

/** StorageObjectInUseProtection: the protection finalizer on every created PV and PVC. */
export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    handles: (operation) => operation === 'CREATE',
    admit(a) {
      const finalizer = isCore(a, 'persistentvolumeclaims') ? PVC_PROTECTION_FINALIZER : isCore(a, 'persistentvolumes') ? PV_PROTECTION_FINALIZER : undefined;
      if (finalizer === undefined || a.object === undefined) return;
      const finalizers = Array.isArray(a.object.metadata.finalizers) ? a.object.metadata.finalizers : [];
      if (!finalizers.includes(finalizer)) a.object.metadata.finalizers = [...finalizers, finalizer];
    },
  };
}

/** DefaultStorageClass: the default class for a claim created without one. */
export function defaultStorageClass(storageClasses: ClassLister): AdmissionPlugin {
  const isDefault = (c: KubeObject) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true' || c.metadata.annotations?.[BETA_DEFAULT_CLASS_ANNOTATION] === 'true';
  return {
    name: 'DefaultStorageClass',
    handles: (operation) => operation === 'CREATE',
    admit(a) {
      if (!isCore(a, 'persistentvolumeclaims') || a.object === undefined) return;
      const spec = rec((a.object as Json)['spec']);
      if (spec === undefined) return;
      if (spec['storageClassName'] !== undefined && spec['storageClassName'] !== null) return;
      if (a.object.metadata.annotations?.[BETA_CLAIM_CLASS_ANNOTATION] !== undefined) return;
      const chosen = newestDefault(storageClasses(), isDefault);
      if (chosen !== undefined) spec['storageClassName'] = chosen.metadata.name;
    },
  };
}

/** The class a claim names: the beta annotation, else spec.storageClassName, else "". */
function claimClass(claim: KubeObject): string {
  const annotated = claim.metadata.annotations?.[BETA_CLAIM_CLASS_ANNOTATION];
  if (annotated !== undefined) return annotated;
  const name = rec((claim as Json)['spec'])?.['storageClassName'];
  return typeof name === 'string' ? name : '';
}

/** PersistentVolumeClaimResize: growing a claim needs a bound claim and a class that allows expansion. */
export function persistentVolumeClaimResize(storageClass: (name: string) => KubeObject | undefined, compare: (a: string, b: string) => number | undefined): AdmissionPlugin {
  const storageRequest = (claim: KubeObject): string => {
    const value = rec(rec(rec((claim as Json)['spec'])?.['resources'])?.['requests'])?.['storage'];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '0';
  };
  return {
    name: 'PersistentVolumeClaimResize',
    handles: (operation) => operation === 'UPDATE',
    validate(a) {
      if (!isCore(a, 'persistentvolumeclaims') || a.object === undefined || a.oldObject === undefined) return;
      const growth = compare(storageRequest(a.object), storageRequest(a.oldObject));
      if (growth === undefined || growth <= 0) return;
      if (rec((a.oldObject as Json)['status'])?.['phase'] !== 'Bound') throw admissionForbidden(a, 'Only bound persistent volume claims can be expanded');
      const newClass = claimClass(a.object);
      const allowed = newClass !== '' && newClass === claimClass(a.oldObject) && (storageClass(newClass) as Json | undefined)?.['allowVolumeExpansion'] === true;
      if (!allowed) throw admissionForbidden(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    },
  };
}
