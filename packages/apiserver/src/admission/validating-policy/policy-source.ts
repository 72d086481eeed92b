/**
 * The policies in force (kube's policySource): informers over ValidatingAdmissionPolicies
 * and their bindings (through the registry's watch caches), each policy with bindings
 * compiled once per generation, and an informer per paramKind in use. `hooks()` is the
 * current list, recomputed lazily after any change of a policy, a binding or the served
 * resources (a CRD that serves a paramKind appearing); reads between changes cost nothing.
 * Hooks are ordered by policy name, bindings by name, so the first denial is stable.
 */
import { startResourceCache, type ObjectCache } from '@kapi/controllers';
import { isNotFound, type KubeObject } from '@kapi/machinery';
import type { Registry, RestResource } from '@kapi/registry';
import { compilePolicy, type CompiledPolicy } from './compile.js';
import type { ParamSource } from './params.js';
import { BINDINGS, GROUP, POLICIES, type BindingObject, type PolicyObject } from './policy-types.js';

export interface PolicyHook {
  readonly policy: PolicyObject;
  readonly bindings: readonly BindingObject[];
  readonly compiled: CompiledPolicy;
  /** The paramKind's objects; absent without paramKind or when it is not served. */
  readonly params?: ParamSource;
  /** kube's hook ConfigurationError (an unknown paramKind). */
  readonly configurationError?: string;
}

export interface PolicySource {
  /** True once policies and bindings were listed. */
  synced(): boolean;
  /** The policies that have at least one binding, with their bindings. */
  hooks(): readonly PolicyHook[];
  /**
   * The namespace `name` (namespaceObject, namespaceSelector): the informer copy, else read
   * from storage (a namespace created a moment ago); undefined when it does not exist.
   */
  namespace(name: string): Promise<KubeObject | undefined>;
  stop(): Promise<void>;
}

const byName = (a: KubeObject, b: KubeObject) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0);

/** Parses a paramKind's apiVersion; undefined when it is not `group/version` or `version`. */
function groupVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0]! };
  if (parts.length === 2 && parts[1] !== '') return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

export function startPolicySource(registry: Registry, onError: (err: unknown) => void): PolicySource {
  const lookup = (plural: string) => registry.lookup(GROUP, 'v1', plural);
  const policyResource = lookup(POLICIES);
  const bindingResource = lookup(BINDINGS);
  if (policyResource === undefined || bindingResource === undefined) {
    return { synced: () => true, hooks: () => [], namespace: () => Promise.resolve(undefined), stop: () => Promise.resolve() };
  }
  const policies = startResourceCache(policyResource, onError);
  const bindings = startResourceCache(bindingResource, onError);
  const namespacesResource = registry.lookup('', 'v1', 'namespaces');
  const namespaces: ObjectCache | undefined = namespacesResource === undefined ? undefined : startResourceCache(namespacesResource, onError);
  const compiled = new Map<string, { generation: number; compiled: CompiledPolicy }>();
  const paramCaches = new Map<RestResource, ObjectCache>();
  let current: readonly PolicyHook[] | undefined;
  const dirty = () => {
    current = undefined;
  };
  const unsubscribes = [policies.onChange(dirty), bindings.onChange(dirty), registry.subscribe(dirty)];

  const compiledFor = (policy: PolicyObject): CompiledPolicy => {
    const key = policy.metadata.uid ?? policy.metadata.name ?? '';
    const generation = policy.metadata.generation ?? 0;
    const hit = compiled.get(key);
    if (hit !== undefined && hit.generation === generation) return hit.compiled;
    const fresh = compilePolicy(policy.spec ?? {});
    compiled.set(key, { generation, compiled: fresh });
    return fresh;
  };

  const paramSourceFor = (apiVersion: string, kind: string, used: Set<RestResource>): ParamSource | undefined => {
    const gv = groupVersion(apiVersion);
    if (gv === undefined) return undefined;
    const resource = registry.resources.find((r) => r.definition.group === gv.group && r.version === gv.version && r.definition.kind === kind);
    if (resource === undefined) return undefined;
    used.add(resource);
    let cache = paramCaches.get(resource);
    if (cache === undefined) {
      cache = startResourceCache(resource, onError);
      paramCaches.set(resource, cache);
    }
    return { cache, resource, namespaced: resource.definition.namespaced };
  };

  const compute = (): readonly PolicyHook[] => {
    const byPolicy = new Map<string, BindingObject[]>();
    for (const binding of bindings.list() as BindingObject[]) {
      const name = binding.spec?.policyName ?? '';
      const list = byPolicy.get(name) ?? [];
      list.push(binding);
      byPolicy.set(name, list);
    }
    const used = new Set<RestResource>();
    const seen = new Set<string>();
    const hooks: PolicyHook[] = [];
    for (const [name, boundBy] of byPolicy) {
      const policy = policies.get('', name) as PolicyObject | undefined;
      if (policy === undefined) continue;
      seen.add(policy.metadata.uid ?? name);
      const paramKind = policy.spec?.paramKind;
      let params: ParamSource | undefined;
      let configurationError: string | undefined;
      if (paramKind !== undefined && paramKind !== null) {
        const apiVersion = paramKind.apiVersion ?? '';
        const gv = groupVersion(apiVersion);
        params = paramSourceFor(apiVersion, paramKind.kind ?? '', used);
        if (gv === undefined) configurationError = `failed to parse paramKind APIVersion: unexpected GroupVersion string: ${apiVersion}`;
        else if (params === undefined) configurationError = `failed to find resource referenced by paramKind: '${gv.group}/${gv.version}, Kind=${paramKind.kind ?? ''}'`;
      }
      hooks.push({
        policy,
        bindings: boundBy.sort(byName),
        compiled: compiledFor(policy),
        ...(params !== undefined ? { params } : {}),
        ...(configurationError !== undefined ? { configurationError } : {}),
      });
    }
    for (const key of compiled.keys()) if (!seen.has(key)) compiled.delete(key);
    for (const [resource, cache] of paramCaches) {
      if (used.has(resource)) continue;
      paramCaches.delete(resource);
      void cache.stop();
    }
    return hooks.sort((a, b) => byName(a.policy, b.policy));
  };

  return {
    synced: () => policies.synced() && bindings.synced(),
    hooks() {
      current ??= compute();
      return current;
    },
    async namespace(name) {
      const cached = namespaces?.get('', name);
      if (cached !== undefined || namespacesResource?.getter === undefined) return cached;
      try {
        return await namespacesResource.getter.get({ namespace: '', userAgent: 'kapi-apiserver/validating-admission-policy' }, name, {});
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async stop() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      await Promise.all([policies.stop(), bindings.stop(), namespaces?.stop(), ...[...paramCaches.values()].map((c) => c.stop())]);
    },
  };
}
