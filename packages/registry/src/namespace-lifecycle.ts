/**
 * The parts of kube's NamespaceLifecycle admission that apply so far: objects can only be
 * created in a namespace that exists, and the immortal namespaces cannot be deleted.
 */
import { forbidden, notFound } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';

export const NAMESPACES = { group: '', resource: 'namespaces' };

/** Namespaces kube never lets anyone delete. */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

export interface NamespaceLifecycle {
  /** Resolves when `namespace` exists; throws 404 `namespaces "<ns>" not found` otherwise (quorum read). */
  ensureNamespaceExists(namespace: string): Promise<void>;
}

export function namespaceLifecycle(storage: Storage, namespaceRoot: string): NamespaceLifecycle {
  return {
    async ensureNamespaceExists(namespace: string): Promise<void> {
      const found = await storage.get(`${namespaceRoot}/${namespace}`, { ignoreNotFound: true });
      if (found === undefined) throw notFound(NAMESPACES, namespace);
    },
  };
}

/** 403 Forbidden `namespaces "default" is forbidden: this namespace may not be deleted` for the immortal ones. */
export function checkNamespaceDeletable(name: string): void {
  if (!IMMORTAL_NAMESPACES.includes(name)) return;
  throw forbidden(NAMESPACES, name, 'this namespace may not be deleted');
}
