/**
 * kube-controller-manager's `resourcequota-controller`, run by kapi in the leader's terms:
 * every ResourceQuota's `status.hard` is its `spec.hard`, and `status.used` the usage of the
 * objects of its namespace that fall in its scopes, for each resource it limits (kube's
 * evaluators, quota/evaluators.ts; `count/<resource>[.<group>]` for any served namespaced
 * resource). A quota is recounted when it changes, when a pod, service, claim, ConfigMap,
 * Secret or ReplicationController of its namespace is deleted or a pod finishes (kube's
 * replenishment), and every
 * `resyncMs` (kube's --resource-quota-sync-period, 5 minutes). The status is written with the
 * quota's resourceVersion: a conflict with the admission plugin's charge recounts.
 * A deployment running the real kube-controller-manager switches it off with
 * `--controllers=*,-resourcequota-controller`.
 */
import type { KubeObject } from '@kapi/machinery';
import type { Registry, RestResource } from '@kapi/registry';
import type { TermController } from './controller.js';
import { keyedController } from './keyed-controller.js';
import { startChangeSource, startObjectCache, type ChangeSource } from './object-cache.js';
import { evaluatorFor, quotaScopes, type GroupResource } from './quota/evaluators.js';
import { addLists, listsEqual, mask, resourceListJson, resourceListOf, type ResourceList } from './quota/resource-list.js';
import { ZERO_QUANTITY as ZERO } from '@kapi/machinery';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const keyOf = (obj: KubeObject) => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
const USER_AGENT = 'kapi-controller-manager/resourcequota-controller';
/** Kinds whose changes recount their namespace's quotas at once. */
const REPLENISHED = ['pods', 'services', 'persistentvolumeclaims', 'configmaps', 'secrets', 'replicationcontrollers'];
const CORE_COUNTED = [...REPLENISHED, 'resourcequotas'].map((resource) => ({ group: '', resource }));

export interface ResourceQuotaControllerOptions {
  /** The full recount period; default 5 minutes. */
  readonly resyncMs?: number;
  readonly onError: (err: unknown) => void;
}

/** The resource a `count/<resource>[.<group>]` name counts. */
function countedResource(name: string): GroupResource | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

function servedResource(registry: Pick<Registry, 'resources'>, gr: GroupResource): RestResource | undefined {
  return registry.resources.find((r) => r.definition.group === gr.group && r.definition.plural === gr.resource && r.definition.namespaced && r.lister !== undefined);
}

/** kube's CalculateUsage for one quota: the usage of every resource it limits that kapi can count. */
export async function calculateUsage(registry: Pick<Registry, 'resources'>, resourceQuota: KubeObject, hard: ResourceList): Promise<ResourceList> {
  const namespace = resourceQuota.metadata.namespace ?? '';
  const hardNames = [...hard.keys()];
  const scopes = quotaScopes(resourceQuota);
  const kinds = new Map<string, GroupResource>();
  for (const gr of [...CORE_COUNTED, ...hardNames.map(countedResource).filter((gr): gr is GroupResource => gr !== undefined)]) kinds.set(`${gr.group}/${gr.resource}`, gr);
  let usage: ResourceList = new Map();
  for (const gr of kinds.values()) {
    const evaluator = evaluatorFor(gr);
    const names = evaluator.matchingResources(hardNames);
    if (names.length === 0) continue;
    const served = servedResource(registry, gr);
    if (served === undefined) continue;
    let used: ResourceList = new Map(names.map((name) => [name, ZERO]));
    const { items } = await served.lister!.list({ namespace, userAgent: USER_AGENT }, {});
    for (const item of items) {
      if (scopes.every((scope) => evaluator.matchesScope(scope, item))) used = addLists(used, mask(evaluator.usage(item), names));
    }
    usage = addLists(usage, used);
  }
  return usage;
}

function needsSync(resourceQuota: KubeObject): boolean {
  const status = rec((resourceQuota as Json)['status']);
  const hard = rec(status?.['hard']);
  return hard === undefined || rec(status?.['used']) === undefined || !listsEqual(resourceListOf(hard), resourceListOf(rec((resourceQuota as Json)['spec'])?.['hard']));
}

/**
 * Whether a change may give usage back (kube's replenishment: deletes, and pods that finished
 * or are being deleted). Creates are never recounted: admission charged them before they were
 * stored, and a recount racing a create in flight would undo its charge.
 */
function releasesUsage(obj: KubeObject): boolean {
  if (obj.metadata.namespace === undefined) return false;
  if ((obj as Json)['kind'] !== 'Pod' && !('containers' in (rec((obj as Json)['spec']) ?? {}))) return false;
  const phase = rec((obj as Json)['status'])?.['phase'];
  return phase === 'Succeeded' || phase === 'Failed' || obj.metadata.deletionTimestamp !== undefined;
}

export function resourceQuotaController(registry: Pick<Registry, 'lookup' | 'resources'>, options: ResourceQuotaControllerOptions): TermController {
  const quotas = startObjectCache(registry, 'resourcequotas', options.onError);
  // Replenishment only reacts to changes of these (the watch cache holds the objects).
  const watched: ChangeSource[] = REPLENISHED.map((plural) => startChangeSource(registry, plural, options.onError));
  const resyncMs = options.resyncMs ?? 5 * 60_000;
  const loop = keyedController({
    caches: [quotas, ...watched],
    keysOf: (obj, deleted) => {
      // A quota is recounted when its spec.hard is not its status.hard yet (new or changed), not
      // when admission charged it (kube's controller skips updates that keep spec.hard).
      if (quotas.get(obj.metadata.namespace ?? '', obj.metadata.name ?? '') === obj) return needsSync(obj) ? [keyOf(obj)] : [];
      return deleted || releasesUsage(obj) ? quotas.list(obj.metadata.namespace ?? '').map(keyOf) : [];
    },
    allKeys: () => quotas.list().map(keyOf),
    async reconcile(key) {
      const slash = key.indexOf('/');
      const resourceQuota = quotas.get(key.slice(0, slash), key.slice(slash + 1));
      if (resourceQuota === undefined) return;
      const hard = resourceListOf(rec((resourceQuota as Json)['spec'])?.['hard']);
      const status = rec((resourceQuota as Json)['status']) ?? {};
      const used = mask(new Map([...resourceListOf(status['used']), ...await calculateUsage(registry, resourceQuota, hard)]), hard.keys());
      const statusHard = rec(status['hard']);
      if (statusHard !== undefined && listsEqual(resourceListOf(statusHard), hard) && listsEqual(resourceListOf(status['used']), used) && rec(status['used']) !== undefined) return;
      const updater = registry.lookup('', 'v1', 'resourcequotas')?.subresources?.get('status')?.updater;
      if (updater === undefined) return;
      const body = { apiVersion: 'v1', kind: 'ResourceQuota', ...resourceQuota, status: { hard: resourceListJson(hard), used: resourceListJson(used) } };
      await updater.update({ namespace: resourceQuota.metadata.namespace ?? '', userAgent: USER_AGENT }, resourceQuota.metadata.name ?? '', body, {});
    },
    onError: options.onError,
    resyncMs,
  });
  const caches = [quotas, ...watched];
  return {
    synced: () => loop.synced(),
    run: (signal) => loop.run(signal),
    async stop() {
      await loop.stop();
      await Promise.all(caches.map((c) => c.stop()));
    },
  };
}
