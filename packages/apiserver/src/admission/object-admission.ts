/**
 * The admission plugins kube-apiserver 1.32 enables by default for storage, networking,
 * certificates and quota, built from the plugin names chosen (admission/plugins.ts), with
 * the informer copies they read (StorageClasses, IngressClasses, ResourceQuotas) started once
 * the registry exists. `early` are the plugins kube runs between NodeRestriction and the
 * webhooks, in kube's order; `quota` is ResourceQuota, which kube runs last.
 * MutatingAdmissionPolicy is enabled by default in kube 1.32 but does nothing there (its
 * feature gate is off): it has no part here either.
 */
import { EMPTY_OBJECT_CACHE, startResourceCache, type ObjectCache } from '@kapi/controllers';
import { compareQuantities as compareQuantity, parseQuantity } from '@kapi/machinery';
import type { AdmissionPlugin, Registry, ResourceDefinition } from '@kapi/registry';
import type { PluginFactory } from './chain.js';
import { certificateApproval, certificateSigning, certificateSubjectRestriction, type Authorize } from './certificates.js';
import { defaultIngressClass } from './default-ingress-class.js';
import { registryQuotaSource, resourceQuotaAdmission } from './resource-quota.js';
import { defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from './storage.js';

export interface ObjectAdmission {
  readonly early: readonly PluginFactory[];
  readonly quota: PluginFactory | undefined;
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

const forResource = (plugin: AdmissionPlugin, group: string, resources: readonly string[]): PluginFactory =>
  (definition: ResourceDefinition) => (definition.group === group && resources.includes(definition.plural) ? plugin : undefined);

export function createObjectAdmission(plugins: readonly string[], authorize: Authorize): ObjectAdmission {
  let storageClasses: ObjectCache = EMPTY_OBJECT_CACHE;
  let ingressClasses: ObjectCache = EMPTY_OBJECT_CACHE;
  let quotas: ObjectCache = EMPTY_OBJECT_CACHE;
  let registryRef: Pick<Registry, 'lookup'> = { lookup: () => undefined };
  const on = (name: string) => plugins.includes(name);
  const compareStorage = (a: string, b: string): number | undefined => {
    const qa = parseQuantity(a);
    const qb = parseQuantity(b);
    return qa === undefined || qb === undefined ? undefined : compareQuantity(qa, qb);
  };
  // kube's order: DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize,
  // CertificateApproval, CertificateSigning, (ClusterTrustBundleAttest), CertificateSubjectRestriction, DefaultIngressClass.
  const early: PluginFactory[] = [];
  if (on('DefaultStorageClass')) early.push(forResource(defaultStorageClass(() => storageClasses.list()), '', ['persistentvolumeclaims']));
  if (on('StorageObjectInUseProtection')) early.push(forResource(storageObjectInUseProtection(), '', ['persistentvolumeclaims', 'persistentvolumes']));
  if (on('PersistentVolumeClaimResize')) early.push(forResource(persistentVolumeClaimResize((name) => storageClasses.get('', name), compareStorage), '', ['persistentvolumeclaims']));
  if (on('CertificateApproval')) early.push(forResource(certificateApproval(authorize), 'certificates.k8s.io', ['certificatesigningrequests']));
  if (on('CertificateSigning')) early.push(forResource(certificateSigning(authorize), 'certificates.k8s.io', ['certificatesigningrequests']));
  if (on('CertificateSubjectRestriction')) early.push(forResource(certificateSubjectRestriction(), 'certificates.k8s.io', ['certificatesigningrequests']));
  if (on('DefaultIngressClass')) early.push(forResource(defaultIngressClass(() => ingressClasses.list()), 'networking.k8s.io', ['ingresses']));
  const quotaPlugin = on('ResourceQuota') ? resourceQuotaAdmission(registryQuotaSource({ lookup: (g, v, p) => registryRef.lookup(g, v, p) }, () => quotas)) : undefined;
  const needsStorageClasses = on('DefaultStorageClass') || on('PersistentVolumeClaimResize');
  return {
    early,
    quota: quotaPlugin === undefined ? undefined : (definition) => (definition.namespaced ? quotaPlugin : undefined),
    start(registry, onError) {
      registryRef = registry;
      const cache = (group: string, plural: string) => {
        const served = registry.lookup(group, 'v1', plural);
        return served === undefined ? EMPTY_OBJECT_CACHE : startResourceCache(served, onError);
      };
      if (needsStorageClasses) storageClasses = cache('storage.k8s.io', 'storageclasses');
      if (on('DefaultIngressClass')) ingressClasses = cache('networking.k8s.io', 'ingressclasses');
      if (quotaPlugin !== undefined) quotas = cache('', 'resourcequotas');
    },
    synced: () => storageClasses.synced() && ingressClasses.synced() && quotas.synced(),
    async stop() {
      await Promise.all([storageClasses.stop(), ingressClasses.stop(), quotas.stop()]);
    },
  };
}
