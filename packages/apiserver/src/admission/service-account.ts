/**
 * kube's ServiceAccount admission plugin, for pod creates: the pod runs as
 * `spec.serviceAccountName` (default `default`), which must exist (403 `error looking up
 * service account <ns>/<name>: serviceaccount "<name>" not found` otherwise); unless the
 * pod or its service account opts out (automountServiceAccountToken: false), a projected
 * `kube-api-access-<suffix>` volume (a bound token, the `kube-root-ca.crt` ConfigMap's
 * ca.crt, the namespace) is added and mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every init and app container that has
 * nothing mounted there; the service account's imagePullSecrets are copied when the pod
 * has none. Mirror pods (static pods of a kubelet) may not reference service accounts or
 * secrets. Other pod writes are not this plugin's business.
 */
import { randomInt } from 'node:crypto';
import { forbidden, isStatusError, type KubeObject } from '@kapi/machinery';
import type { AdmissionPlugin, RequestContext } from '@kapi/registry';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
import { ROOT_CA_CONFIGMAP } from '@kapi/controllers';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** The kubelet refreshes the token well before; 3607 marks a token the apiserver may extend. */
const PROJECTED_TOKEN_EXPIRATION_SECONDS = 3607;
/** kube's name generator alphabet (no vowels, no confusable digits). */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Reads a service account: undefined when it does not exist. */
export type ServiceAccountReader = (namespace: string, name: string) => Promise<KubeObject | undefined>;

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);

function suffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: PROJECTED_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  };
}

/** Whether a pod mounts a token: the pod's choice, else its service account's, else yes. */
function shouldAutomount(serviceAccount: KubeObject, spec: Json): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean') return spec['automountServiceAccountToken'];
  const fromAccount = (serviceAccount as Json)['automountServiceAccountToken'];
  return typeof fromAccount === 'boolean' ? fromAccount : true;
}

function mountToken(spec: Json): void {
  const volumes = list(spec['volumes']);
  const existing = volumes.find((v) => typeof v['name'] === 'string' && v['name'].startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = typeof existing?.['name'] === 'string' ? existing['name'] : `${TOKEN_VOLUME_PREFIX}${suffix()}`;
  let needed = false;
  for (const field of ['initContainers', 'containers']) {
    for (const container of list(spec[field])) {
      const mounts = list(container['volumeMounts']);
      if (mounts.some((m) => m['mountPath'] === TOKEN_MOUNT_PATH)) continue;
      container['volumeMounts'] = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      needed = true;
    }
  }
  if (existing === undefined && needed) spec['volumes'] = [...volumes, tokenVolume(volumeName)];
}

/** Whether a pod references any secret (volumes, env, envFrom, imagePullSecrets). */
function referencesSecrets(spec: Json): boolean {
  if (list(spec['imagePullSecrets']).length > 0) return true;
  for (const volume of list(spec['volumes'])) {
    if (rec(volume['secret']) !== undefined) return true;
    if (list(rec(volume['projected'])?.['sources']).some((s) => rec(s['secret']) !== undefined)) return true;
    for (const plugin of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos', 'csi']) {
      const source = rec(volume[plugin]);
      if (source !== undefined && (rec(source['secretRef']) !== undefined || rec(source['nodePublishSecretRef']) !== undefined || typeof source['secretName'] === 'string')) return true;
    }
  }
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const container of list(spec[field])) {
      if (list(container['envFrom']).some((e) => rec(e['secretRef']) !== undefined)) return true;
      if (list(container['env']).some((e) => rec(rec(e['valueFrom'])?.['secretKeyRef']) !== undefined)) return true;
    }
  }
  return false;
}

/** kube's ServiceAccount plugin for pods: mutates (and refuses) pod creates. */
export function serviceAccountAdmission(readServiceAccount: ServiceAccountReader): AdmissionPlugin {
  const admitPod = serviceAccountPodAdmission(readServiceAccount);
  return { name: 'ServiceAccount', handles: (operation) => operation === 'CREATE', admit: (a) => (a.subresource === '' && a.object !== undefined ? admitPod(a.request, a.object) : undefined) };
}

function serviceAccountPodAdmission(readServiceAccount: ServiceAccountReader): (req: RequestContext, pod: KubeObject) => Promise<void> {
  return async (req: RequestContext, pod: KubeObject): Promise<void> => {
    const name = typeof pod.metadata.name === 'string' ? pod.metadata.name : '';
    const refuse = (message: string) => forbidden({ group: '', resource: 'pods' }, name, message);
    const spec = rec((pod as Json)['spec']);
    if (spec === undefined) return;
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
      if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '') throw refuse('a mirror pod may not reference service accounts');
      if (referencesSecrets(spec)) throw refuse('a mirror pod may not reference secrets');
      return;
    }
    // v1's deprecated `serviceAccount` names the account when serviceAccountName does not (kube's conversion), and mirrors it.
    if (typeof spec['serviceAccountName'] !== 'string' || spec['serviceAccountName'] === '') {
      spec['serviceAccountName'] = typeof spec['serviceAccount'] === 'string' && spec['serviceAccount'] !== '' ? spec['serviceAccount'] : DEFAULT_SERVICE_ACCOUNT;
    }
    const accountName = spec['serviceAccountName'] as string;
    spec['serviceAccount'] = accountName;
    let serviceAccount: KubeObject | undefined;
    try {
      serviceAccount = await readServiceAccount(req.namespace, accountName);
    } catch (err) {
      throw refuse(`error looking up service account ${req.namespace}/${accountName}: ${isStatusError(err) ? err.status.message : String(err)}`);
    }
    if (serviceAccount === undefined) throw refuse(`error looking up service account ${req.namespace}/${accountName}: serviceaccount "${accountName}" not found`);
    if (shouldAutomount(serviceAccount, spec)) mountToken(spec);
    if (list(spec['imagePullSecrets']).length === 0) {
      const fromAccount = list((serviceAccount as Json)['imagePullSecrets']);
      if (fromAccount.length > 0) spec['imagePullSecrets'] = fromAccount.map((s) => ({ name: s['name'] }));
    }
  };
}
