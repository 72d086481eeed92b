/**
 * The RBAC objects as the authorizer reads them: kept in memory from the registry's watch
 * caches (one informer per kind), with ClusterRole aggregation resolved here (the rules of
 * every ClusterRole an `aggregationRule` selects, transitively) so that decisions never wait
 * on storage. `generation` changes with every change, so callers can cache decisions.
 */
import type { KubeObject } from '@kapi/machinery';
import { labelSelectorFromObject, type LabelSelectorObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import { startInformer, type Informer } from '@kapi/registry';
import type { Binding, PolicyRule } from './rbac-rules.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export type ClusterRoleObject = RoleObject;

interface RoleObject {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>>; readonly resourceVersion?: string };
  readonly rules?: readonly PolicyRule[] | null;
  readonly aggregationRule?: { readonly clusterRoleSelectors?: readonly LabelSelectorObject[] | null } | null;
}

/** What the RBAC authorizer reads. */
export interface RbacPolicy {
  /** Bumped by every change. */
  readonly generation: number;
  clusterRoleBindings(): Iterable<Binding>;
  roleBindings(namespace: string): Iterable<Binding>;
  /** A ClusterRole's rules (aggregated ones resolved), or undefined when it does not exist. */
  clusterRoleRules(name: string): readonly PolicyRule[] | undefined;
  roleRules(namespace: string, name: string): readonly PolicyRule[] | undefined;
}

export interface RbacPolicyStore extends RbacPolicy {
  /** The ClusterRoles as stored (read-only, shared). */
  clusterRoles(): Iterable<ClusterRoleObject>;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  synced(): boolean;
  stop(): Promise<void>;
}

type Keyed<T> = Map<string, T>;

function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** Starts informers over the four RBAC kinds the registry serves. Throws when it serves none. */
export function startRbacPolicyStore(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): RbacPolicyStore {
  const clusterRoles: Keyed<RoleObject> = new Map();
  const roles: Keyed<RoleObject> = new Map();
  const clusterRoleBindings: Keyed<Binding> = new Map();
  const roleBindings = new Map<string, Keyed<Binding>>();
  let generation = 0;
  let resolved = new Map<string, readonly PolicyRule[]>();
  const listeners = new Set<() => void>();
  const changed = () => {
    generation++;
    resolved = new Map();
    for (const listener of [...listeners]) listener();
  };

  const feed = <T>(plural: string, put: (obj: T) => void, remove: (obj: KubeObject) => void, clear: () => void): Informer => {
    const resource = registry.lookup(RBAC_GROUP, 'v1', plural);
    if (resource === undefined) throw new Error(`RBAC needs ${plural}.${RBAC_GROUP}/v1 to be served`);
    return startInformer(
      resource,
      {
        onList(items) {
          clear();
          for (const item of items) put(item as unknown as T);
          changed();
        },
        onEvent(type, obj) {
          if (type === 'DELETED') remove(obj);
          else put(obj as unknown as T);
          changed();
        },
      },
      { userAgent: 'kube-apiserver/v1.32.0 rbac', onError },
    );
  };
  const namespaceBindings = (namespace: string): Keyed<Binding> => {
    let map = roleBindings.get(namespace);
    if (map === undefined) roleBindings.set(namespace, (map = new Map()));
    return map;
  };
  const informers = [
    feed<RoleObject>('clusterroles', (o) => clusterRoles.set(o.metadata.name, o), (o) => clusterRoles.delete(o.metadata.name ?? ''), () => clusterRoles.clear()),
    feed<RoleObject>('roles', (o) => roles.set(keyOf(o as unknown as KubeObject), o), (o) => roles.delete(keyOf(o)), () => roles.clear()),
    feed<Binding>('clusterrolebindings', (o) => clusterRoleBindings.set(o.metadata.name, o), (o) => clusterRoleBindings.delete(o.metadata.name ?? ''), () => clusterRoleBindings.clear()),
    feed<Binding>(
      'rolebindings',
      (o) => namespaceBindings(o.metadata.namespace ?? '').set(o.metadata.name, o),
      (o) => roleBindings.get(o.metadata.namespace ?? '')?.delete(o.metadata.name ?? ''),
      () => roleBindings.clear(),
    ),
  ];

  /** A ClusterRole's own rules plus, for an aggregated one, those of every role it selects (cycles cut). */
  const resolve = (name: string, visiting: Set<string>): readonly PolicyRule[] | undefined => {
    const cached = resolved.get(name);
    if (cached !== undefined) return cached;
    const role = clusterRoles.get(name);
    if (role === undefined) return undefined;
    const own = role.rules ?? [];
    const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
    if (selectors.length === 0) {
      resolved.set(name, own);
      return own;
    }
    visiting.add(name);
    const rules: PolicyRule[] = [...own];
    const seen = new Set(own.map((r) => JSON.stringify(r)));
    const parsed = selectors.map((s) => labelSelectorFromObject(s));
    const names = [...clusterRoles.keys()].sort();
    for (const other of names) {
      if (visiting.has(other)) continue;
      const candidate = clusterRoles.get(other)!;
      if (!parsed.some((selector) => selector.matches(candidate.metadata.labels))) continue;
      for (const rule of resolve(other, visiting) ?? []) {
        const key = JSON.stringify(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
    visiting.delete(name);
    if (visiting.size === 0) resolved.set(name, rules);
    return rules;
  };

  return {
    get generation() {
      return generation;
    },
    clusterRoles: () => clusterRoles.values(),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clusterRoleBindings: () => clusterRoleBindings.values(),
    roleBindings: (namespace) => roleBindings.get(namespace)?.values() ?? [],
    clusterRoleRules: (name) => resolve(name, new Set()),
    roleRules: (namespace, name) => {
      const role = roles.get(`${namespace}/${name}`);
      return role === undefined ? undefined : role.rules ?? [];
    },
    synced: () => informers.every((i) => i.synced()),
    stop: async () => {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
