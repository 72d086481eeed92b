/**
 * kube's quota evaluators (k8s.io/kubernetes/pkg/quota/v1/evaluator/core and generic): for
 * each kind of object, which quota resource names it is charged against, what one object
 * uses, which quota scopes it falls in and which constraints a quota puts on it. Shared by
 * the ResourceQuota admission plugin (charging a write) and the resourcequota controller
 * (recounting a namespace).
 *
 * - pods: `pods` and compute resources for pods not yet Succeeded/Failed, `count/pods` for
 *   every pod; scopes Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass,
 *   CrossNamespacePodAffinity; a quota on cpu/memory requests or limits needs every
 *   container to state them.
 * - services: `services`, `count/services`, `services.loadbalancers`, `services.nodeports`.
 * - persistentvolumeclaims: the claim count and `requests.storage`, overall and per class
 *   (`<class>.storageclass.storage.k8s.io/...`).
 * - everything else: an object count, `count/<resource>[.<group>]`, plus the legacy names
 *   `configmaps`, `secrets`, `replicationcontrollers` and `resourcequotas`.
 */
import type { KubeObject } from '@kapi/machinery';
import { addLists, resourceListOf, type ResourceList } from './resource-list.js';
import { compareQuantities as compare, quantityOf as quantity, type Quantity } from '@kapi/machinery';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const ONE: Quantity = quantity(1_000_000_000n);

export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** One quota scope requirement (spec.scopes are `Exists` requirements). */
export interface ScopeRequirement {
  readonly scopeName: string;
  readonly operator: string;
  readonly values: readonly string[];
}

export interface Evaluator {
  readonly groupResource: GroupResource;
  /** Whether a write with this operation can change what the object is charged. */
  handles(operation: string): boolean;
  /** The names among `names` this evaluator charges. */
  matchingResources(names: readonly string[]): string[];
  /** What one object uses. */
  usage(obj: KubeObject): ResourceList;
  /** Whether the object falls in a scope requirement (false for kinds without scopes). */
  matchesScope(requirement: ScopeRequirement, obj: KubeObject): boolean;
  /** The scopes among `requirements` the object falls in (kube's MatchingScopes). */
  matchingScopes(obj: KubeObject, requirements: readonly ScopeRequirement[]): ScopeRequirement[];
  /** kube's Constraints: the reason the object may not be charged against `required`, if any. */
  constraints(required: readonly string[], obj: KubeObject): string | undefined;
}

/** The scope requirements of a quota: spec.scopes (as Exists), then spec.scopeSelector's expressions. */
export function quotaScopes(resourceQuota: KubeObject): ScopeRequirement[] {
  const spec = rec((resourceQuota as Json)['spec']) ?? {};
  const out: ScopeRequirement[] = [];
  for (const scope of Array.isArray(spec['scopes']) ? spec['scopes'] : []) if (typeof scope === 'string') out.push({ scopeName: scope, operator: 'Exists', values: [] });
  for (const expression of list(rec(spec['scopeSelector'])?.['matchExpressions'])) {
    out.push({ scopeName: str(expression['scopeName']), operator: str(expression['operator']), values: Array.isArray(expression['values']) ? expression['values'].map(String) : [] });
  }
  return out;
}

/** kube's generic Matches: the quota's hard names include one this evaluator charges, and the object is in every scope. */
export function quotaMatches(evaluator: Evaluator, resourceQuota: KubeObject, obj: KubeObject, hardNames: readonly string[]): boolean {
  if (evaluator.matchingResources(hardNames).length === 0) return false;
  return quotaScopes(resourceQuota).every((scope) => evaluator.matchesScope(scope, obj));
}

/** kube's object count resource name: `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export function objectCountName(gr: GroupResource): string {
  return gr.group === '' ? `count/${gr.resource}` : `count/${gr.resource}.${gr.group}`;
}

function noScopes(): Pick<Evaluator, 'matchesScope' | 'matchingScopes' | 'constraints'> {
  return { matchesScope: () => false, matchingScopes: () => [], constraints: () => undefined };
}

/** kube's ObjectCountEvaluator: one object counted on create, under `count/...` and the legacy alias. */
export function objectCountEvaluator(gr: GroupResource, alias?: string): Evaluator {
  const names = [objectCountName(gr), ...(alias !== undefined ? [alias] : [])];
  return {
    groupResource: gr,
    handles: (operation) => operation === 'CREATE',
    matchingResources: (input) => input.filter((name) => names.includes(name)),
    usage: () => new Map(names.map((name) => [name, ONE])),
    ...noScopes(),
  };
}

// Pods.

const POD_RESOURCES = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods'];
const POD_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** The compute resources a quota may only limit when every container states them. */
const CONSTRAINED = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** kube's IsExtendedResourceName: a qualified name in a domain other than kubernetes.io, not `requests.`-prefixed. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.startsWith('requests.')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  if (domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)\/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(name);
}

function containerResources(container: Json, key: 'requests' | 'limits'): ResourceList {
  return resourceListOf(rec(container['resources'])?.[key]);
}

function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) {
    const current = out.get(name);
    if (current === undefined || compare(q, current) > 0) out.set(name, q);
  }
  return out;
}

/** kube's PodRequests / PodLimits: app containers and sidecars summed, at least every init container's need, plus the overhead. */
function podResources(spec: Json, key: 'requests' | 'limits'): ResourceList {
  let sum: ResourceList = new Map();
  for (const container of list(spec['containers'])) sum = addLists(sum, containerResources(container, key));
  let sidecars: ResourceList = new Map();
  let initMax: ResourceList = new Map();
  for (const container of list(spec['initContainers'])) {
    const own = containerResources(container, key);
    if (container['restartPolicy'] === 'Always') {
      sidecars = addLists(sidecars, own);
      initMax = maxLists(initMax, sidecars);
    } else {
      initMax = maxLists(initMax, addLists(sidecars, own));
    }
  }
  let total = maxLists(addLists(sum, sidecars), initMax);
  const overhead = resourceListOf(spec['overhead']);
  if (overhead.size > 0 && (key === 'requests' || total.size > 0)) total = addLists(total, key === 'limits' ? new Map([...overhead].filter(([name]) => total.has(name))) : overhead);
  return total;
}

/** kube's podComputeUsageHelper. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', ONE]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const request = requests.get(name);
    if (request !== undefined) {
      out.set(name, request);
      out.set(`requests.${name}`, request);
    }
    const limit = limits.get(name);
    if (limit !== undefined) out.set(`limits.${name}`, limit);
  }
  for (const [name, request] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, request);
      out.set(`requests.${name}`, request);
    }
    if (isExtendedResourceName(name)) out.set(`requests.${name}`, request);
  }
  return out;
}

/** Pods that finished, or whose grace period ran out, use no compute resources (kube's QuotaV1Pod). */
function podCountsCompute(pod: KubeObject): boolean {
  const phase = rec((pod as Json)['status'])?.['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (deletion !== undefined && grace !== undefined) {
    if (Date.parse(deletion) + grace * 1000 <= Date.now()) return false;
  }
  return true;
}

function isBestEffort(spec: Json): boolean {
  for (const container of [...list(spec['containers']), ...list(spec['initContainers'])]) {
    for (const key of ['requests', 'limits'] as const) {
      for (const [name, q] of containerResources(container, key)) if ((name === 'cpu' || name === 'memory') && q.nanos !== 0n) return false;
    }
  }
  return true;
}

function usesCrossNamespaceAffinity(spec: Json): boolean {
  const affinity = rec(spec['affinity']);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const terms = rec(affinity?.[kind]);
    const all = [...list(terms?.['requiredDuringSchedulingIgnoredDuringExecution']), ...list(terms?.['preferredDuringSchedulingIgnoredDuringExecution']).map((w) => rec(w['podAffinityTerm']) ?? {})];
    if (all.some((term) => (Array.isArray(term['namespaces']) && term['namespaces'].length > 0) || rec(term['namespaceSelector']) !== undefined)) return true;
  }
  return false;
}

/** A label-selector requirement against one value (kube matches the PriorityClass scope as a label). */
function selectorMatches(requirement: ScopeRequirement, value: string): boolean {
  switch (requirement.operator) {
    case 'In': return requirement.values.includes(value);
    case 'NotIn': return !requirement.values.includes(value);
    case 'Exists': return true;
    case 'DoesNotExist': return false;
    default: return false;
  }
}

export function podEvaluator(): Evaluator {
  const matchesScope = (requirement: ScopeRequirement, pod: KubeObject): boolean => {
    const spec = rec((pod as Json)['spec']) ?? {};
    const deadline = spec['activeDeadlineSeconds'];
    switch (requirement.scopeName) {
      case 'Terminating': return typeof deadline === 'number' && deadline >= 0;
      case 'NotTerminating': return !(typeof deadline === 'number' && deadline >= 0);
      case 'BestEffort': return isBestEffort(spec);
      case 'NotBestEffort': return !isBestEffort(spec);
      case 'PriorityClass':
        if (requirement.operator === 'Exists') return str(spec['priorityClassName']) !== '';
        return selectorMatches(requirement, str(spec['priorityClassName']));
      case 'CrossNamespacePodAffinity': return usesCrossNamespaceAffinity(spec);
      default: return false;
    }
  };
  return {
    groupResource: { group: '', resource: 'pods' },
    handles: (operation) => operation === 'CREATE',
    matchingResources: (input) => input.filter((name) => POD_RESOURCES.includes(name) || POD_PREFIXES.some((p) => name.startsWith(p)) || (name.startsWith('requests.') && isExtendedResourceName(name.slice('requests.'.length)))),
    usage(pod) {
      const out: ResourceList = new Map([['count/pods', ONE]]);
      if (!podCountsCompute(pod)) return out;
      const spec = rec((pod as Json)['spec']) ?? {};
      return addLists(out, computeUsage(podResources(spec, 'requests'), podResources(spec, 'limits')));
    },
    matchesScope,
    matchingScopes: (pod, requirements) => requirements.filter((r) => matchesScope(r, pod)),
    constraints(required, pod) {
      const requiredSet = new Set(required.filter((name) => CONSTRAINED.includes(name)));
      if (requiredSet.size === 0) return undefined;
      const spec = rec((pod as Json)['spec']) ?? {};
      const missing = new Map<string, Set<string>>();
      for (const container of [...list(spec['containers']), ...list(spec['initContainers'])]) {
        const has = new Set(computeUsage(containerResources(container, 'requests'), containerResources(container, 'limits')).keys());
        for (const name of requiredSet) {
          if (has.has(name)) continue;
          const names = missing.get(name) ?? new Set<string>();
          names.add(str(container['name']));
          missing.set(name, names);
        }
      }
      if (missing.size === 0) return undefined;
      const parts = [...missing.keys()].sort().map((name) => `${name} for: ${[...missing.get(name)!].sort().join(',')}`);
      return `must specify ${parts.join('; ')}`;
    },
  };
}

// Services.

export function serviceEvaluator(): Evaluator {
  const names = ['count/services', 'services', 'services.loadbalancers', 'services.nodeports'];
  return {
    groupResource: { group: '', resource: 'services' },
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    matchingResources: (input) => input.filter((name) => names.includes(name)),
    usage(service) {
      const spec = rec((service as Json)['spec']) ?? {};
      const ports = list(spec['ports']);
      const out: ResourceList = new Map([['services', ONE], ['count/services', ONE]]);
      const count = (n: number) => quantity(BigInt(n) * 1_000_000_000n);
      if (spec['type'] === 'NodePort') out.set('services.nodeports', count(ports.length));
      if (spec['type'] === 'LoadBalancer') {
        out.set('services.nodeports', count(spec['allocateLoadBalancerNodePorts'] === false ? ports.filter((p) => typeof p['nodePort'] === 'number' && p['nodePort'] !== 0).length : ports.length));
        out.set('services.loadbalancers', ONE);
      }
      return out;
    },
    ...noScopes(),
  };
}

// Persistent volume claims.

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

function claimClass(claim: KubeObject): string {
  const annotated = claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (annotated !== undefined) return annotated;
  return str(rec((claim as Json)['spec'])?.['storageClassName']);
}

export function persistentVolumeClaimEvaluator(): Evaluator {
  const names = ['count/persistentvolumeclaims', 'persistentvolumeclaims', 'requests.storage'];
  return {
    groupResource: { group: '', resource: 'persistentvolumeclaims' },
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    matchingResources: (input) => input.filter((name) => names.includes(name)
      || (name.includes(STORAGE_CLASS_SUFFIX) && (name.endsWith(`${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`) || name.endsWith(`${STORAGE_CLASS_SUFFIX}requests.storage`)))),
    usage(claim) {
      const out: ResourceList = new Map([['persistentvolumeclaims', ONE], ['count/persistentvolumeclaims', ONE]]);
      const className = claimClass(claim);
      if (className !== '') out.set(`${className}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, ONE);
      const request = resourceListOf(rec(rec(rec((claim as Json)['spec'])?.['resources'])?.['requests'])).get('storage');
      const allocated = resourceListOf(rec((claim as Json)['status'])?.['allocatedResources']).get('storage');
      const storage = request !== undefined && allocated !== undefined && compare(allocated, request) > 0 ? allocated : request;
      if (storage !== undefined) {
        out.set('requests.storage', storage);
        if (className !== '') out.set(`${className}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
      }
      return out;
    },
    ...noScopes(),
  };
}

/** Resources quota never charges (virtual or not stored: kube's default ignored resources). */
const IGNORED = new Set([
  '/bindings', '/componentstatuses', '/events', 'authentication.k8s.io/tokenreviews', 'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews', 'authorization.k8s.io/selfsubjectaccessreviews', 'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
]);

export function isIgnoredResource(gr: GroupResource): boolean {
  return IGNORED.has(`${gr.group}/${gr.resource}`);
}

const LEGACY_ALIASES: Readonly<Record<string, string>> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

const evaluators = new Map<string, Evaluator>();

/** The evaluator of a resource: kube's core ones, else an object count (one per resource, kept). */
export function evaluatorFor(gr: GroupResource): Evaluator {
  const key = `${gr.group}/${gr.resource}`;
  let evaluator = evaluators.get(key);
  if (evaluator === undefined) {
    evaluator = newEvaluator(gr);
    evaluators.set(key, evaluator);
  }
  return evaluator;
}

function newEvaluator(gr: GroupResource): Evaluator {
  if (gr.group === '') {
    if (gr.resource === 'pods') return podEvaluator();
    if (gr.resource === 'services') return serviceEvaluator();
    if (gr.resource === 'persistentvolumeclaims') return persistentVolumeClaimEvaluator();
    const alias = LEGACY_ALIASES[gr.resource];
    if (alias !== undefined) return objectCountEvaluator(gr, alias);
  }
  return objectCountEvaluator(gr);
}
