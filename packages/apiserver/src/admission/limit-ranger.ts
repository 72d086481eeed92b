/**
 * kube's LimitRanger admission plugin (1.32), for pod creates and PVC creates and updates
 * (not subresources, not objects being deleted), against every LimitRange of the namespace:
 *
 * - mutating (pods): each container and init container without a request or limit for a
 *   resource gets the Container-type `defaultRequest` / `default`, and the pod is annotated
 *   `kubernetes.io/limit-ranger: LimitRanger plugin set: <what> request for container <n>; ...`;
 * - validating: Container-type min/max/maxLimitRequestRatio per container, Pod-type ones over
 *   the pod's summed requests and limits (init containers as kube counts them), and
 *   PersistentVolumeClaim-type min/max over the claim's storage requests — 403
 *   `<resource> "<n>" is forbidden: <kube's constraint messages>` (several: `[a, b]`).
 *
 * LimitRanges come from an informer copy; when it holds none for a namespace, they are listed
 * live, and that answer kept 30 s (kube's live lookup for a lagging informer).
 */
import { MAX_MILLI_VALUE, ZERO_QUANTITY, addQuantities, compareQuantities, formatQuantity, parseQuantity, quantityMilliValue, quantityValue, type KubeObject, type Quantity } from '@kapi/machinery';
import { EMPTY_OBJECT_CACHE, startResourceCache, type ObjectCache } from '@kapi/controllers';
import type { AdmissionAttributes, AdmissionPlugin, Registry, RestResource, ResourceDefinition } from '@kapi/registry';
import { admissionForbidden } from './forbidden.js';

type Json = Record<string, unknown>;
type ResourceList = Map<string, Quantity>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
const LIVE_LOOKUP_TTL_MS = 30_000;

function resourceList(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(rec(value) ?? {})) {
    const q = parseQuantity(String(v));
    if (q !== undefined) out.set(k, q);
  }
  return out;
}

/** kube's requestLimitEnforcedValues: whole units, or thousandths when none would overflow. */
function enforcedValues(request: Quantity | undefined, limit: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const r = request ?? ZERO_QUANTITY;
  const l = limit ?? ZERO_QUANTITY;
  const values: [bigint, bigint, bigint] = [quantityValue(r), quantityValue(l), quantityValue(enforced)];
  if (values.every((v) => v <= MAX_MILLI_VALUE)) return [quantityMilliValue(r), quantityMilliValue(l), quantityMilliValue(enforced)];
  return values;
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (req === undefined) return `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}, but request is ${formatQuantity(req)}`;
  if (lim !== undefined && l < e) return `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}, but limit is ${formatQuantity(lim)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}, but limit is ${formatQuantity(lim)}`;
  if (req !== undefined && r > e) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests.get(name);
  const [r, , e] = enforcedValues(req, undefined, enforced);
  if (req === undefined) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = enforcedValues(req, lim, enforced);
  if (req === undefined || r === 0n) return `${name} max limit to request ratio per ${type} is ${formatQuantity(enforced)}, but no request is specified or request is 0`;
  if (lim === undefined || l === 0n) return `${name} max limit to request ratio per ${type} is ${formatQuantity(enforced)}, but no limit is specified or limit is 0`;
  const display = Number(l) / Number(r);
  let observed = display;
  let max = Number(quantityValue(enforced));
  if (quantityValue(enforced) <= MAX_MILLI_VALUE) {
    observed *= 1000;
    max = Number(quantityMilliValue(enforced));
  }
  if (observed > max) return `${name} max limit to request ratio per ${type} is ${formatQuantity(enforced)}, but provided ratio is ${display.toFixed(6)}`;
  return undefined;
}

const addTo = (into: ResourceList, from: ResourceList) => {
  for (const [k, v] of from) {
    const current = into.get(k);
    into.set(k, current === undefined ? v : addQuantities(current, v));
  }
};
const maxInto = (into: ResourceList, from: ResourceList) => {
  for (const [k, v] of from) {
    const current = into.get(k);
    if (current === undefined || compareQuantities(v, current) > 0) into.set(k, v);
  }
};

/** The pod's requests or limits as kube's LimitRanger sums them (sidecar init containers run alongside). */
function podTotal(spec: Json, key: 'requests' | 'limits'): ResourceList {
  const total: ResourceList = new Map();
  for (const c of list(spec['containers'])) addTo(total, resourceList(rec(c['resources'])?.[key]));
  let sidecars: ResourceList = new Map();
  const init: ResourceList = new Map();
  for (const c of list(spec['initContainers'])) {
    const own = resourceList(rec(c['resources'])?.[key]);
    let effective: ResourceList;
    if (c['restartPolicy'] === 'Always') {
      addTo(total, own);
      const next: ResourceList = new Map(sidecars);
      addTo(next, own);
      sidecars = next;
      effective = sidecars;
    } else {
      effective = new Map();
      addTo(effective, own);
      addTo(effective, sidecars);
    }
    maxInto(init, effective);
  }
  maxInto(total, init);
  return total;
}

function mutatePod(pod: KubeObject, limitRange: KubeObject): void {
  const defaultRequests: [string, unknown][] = [];
  const defaultLimits: [string, unknown][] = [];
  for (const limit of list(rec((limitRange as Json)['spec'])?.['limits'])) {
    if (limit['type'] !== 'Container') continue;
    // kube's LimitRangeItem defaults (applied here too, should the stored object lack them):
    // default from max, defaultRequest from default, then from min.
    const limitDefaults = { ...(rec(limit['max']) ?? {}), ...(rec(limit['default']) ?? {}) };
    const requestDefaults = { ...(rec(limit['min']) ?? {}), ...limitDefaults, ...(rec(limit['defaultRequest']) ?? {}) };
    defaultRequests.push(...Object.entries(requestDefaults));
    defaultLimits.push(...Object.entries(limitDefaults));
  }
  const requests = new Map(defaultRequests);
  const limits = new Map(defaultLimits);
  if (requests.size === 0 && limits.size === 0) return;
  const spec = rec((pod as Json)['spec']) ?? {};
  const notes: string[] = [];
  const merge = (container: Json, kind: string) => {
    const resources = rec(container['resources']) ?? {};
    const own = { requests: rec(resources['requests']) ?? {}, limits: rec(resources['limits']) ?? {} };
    const setRequests: string[] = [];
    const setLimits: string[] = [];
    for (const [k, v] of limits) {
      if (k in own.limits) continue;
      own.limits[k] = v;
      setLimits.push(k);
    }
    for (const [k, v] of requests) {
      if (k in own.requests) continue;
      own.requests[k] = v;
      setRequests.push(k);
    }
    if (Object.keys(own.limits).length > 0) resources['limits'] = own.limits;
    if (Object.keys(own.requests).length > 0) resources['requests'] = own.requests;
    container['resources'] = resources;
    const name = String(container['name'] ?? '');
    if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${kind} ${name}`);
    if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${kind} ${name}`);
  };
  for (const c of list(spec['containers'])) merge(c, 'container');
  for (const c of list(spec['initContainers'])) merge(c, 'init container');
  if (notes.length > 0) pod.metadata.annotations = { ...pod.metadata.annotations, [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
}

function validatePod(pod: KubeObject, limitRange: KubeObject): string[] {
  const errors: string[] = [];
  const spec = rec((pod as Json)['spec']) ?? {};
  const apply = (type: string, limit: Json, requests: ResourceList, limits: ResourceList) => {
    for (const [k, v] of resourceList(limit['min'])) errors.push(minConstraint(type, k, v, requests, limits) ?? '');
    for (const [k, v] of resourceList(limit['max'])) errors.push(maxConstraint(type, k, v, requests, limits) ?? '');
    for (const [k, v] of resourceList(limit['maxLimitRequestRatio'])) errors.push(ratioConstraint(type, k, v, requests, limits) ?? '');
  };
  for (const limit of list(rec((limitRange as Json)['spec'])?.['limits'])) {
    if (limit['type'] === 'Container') {
      for (const c of [...list(spec['containers']), ...list(spec['initContainers'])]) {
        const resources = rec(c['resources']);
        apply('Container', limit, resourceList(resources?.['requests']), resourceList(resources?.['limits']));
      }
    }
    if (limit['type'] === 'Pod') apply('Pod', limit, podTotal(spec, 'requests'), podTotal(spec, 'limits'));
  }
  return errors.filter((e) => e !== '');
}

function validateClaim(claim: KubeObject, limitRange: KubeObject): string[] {
  const errors: string[] = [];
  const requests = resourceList(rec(rec(rec((claim as Json)['spec'])?.['resources']))?.['requests']);
  for (const limit of list(rec((limitRange as Json)['spec'])?.['limits'])) {
    if (limit['type'] !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of resourceList(limit['min'])) errors.push(minConstraint('PersistentVolumeClaim', k, v, requests, new Map()) ?? '');
    for (const [k, v] of resourceList(limit['max'])) errors.push(maxRequestConstraint('PersistentVolumeClaim', k, v, requests) ?? '');
  }
  return errors.filter((e) => e !== '');
}

export interface LimitRanger {
  plugin(definition: ResourceDefinition): AdmissionPlugin | undefined;
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

export function createLimitRanger(): LimitRanger {
  let cache: ObjectCache = EMPTY_OBJECT_CACHE;
  let resource: RestResource | undefined;
  const live = new Map<string, { expires: number; items: KubeObject[] }>();

  async function limitRanges(namespace: string): Promise<KubeObject[]> {
    const cached = cache.list(namespace);
    if (cached.length > 0 || resource?.lister === undefined) return cached;
    const entry = live.get(namespace);
    if (entry !== undefined && entry.expires > Date.now()) return entry.items;
    const items = (await resource.lister.list({ namespace, userAgent: 'kapi-apiserver' }, {})).items;
    live.set(namespace, { expires: Date.now() + LIVE_LOOKUP_TTL_MS, items });
    return items;
  }

  const applies = (a: AdmissionAttributes, pods: boolean) =>
    a.subresource === '' && a.object !== undefined && a.oldObject?.metadata.deletionTimestamp == null && (!pods || a.operation === 'CREATE');

  function refuse(a: AdmissionAttributes, errors: readonly string[]): void {
    if (errors.length > 0) throw admissionForbidden(a, errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);
  }

  const podPlugin: AdmissionPlugin = {
    name: 'LimitRanger',
    handles: (operation) => operation === 'CREATE',
    async admit(a) {
      if (!applies(a, true)) return;
      for (const limitRange of await limitRanges(a.namespace)) mutatePod(a.object!, limitRange);
    },
    async validate(a) {
      if (!applies(a, true)) return;
      for (const limitRange of await limitRanges(a.namespace)) refuse(a, validatePod(a.object!, limitRange));
    },
  };
  const claimPlugin: AdmissionPlugin = {
    name: 'LimitRanger',
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    async validate(a) {
      if (!applies(a, false)) return;
      for (const limitRange of await limitRanges(a.namespace)) refuse(a, validateClaim(a.object!, limitRange));
    },
  };
  return {
    plugin(definition) {
      if (definition.group !== '') return undefined;
      if (definition.plural === 'pods') return podPlugin;
      if (definition.plural === 'persistentvolumeclaims') return claimPlugin;
      return undefined;
    },
    start(registry, onError) {
      resource = registry.lookup('', 'v1', 'limitranges');
      if (resource !== undefined) cache = startResourceCache(resource, onError);
    },
    synced: () => cache.synced(),
    stop: () => cache.stop(),
  };
}
