/**
 * The registry: one generic store per served version of every resource definition, looked up
 * by group/version/plural. The apiserver builds routes, discovery and OpenAPI from
 * `resources` and the exported schema `definitions`.
 */
import { isAlreadyExists } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import type { ResourceDefinition } from './definition.js';
import { builtinDefinitions } from './builtins/index.js';
import { checkNamespaceDeletable } from './namespace-lifecycle.js';
import type { RestResource } from './rest.js';
import { createStore } from './store.js';

export interface RegistryOptions {
  readonly storage: Storage;
  /** etcd key prefix; default `/registry`. */
  readonly prefix?: string;
  /** The resources to serve; default `builtinDefinitions`. */
  readonly definitions?: readonly ResourceDefinition[];
}

export interface Registry {
  /** One entry per served version of each resource. */
  readonly resources: readonly RestResource[];
  /** The resource serving `plural` in group/version, if any. */
  lookup(group: string, version: string, plural: string): RestResource | undefined;
  /**
   * Creates `default`, `kube-system`, `kube-public` and `kube-node-lease` when missing.
   * Idempotent and safe when several replicas race (a lost race is an AlreadyExists, which
   * is ignored). Throws StatusErrors from storage (e.g. etcd unreachable).
   */
  ensureSystemNamespaces(): Promise<void>;
}

export const SYSTEM_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function isNamespaces(definition: ResourceDefinition): boolean {
  return definition.group === '' && definition.plural === 'namespaces';
}

export function createRegistry(options: RegistryOptions): Registry {
  const resources: RestResource[] = [];
  for (const definition of options.definitions ?? builtinDefinitions) {
    for (const version of definition.versions.filter((v) => v.served)) {
      resources.push(
        createStore({
          definition,
          version: version.name,
          storage: options.storage,
          ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
          ...(isNamespaces(definition) ? { deletionGuard: checkNamespaceDeletable } : {}),
        }),
      );
    }
  }
  const byKey = new Map(resources.map((r) => [`${r.definition.group}/${r.version}/${r.definition.plural}`, r]));

  return {
    resources,
    lookup: (group, version, plural) => byKey.get(`${group}/${version}/${plural}`),
    async ensureSystemNamespaces(): Promise<void> {
      const namespaces = resources.find((r) => isNamespaces(r.definition))?.creater;
      if (namespaces === undefined) throw new Error('the registry does not serve namespaces');
      for (const name of SYSTEM_NAMESPACES) {
        try {
          // kube-apiserver creates these itself (its User-Agent names the manager).
          await namespaces.create({ namespace: '', userAgent: 'kube-apiserver/v1.32.0' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, {});
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
    },
  };
}
