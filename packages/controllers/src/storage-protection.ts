/**
 * kube-controller-manager's storage protection controllers, run by kapi in the leader's
 * terms (StorageObjectInUseProtection admission adds the finalizers they remove):
 * - `persistentvolumeclaim-protection-controller`: a claim being deleted loses
 *   `kubernetes.io/pvc-protection` once no scheduled pod that has not finished uses it (a
 *   `persistentVolumeClaim` volume, or the claim of an `ephemeral` volume, `<pod>-<volume>`);
 *   the pods are read again from storage before the finalizer goes, as kube asks its API server.
 * - `persistentvolume-protection-controller`: a volume being deleted loses
 *   `kubernetes.io/pv-protection` once it is not Bound.
 * A deployment that runs the real kube-controller-manager switches these off with
 * `--controllers=*,-persistentvolumeclaim-protection-controller,-persistentvolume-protection-controller`.
 */
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import type { TermController } from './controller.js';
import { keyedController } from './keyed-controller.js';
import { startObjectCache } from './object-cache.js';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);
const keyOf = (obj: KubeObject) => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
const split = (key: string): [string, string] => {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
};

function deletionCandidate(obj: KubeObject | undefined, finalizer: string): obj is KubeObject {
  return obj !== undefined && obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).includes(finalizer);
}

/** The claims a pod's volumes name (persistentVolumeClaim volumes and ephemeral volumes' generated claims). */
function claimsOf(pod: KubeObject): string[] {
  const spec = rec((pod as Json)['spec']) ?? {};
  const out: string[] = [];
  for (const volume of list(spec['volumes'])) {
    const claim = rec(volume['persistentVolumeClaim'])?.['claimName'];
    if (typeof claim === 'string') out.push(claim);
    if (rec(volume['ephemeral']) !== undefined) out.push(`${pod.metadata.name ?? ''}-${String(volume['name'])}`);
  }
  return out;
}

/** Whether a pod holds a claim: it is scheduled, has not finished and names the claim. */
function podUsesClaim(pod: KubeObject, claim: string): boolean {
  const spec = rec((pod as Json)['spec']) ?? {};
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') return false;
  const phase = rec((pod as Json)['status'])?.['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  return claimsOf(pod).includes(claim);
}

/** Removes `finalizer` from the object through the registry (a conflict retries the key). */
async function removeFinalizer(registry: Pick<Registry, 'lookup'>, plural: string, obj: KubeObject, finalizer: string, userAgent: string): Promise<void> {
  const updater = registry.lookup('', 'v1', plural)?.updater;
  if (updater === undefined) return;
  const copy = structuredClone(obj) as Json & KubeObject;
  copy.metadata.finalizers = (copy.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  await updater.update({ namespace: obj.metadata.namespace ?? '', userAgent }, obj.metadata.name ?? '', { apiVersion: 'v1', kind: plural === 'persistentvolumes' ? 'PersistentVolume' : 'PersistentVolumeClaim', ...copy }, {});
}

function withCaches(controller: TermController, caches: readonly { stop(): Promise<void> }[]): TermController {
  return {
    synced: () => controller.synced(),
    run: (signal) => controller.run(signal),
    async stop() {
      await controller.stop();
      await Promise.all(caches.map((c) => c.stop()));
    },
  };
}

export function pvcProtectionController(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): TermController {
  const claims = startObjectCache(registry, 'persistentvolumeclaims', onError);
  const pods = startObjectCache(registry, 'pods', onError);
  const userAgent = 'kapi-controller-manager/pvc-protection-controller';
  const inUse = async (namespace: string, claim: string): Promise<boolean> => {
    if (pods.list(namespace).some((pod) => podUsesClaim(pod, claim))) return true;
    const lister = registry.lookup('', 'v1', 'pods')?.lister;
    if (lister === undefined) return false;
    return (await lister.list({ namespace, userAgent }, {})).items.some((pod) => podUsesClaim(pod, claim));
  };
  return withCaches(keyedController({
    caches: [claims, pods],
    keysOf: (obj) => (obj.metadata.namespace !== undefined && claims.get(obj.metadata.namespace, obj.metadata.name ?? '') === obj ? [keyOf(obj)] : claimsOf(obj).map((claim) => `${obj.metadata.namespace ?? ''}/${claim}`)),
    allKeys: () => claims.list().filter((c) => deletionCandidate(c, PVC_PROTECTION_FINALIZER)).map(keyOf),
    async reconcile(key) {
      const [namespace, name] = split(key);
      const claim = claims.get(namespace, name);
      if (!deletionCandidate(claim, PVC_PROTECTION_FINALIZER)) return;
      if (await inUse(namespace, name)) return;
      await removeFinalizer(registry, 'persistentvolumeclaims', claim, PVC_PROTECTION_FINALIZER, userAgent);
    },
    onError,
  }), [claims, pods]);
}

export function pvProtectionController(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): TermController {
  const volumes = startObjectCache(registry, 'persistentvolumes', onError);
  const userAgent = 'kapi-controller-manager/pv-protection-controller';
  return withCaches(keyedController({
    caches: [volumes],
    keysOf: (obj) => [obj.metadata.name ?? ''],
    allKeys: () => volumes.list().filter((v) => deletionCandidate(v, PV_PROTECTION_FINALIZER)).map((v) => v.metadata.name ?? ''),
    async reconcile(name) {
      const volume = volumes.get('', name);
      if (!deletionCandidate(volume, PV_PROTECTION_FINALIZER)) return;
      if (rec((volume as Json)['status'])?.['phase'] === 'Bound') return;
      await removeFinalizer(registry, 'persistentvolumes', volume, PV_PROTECTION_FINALIZER, userAgent);
    },
    onError,
  }), [volumes]);
}
