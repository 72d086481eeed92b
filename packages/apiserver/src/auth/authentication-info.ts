/**
 * kube's cluster-authentication-trust controller: every replica publishes how it
 * authenticates clients in kube-system/extension-apiserver-authentication (the client CA,
 * and the front-proxy CA with its allowed names and headers), for extension API servers to
 * read. What is stored is merged with what this replica holds, never narrowed: CA bundles
 * keep every certificate already listed (so replicas with different or rotated CAs all stay
 * trusted) and header lists are unions. Written at start and re-checked every minute; an
 * unchanged configmap is not written.
 */
import { X509Certificate } from 'node:crypto';
import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import { parseCertificateBundle } from './request-header.js';

export const AUTHENTICATION_INFO_NAMESPACE = 'kube-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';
const RESYNC_MS = 60_000;

export interface AuthenticationInfo {
  /** --client-ca-file's PEM. */
  readonly clientCa?: string;
  readonly requestHeader?: {
    readonly clientCa: string;
    readonly allowedNames: readonly string[];
    readonly usernameHeaders: readonly string[];
    /** Published only when the RemoteRequestHeaderUID feature is on (undefined otherwise). */
    readonly uidHeaders?: readonly string[];
    readonly groupHeaders: readonly string[];
    readonly extraHeaderPrefixes: readonly string[];
  };
}

/** The certificates of both bundles, those of `existing` first, each once, as PEM. */
function combinedBundle(existing: string | undefined, wanted: string): string {
  const certs: X509Certificate[] = [];
  for (const pem of [existing ?? '', wanted]) {
    let parsed: X509Certificate[] = [];
    try {
      parsed = parseCertificateBundle(pem);
    } catch {
      // an unreadable or empty bundle contributes nothing
    }
    for (const cert of parsed) if (!certs.some((c) => c.raw.equals(cert.raw))) certs.push(cert);
  }
  return certs.map((c) => c.toString()).join('');
}

function union(existing: string | undefined, wanted: readonly string[]): string {
  let stored: unknown = [];
  try {
    stored = JSON.parse(existing ?? '[]');
  } catch {
    stored = [];
  }
  const out = Array.isArray(stored) ? stored.filter((v): v is string => typeof v === 'string') : [];
  for (const value of wanted) if (!out.includes(value)) out.push(value);
  return JSON.stringify(out);
}

/** The configmap's data once this replica's information is merged into `existing`. */
export function mergedAuthenticationData(existing: Readonly<Record<string, string>>, info: AuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = { ...existing };
  if (info.clientCa !== undefined) data['client-ca-file'] = combinedBundle(existing['client-ca-file'], info.clientCa);
  const header = info.requestHeader;
  if (header !== undefined) {
    data['requestheader-username-headers'] = union(existing['requestheader-username-headers'], header.usernameHeaders);
    if (header.uidHeaders !== undefined) data['requestheader-uid-headers'] = union(existing['requestheader-uid-headers'], header.uidHeaders);
    data['requestheader-group-headers'] = union(existing['requestheader-group-headers'], header.groupHeaders);
    data['requestheader-extra-headers-prefix'] = union(existing['requestheader-extra-headers-prefix'], header.extraHeaderPrefixes);
    data['requestheader-client-ca-file'] = combinedBundle(existing['requestheader-client-ca-file'], header.clientCa);
    data['requestheader-allowed-names'] = union(existing['requestheader-allowed-names'], header.allowedNames);
  }
  return data;
}

export interface AuthenticationInfoPublisher {
  /** Writes the configmap if it lacks anything; throws storage errors (the caller retries). */
  sync(): Promise<void>;
  stop(): void;
}

export function authenticationInfoPublisher(registry: Pick<Registry, 'lookup'>, info: AuthenticationInfo, onError: (err: unknown) => void): AuthenticationInfoPublisher {
  const ctx = { namespace: AUTHENTICATION_INFO_NAMESPACE, userAgent: 'kapi-apiserver/cluster-authentication-trust-controller' };
  let timer: NodeJS.Timeout | undefined;
  const sync = async (): Promise<void> => {
    if (info.clientCa === undefined && info.requestHeader === undefined) return;
    const configmaps = registry.lookup('', 'v1', 'configmaps');
    if (configmaps?.getter === undefined || configmaps.creater === undefined || configmaps.updater === undefined) return;
    let current: KubeObject | undefined;
    try {
      current = await configmaps.getter.get(ctx, AUTHENTICATION_INFO_NAME, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const existing = ((current as { data?: Record<string, string> } | undefined)?.data) ?? {};
    const data = mergedAuthenticationData(existing, info);
    if (current !== undefined && JSON.stringify(Object.entries(existing).sort()) === JSON.stringify(Object.entries(data).sort())) return;
    try {
      if (current === undefined) {
        await configmaps.creater.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_INFO_NAME, namespace: AUTHENTICATION_INFO_NAMESPACE }, data }, {});
      } else {
        await configmaps.updater.update(ctx, AUTHENTICATION_INFO_NAME, { ...current, data }, {});
      }
    } catch (err) {
      // Another replica wrote meanwhile: the next round merges with what it wrote.
      if (!isAlreadyExists(err) && !isConflict(err)) throw err;
    }
  };
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      sync().catch(onError).finally(schedule);
    }, RESYNC_MS);
    timer.unref();
  };
  let started = false;
  return {
    async sync() {
      await sync();
      if (!started) {
        started = true;
        schedule();
      }
    },
    stop() {
      stopped = true;
      started = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
