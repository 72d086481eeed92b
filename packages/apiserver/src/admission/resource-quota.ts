/**
 * kube's ResourceQuota admission plugin (validating, run last): a create or update of a
 * namespaced object is charged against every ResourceQuota of its namespace that tracks one
 * of its resources (the quota's `status.hard`, as the resourcequota controller writes it) and
 * whose scopes it falls in. The write is refused (403, kube's texts) when a quota's usage is
 * not known yet, when the object misses what a quota requires (`must specify ...`), or when
 * the new usage would exceed a limit (`exceeded quota: ...`); otherwise each charged
 * quota's `status.used` is written (resourcequotas/status, with its resourceVersion) before
 * the object is stored.
 *
 * Charges in one namespace are made by one round at a time in this process, each round
 * taking every request that waited (kube batches them per namespace the same way); writes by
 * other replicas or the controller are caught by the resourceVersion precondition: the quotas
 * are read again and the requests re-checked, three times at most, after which the conflict
 * is the answer, as in kube. A dry run is checked but charges nothing.
 * Quotas come from an informer copy, or from the last status this process wrote when newer.
 */
import { isConflict, type KubeObject } from '@kapi/machinery';
import {
  addLists, evaluatorFor, isIgnoredResource, lessThanOrEqual, listsEqual, mask, negativeNames, prettyPrint, prettyPrintNames,
  quotaMatches, removeZeros, resourceListJson, resourceListOf, subtractNonNegative, type ObjectCache,
} from '@kapi/controllers';
import type { AdmissionAttributes, AdmissionPlugin, Registry } from '@kapi/registry';
import { admissionForbidden } from './forbidden.js';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const RETRIES = 3;

export interface QuotaSource {
  /** The namespace's quotas as last seen (informer copy, or newer written status). */
  list(namespace: string): KubeObject[];
  /** The namespace's quotas read from storage now. */
  read(namespace: string): Promise<KubeObject[]>;
  /** Writes a quota's status; throws the registry's StatusError (409 on a stale resourceVersion). */
  writeStatus(quota: KubeObject): Promise<KubeObject>;
}

const hardOf = (q: KubeObject) => resourceListOf(rec(rec((q as Json)['status'])?.['hard']));
const usedOf = (q: KubeObject) => resourceListOf(rec(rec((q as Json)['status'])?.['used']));

/**
 * kube's CheckRequest: the quotas with new usage (unchanged ones as given). Throws the 403
 * for a refused request.
 */
export function checkRequest(quotas: readonly KubeObject[], a: AdmissionAttributes): KubeObject[] {
  const evaluator = evaluatorFor({ group: a.resource.group, resource: a.resource.resource });
  const obj = a.object;
  if (obj === undefined) return [...quotas];
  const interesting: number[] = [];
  quotas.forEach((resourceQuota, i) => {
    const hardNames = [...hardOf(resourceQuota).keys()];
    if (!quotaMatches(evaluator, resourceQuota, obj, hardNames)) return;
    const restricted = evaluator.matchingResources(hardNames);
    const violation = evaluator.constraints(restricted, obj);
    if (violation !== undefined) throw admissionForbidden(a, `failed quota: ${resourceQuota.metadata.name ?? ''}: ${violation}`);
    const used = rec(rec((resourceQuota as Json)['status'])?.['used']) ?? {};
    const unknown = restricted.filter((name) => !(name in used));
    if (unknown.length > 0) throw admissionForbidden(a, `status unknown for quota: ${resourceQuota.metadata.name ?? ''}, resources: ${prettyPrintNames(restricted)}`);
    interesting.push(i);
  });
  if (interesting.length === 0) return [...quotas];
  if (a.namespace !== '' && obj.metadata.namespace === undefined) obj.metadata.namespace = a.namespace;
  let delta = evaluator.usage(obj);
  const negative = negativeNames(delta);
  if (negative.length > 0) throw admissionForbidden(a, `quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);
  if (a.operation === 'UPDATE') {
    if (a.oldObject === undefined) throw admissionForbidden(a, 'unable to get previous usage since prior version of object was not found');
    if ((a.oldObject.metadata.resourceVersion ?? '') !== '') delta = subtractNonNegative(delta, evaluator.usage(a.oldObject));
  }
  delta = removeZeros(delta);
  if (delta.size === 0) return [...quotas];
  const out = [...quotas];
  for (const index of interesting) {
    const resourceQuota = out[index]!;
    const hard = hardOf(resourceQuota);
    const used = usedOf(resourceQuota);
    const requested = mask(delta, hard.keys());
    const newUsage = addLists(used, requested);
    const { allowed, exceeded } = lessThanOrEqual(mask(newUsage, requested.keys()), hard);
    if (!allowed) {
      throw admissionForbidden(a, `exceeded quota: ${resourceQuota.metadata.name ?? ''}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`);
    }
    const status = { ...(rec((resourceQuota as Json)['status']) ?? {}), used: resourceListJson(newUsage) };
    out[index] = { ...resourceQuota, status } as KubeObject;
  }
  return out;
}

interface Waiter {
  readonly attributes: AdmissionAttributes;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * One round of kube's checkQuotas over the requests waiting in a namespace: each is checked
 * against the usage the ones before it left, then every quota whose usage changed is written
 * once. A refused request gets its 403 (final); the others are admitted when the writes
 * succeed, or checked again on fresh quotas after a conflict (three rounds at most, then the
 * conflict is their answer).
 */
async function checkBatch(source: QuotaSource, namespace: string, batch: readonly Waiter[]): Promise<void> {
  let pending = [...batch];
  let quotas = source.list(namespace);
  let lastError: unknown;
  for (let attempt = 0; attempt < RETRIES && pending.length > 0; attempt++) {
    if (attempt > 0) quotas = await source.read(namespace);
    let current = quotas;
    const admitted: Waiter[] = [];
    for (const waiter of pending) {
      try {
        const next = current.length === 0 ? current : checkRequest(current, waiter.attributes);
        if (!waiter.attributes.dryRun) current = next;
        admitted.push(waiter);
      } catch (err) {
        waiter.reject(err);
      }
    }
    const changed = current.filter((q, i) => !listsEqual(usedOf(q), usedOf(quotas[i]!)));
    try {
      for (const q of changed) await source.writeStatus(q);
      for (const waiter of admitted) waiter.resolve();
      return;
    } catch (err) {
      if (!isConflict(err)) {
        for (const waiter of admitted) waiter.reject(err);
        return;
      }
      lastError = err;
      pending = admitted;
    }
  }
  for (const waiter of pending) waiter.reject(lastError);
}

/**
 * The plugin over a quota source. Requests of one namespace queue up while a round of checks
 * runs and are checked together in the next one (kube batches them the same way), so many
 * concurrent creates cost one status write per round, not one each.
 */
export function resourceQuotaAdmission(source: QuotaSource): AdmissionPlugin {
  const queues = new Map<string, Waiter[]>();
  const drain = async (namespace: string): Promise<void> => {
    for (let batch = queues.get(namespace); batch !== undefined && batch.length > 0; batch = queues.get(namespace)) {
      queues.set(namespace, []);
      try {
        await checkBatch(source, namespace, batch);
      } catch (err) {
        for (const waiter of batch) waiter.reject(err);
      }
    }
    queues.delete(namespace);
  };
  const enqueue = (attributes: AdmissionAttributes) => new Promise<void>((resolve, reject) => {
    const queue = queues.get(attributes.namespace);
    const waiter = { attributes, resolve, reject };
    if (queue !== undefined) {
      queue.push(waiter);
      return;
    }
    queues.set(attributes.namespace, [waiter]);
    void drain(attributes.namespace);
  });
  return {
    name: 'ResourceQuota',
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    async validate(a) {
      if (a.subresource !== '' || a.namespace === '' || !a.namespaced) return;
      const gr = { group: a.resource.group, resource: a.resource.resource };
      if (isIgnoredResource(gr) || !evaluatorFor(gr).handles(a.operation)) return;
      if (source.list(a.namespace).length === 0) return;
      await enqueue(a);
    },
  };
}

const rvNumber = (q: KubeObject): bigint => {
  try {
    return BigInt(q.metadata.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
};

/** Quotas from an informer copy and the registry; remembers the status it wrote until the informer has it. */
export function registryQuotaSource(registry: Pick<Registry, 'lookup'>, cache: () => ObjectCache): QuotaSource {
  const written = new Map<string, KubeObject>();
  const key = (q: KubeObject) => `${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`;
  const newest = (q: KubeObject): KubeObject => {
    const mine = written.get(key(q));
    if (mine === undefined) return q;
    if (rvNumber(mine) > rvNumber(q)) return mine;
    written.delete(key(q));
    return q;
  };
  const resource = () => registry.lookup('', 'v1', 'resourcequotas');
  return {
    list: (namespace) => cache().list(namespace).map(newest),
    async read(namespace) {
      const lister = resource()?.lister;
      if (lister === undefined) return [];
      return (await lister.list({ namespace }, {})).items.map((item) => ({ ...item, metadata: { ...item.metadata, namespace } }) as KubeObject);
    },
    async writeStatus(q) {
      const updater = resource()?.subresources?.get('status')?.updater;
      if (updater === undefined) return q;
      const { object } = await updater.update({ namespace: q.metadata.namespace ?? '', userAgent: 'kapi-apiserver/resourcequota-admission' }, q.metadata.name ?? '', { apiVersion: 'v1', kind: 'ResourceQuota', ...q }, {});
      written.set(key(object), object);
      return object;
    },
  };
}
