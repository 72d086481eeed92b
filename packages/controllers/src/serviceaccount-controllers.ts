/**
 * kube-controller-manager's service account controllers, run by kapi in the leader's terms:
 * - `serviceaccount`: a `default` ServiceAccount in every active namespace, recreated when deleted;
 * - `root-ca-cert-publisher`: the `kube-root-ca.crt` ConfigMap (`ca.crt`: the CA clients in a
 *   pod trust the apiserver with) in every active namespace, restored when changed or deleted;
 * - `serviceaccount-token`: Secrets of type `kubernetes.io/service-account-token` get a legacy
 *   token, `ca.crt` and `namespace`; those whose service account is gone (or was recreated)
 *   are deleted. Only with a signing key, as kube's.
 * Each reconciles keys from its informers (shared ObjectCaches); a failed key is retried
 * after a second. Writes go through the registry (admission and validation included).
 */
import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import type { TermController } from './controller.js';
import type { ObjectCache } from './object-cache.js';
import { keyedController } from './keyed-controller.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
/** The ConfigMap the root CA publisher writes in every namespace (and pods' projected volumes read). */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const ROOT_CA_DESCRIPTION = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Writes through the registry as kube-controller-manager's clients would. */
function writer(registry: Pick<Registry, 'lookup'>, userAgent: string) {
  const resource = (plural: string) => {
    const found = registry.lookup('', 'v1', plural);
    if (found === undefined) throw new Error(`${plural} are not served`);
    return found;
  };
  const ctx = (namespace: string) => ({ namespace, userAgent });
  return {
    async get(plural: string, namespace: string, name: string): Promise<KubeObject | undefined> {
      try {
        return await resource(plural).getter!.get(ctx(namespace), name, {});
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    /** Creates; false when it exists already or the namespace is gone or terminating. */
    async create(plural: string, namespace: string, body: unknown): Promise<boolean> {
      try {
        await resource(plural).creater!.create(ctx(namespace), body, {});
        return true;
      } catch (err) {
        if (isAlreadyExists(err) || isNotFound(err) || (err as { status?: { code?: number } }).status?.code === 403) return false;
        throw err;
      }
    },
    /** Updates (resourceVersion precondition); a conflict or a vanished object is retried through the informer's next event. */
    async update(plural: string, namespace: string, name: string, body: unknown): Promise<void> {
      try {
        await resource(plural).updater!.update(ctx(namespace), name, body, {});
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) return;
        throw err;
      }
    },
    async delete(plural: string, namespace: string, name: string, uid: string): Promise<void> {
      try {
        await resource(plural).deleter!.delete(ctx(namespace), name, { preconditions: { uid } });
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) return;
        throw err;
      }
    },
  };
}

const nsKey = (obj: KubeObject) => obj.metadata.namespace ?? '';
const isActive = (ns: KubeObject | undefined) => ns !== undefined && ns.metadata.deletionTimestamp === undefined && (ns['status'] as { phase?: string } | undefined)?.phase !== 'Terminating';

export interface ControllerCaches {
  readonly namespaces: ObjectCache;
  readonly serviceAccounts: ObjectCache;
  /** Only `kube-root-ca.crt` ConfigMaps. */
  readonly rootCaConfigMaps: ObjectCache;
  readonly secrets: ObjectCache;
}

/** kube's serviceaccounts-controller: `default` in every active namespace. */
export function defaultServiceAccountController(registry: Pick<Registry, 'lookup'>, caches: ControllerCaches, onError: (err: unknown) => void): TermController {
  const api = writer(registry, 'kapi-controller-manager/serviceaccount-controller');
  return keyedController({
    caches: [caches.namespaces, caches.serviceAccounts],
    keysOf: (obj, deleted) => (obj.metadata.namespace === undefined ? [obj.metadata.name ?? ''] : deleted && obj.metadata.name === 'default' ? [nsKey(obj)] : []),
    allKeys: () => caches.namespaces.list().map((ns) => ns.metadata.name ?? ''),
    async reconcile(namespace) {
      if (!isActive(caches.namespaces.get('', namespace))) return;
      if (caches.serviceAccounts.get(namespace, 'default') !== undefined) return;
      await api.create('serviceaccounts', namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    },
    onError,
  });
}

/** kube's root-ca-cert-publisher: `kube-root-ca.crt` with `ca.crt` = `caPem` in every active namespace. */
export function rootCaPublisher(registry: Pick<Registry, 'lookup'>, caches: ControllerCaches, caPem: string, onError: (err: unknown) => void): TermController {
  const api = writer(registry, 'kapi-controller-manager/root-ca-cert-publisher');
  return keyedController({
    caches: [caches.namespaces, caches.rootCaConfigMaps],
    keysOf: (obj) => (obj.metadata.namespace === undefined ? [obj.metadata.name ?? ''] : [nsKey(obj)]),
    allKeys: () => caches.namespaces.list().map((ns) => ns.metadata.name ?? ''),
    async reconcile(namespace) {
      if (!isActive(caches.namespaces.get('', namespace))) return;
      const current = caches.rootCaConfigMaps.get(namespace, ROOT_CA_CONFIGMAP);
      const data = { 'ca.crt': caPem };
      if (current === undefined) {
        await api.create('configmaps', namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data });
        return;
      }
      const currentData = (current['data'] ?? {}) as Record<string, string>;
      const sameData = Object.keys(currentData).length === 1 && currentData['ca.crt'] === caPem;
      const described = current.metadata.annotations?.[DESCRIPTION_ANNOTATION] === ROOT_CA_DESCRIPTION;
      if (sameData && described && current['binaryData'] === undefined) return;
      const { binaryData: _binary, ...rest } = current as Record<string, unknown>;
      await api.update('configmaps', namespace, ROOT_CA_CONFIGMAP, {
        ...rest,
        metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
        data,
      });
    },
    onError,
  });
}

/** Signs the legacy (Secret-based) token of `serviceAccount` for the Secret `secretName` (the apiserver holds the key). */
export type LegacyTokenSigner = (serviceAccount: KubeObject, secretName: string) => string;

/** kube's serviceaccount-token controller for Secrets of type kubernetes.io/service-account-token. */
export function tokenSecretController(registry: Pick<Registry, 'lookup'>, caches: ControllerCaches, legacyToken: LegacyTokenSigner, caPem: string | undefined, onError: (err: unknown) => void): TermController {
  const api = writer(registry, 'kapi-controller-manager/tokens-controller');
  const tokenSecrets = (namespace?: string) => caches.secrets.list(namespace).filter((s) => s['type'] === SERVICE_ACCOUNT_TOKEN_TYPE);
  const keyOf = (obj: KubeObject) => `${nsKey(obj)}/${obj.metadata.name ?? ''}`;
  return keyedController({
    caches: [caches.serviceAccounts, caches.secrets],
    keysOf(obj) {
      if (obj['type'] === SERVICE_ACCOUNT_TOKEN_TYPE) return [keyOf(obj)];
      if (obj.kind === 'ServiceAccount' || obj['secrets'] !== undefined || obj['type'] === undefined) {
        return tokenSecrets(nsKey(obj)).filter((s) => s.metadata.annotations?.[SA_NAME_ANNOTATION] === obj.metadata.name).map(keyOf);
      }
      return [];
    },
    allKeys: () => tokenSecrets().map(keyOf),
    async reconcile(secretKey) {
      const [namespace, name] = secretKey.split('/') as [string, string];
      const secret = caches.secrets.get(namespace, name);
      if (secret === undefined || secret['type'] !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata.deletionTimestamp !== undefined) return;
      const accountName = secret.metadata.annotations?.[SA_NAME_ANNOTATION] ?? '';
      const wantedUid = secret.metadata.annotations?.[SA_UID_ANNOTATION] ?? '';
      let account = caches.serviceAccounts.get(namespace, accountName);
      // The informers may lag behind a fresh write: confirm an absence with a live read before deleting.
      if (account === undefined || (wantedUid !== '' && account.metadata.uid !== wantedUid)) account = await api.get('serviceaccounts', namespace, accountName);
      if (account === undefined || (wantedUid !== '' && account.metadata.uid !== wantedUid)) {
        await api.delete('secrets', namespace, name, String(secret.metadata.uid ?? ''));
        return;
      }
      const data = { ...((secret['data'] ?? {}) as Record<string, string>) };
      const b64 = (text: string) => Buffer.from(text).toString('base64');
      let changed = false;
      if ((data['token'] ?? '') === '') {
        data['token'] = b64(legacyToken(account, name));
        changed = true;
      }
      if (caPem !== undefined && data['ca.crt'] !== b64(caPem)) {
        data['ca.crt'] = b64(caPem);
        changed = true;
      }
      if (data['namespace'] !== b64(namespace)) {
        data['namespace'] = b64(namespace);
        changed = true;
      }
      if (!changed && wantedUid !== '') return;
      await api.update('secrets', namespace, name, {
        ...secret,
        metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [SA_UID_ANNOTATION]: String(account.metadata.uid ?? '') } },
        data,
      });
    },
    onError,
  });
}
