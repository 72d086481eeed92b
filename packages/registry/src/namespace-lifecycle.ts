/**
 * The parts of kube's NamespaceLifecycle admission: objects can only be created in a
 * namespace that exists and is not being terminated, and the immortal namespaces cannot be
 * deleted.
 */
import type { GroupResource, KubeObject } from '@kapi/machinery';
import { StatusError, forbidden, notFound } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';

export const NAMESPACES = { group: '', resource: 'namespaces' };

/** Namespaces kube never lets anyone delete. */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

export interface NamespaceLifecycle {
  /**
   * Resolves when `namespace` exists; throws 404 `namespaces "<ns>" not found` otherwise
   * (the watch cache when it has the namespace active, else a quorum read). With `creating` (the resource and name of an object to be created), a
   * terminating namespace is a 403 (see terminatingNamespace).
   */
  ensureNamespaceExists(namespace: string, creating?: { resource: GroupResource; name: string }): Promise<void>;
}

export function namespaceLifecycle(storage: Storage, namespaceRoot: string): NamespaceLifecycle {
  return {
    async ensureNamespaceExists(namespace, creating): Promise<void> {
      const key = `${namespaceRoot}/${namespace}`;
      // As kube's admission reads its namespace informer first: an active namespace in the
      // watch cache (which has this replica's own writes) needs no etcd round trip; a miss or
      // a terminating one is confirmed by a quorum read.
      // The cache's current view, when a get would answer at once: no awaits on the hot path.
      const peeked = storage.peekCached?.(key);
      if (peeked !== undefined && !isTerminating(peeked)) return;
      const cached = await storage.get(key, { ignoreNotFound: true, resourceVersion: '0' });
      if (cached !== undefined && !isTerminating(cached)) return;
      const found = await storage.get(key, { ignoreNotFound: true });
      if (found === undefined) throw notFound(NAMESPACES, namespace);
      if (creating !== undefined && isTerminating(found)) throw terminatingNamespace(creating.resource, creating.name, namespace);
    },
  };
}

function isTerminating(ns: KubeObject): boolean {
  const status = ns['status'] as { phase?: unknown } | undefined;
  return status?.phase === 'Terminating' || ns.metadata.deletionTimestamp !== undefined;
}

/**
 * kube's 403 for a create in a terminating namespace: `<resource> "<name>" is forbidden:
 * unable to create new content in namespace <ns> because it is being terminated`, with a
 * NamespaceTerminating cause on metadata.namespace.
 */
export function terminatingNamespace(resource: GroupResource, name: string, namespace: string): StatusError {
  const base = forbidden(resource, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  const { kind: _kind, apiVersion: _apiVersion, status: _status, ...rest } = base.status;
  return new StatusError({
    ...rest,
    details: {
      name,
      // kube omits an empty group (omitempty).
      ...(resource.group !== '' ? { group: resource.group } : {}),
      kind: resource.resource,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    },
  });
}

/** 403 Forbidden `namespaces "default" is forbidden: this namespace may not be deleted` for the immortal ones. */
export function checkNamespaceDeletable(name: string): void {
  if (!IMMORTAL_NAMESPACES.includes(name)) return;
  throw forbidden(NAMESPACES, name, 'this namespace may not be deleted');
}
