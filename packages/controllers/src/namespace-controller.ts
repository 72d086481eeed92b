/**
 * The namespace controller (kube-controller-manager's namespace deleter, run inside kapi):
 * an informer on namespaces (through the watch cache) queues every namespace being deleted;
 * workers (10 by default, never two on one namespace), only while the replica leads,
 * delete every namespaced object of every served resource in it (one version per resource;
 * the set follows `registry.subscribe`, so resources registered later — custom resources —
 * are covered, and a registration queues the terminating namespaces again), report what
 * remains in `status.conditions` as kube does, and once nothing is left remove `kubernetes` from `spec.finalizers` through the
 * `/finalize` subresource, which removes the namespace in the same write when no other
 * finalizer holds it. A namespace with content left (finalizers pending) is looked at again
 * after `resyncMs` (kube: estimate/2 + 1 s); a failure is retried with backoff. A namespace
 * whose spec finalizers are already empty is deleted again (DELETE removes it).
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '@kapi/machinery';
import { isConflict, isNotFound, nowRFC3339 } from '@kapi/machinery';
import { createWorkQueue, FINALIZER_KUBERNETES, FINALIZER_ORPHAN, startInformer, type DeleteOptions, type Informer, type Registry, type RestResource } from '@kapi/registry';

const USER_AGENT = 'kapi-controller-manager/namespace-controller';
const CLUSTER = { namespace: '', userAgent: USER_AGENT };

export interface NamespaceControllerOptions {
  /** When a namespace with content left (pending finalizers) is looked at again; default 1000 ms. */
  readonly resyncMs?: number;
  /** Namespaces deleted at once (kube's --concurrent-namespace-syncs); default 10. */
  readonly workers?: number;
}

export interface NamespaceController {
  /** True once the namespace informer has listed. */
  synced(): boolean;
  /** Processes terminating namespaces until `term` aborts; resolves when the worker stopped. */
  run(term: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

function specFinalizers(ns: KubeObject): string[] {
  const spec = ns['spec'] as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) ? spec.finalizers.filter((f): f is string => typeof f === 'string') : [];
}

/** The resources a namespace holds: namespaced, deletable, one version each (the storage version when served). */
function namespacedResources(resources: readonly RestResource[]): RestResource[] {
  const byResource = new Map<string, RestResource>();
  for (const r of resources) {
    if (!r.definition.namespaced || r.collectionDeleter === undefined || r.lister === undefined) continue;
    const key = `${r.definition.group}/${r.definition.plural}`;
    const isStorage = r.definition.versions.find((v) => v.name === r.version)?.storage === true;
    if (!byResource.has(key) || isStorage) byResource.set(key, r);
  }
  return [...byResource.values()];
}

interface Remaining {
  /** "configmaps. has 3 resource instances" per resource with objects left. */
  counts: string[];
  /** finalizer → how many objects carry it. */
  finalizers: Map<string, number>;
}

type Condition = { type: string; status: string; reason: string; message: string };

/** kube's namespace deletion conditions after a content-deletion pass. */
function conditionsFor(remaining: Remaining): Condition[] {
  const contentRemaining: Condition = remaining.counts.length > 0
    ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remaining.counts.join(', ')}` }
    : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' };
  const finalizers = [...remaining.finalizers].sort(([a], [b]) => a.localeCompare(b)).map(([f, n]) => `${f} in ${n} resource instances`);
  const finalizersRemaining: Condition = finalizers.length > 0
    ? { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}` }
    : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' };
  return [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    contentRemaining,
    finalizersRemaining,
  ];
}

export function namespaceController(registry: Registry, options: NamespaceControllerOptions = {}): NamespaceController {
  const namespaces = registry.lookup('', 'v1', 'namespaces');
  const finalize = namespaces?.subresources?.get('finalize')?.updater;
  const status = namespaces?.subresources?.get('status')?.updater;
  if (namespaces?.lister === undefined || namespaces.getter === undefined || namespaces.deleter === undefined || finalize === undefined || status === undefined) {
    throw new Error('the registry does not serve namespaces with /finalize and /status');
  }
  const { getter, deleter } = namespaces;
  const resyncMs = options.resyncMs ?? 1000;
  const workers = options.workers ?? 10;
  const queue = createWorkQueue<string>();
  /** Terminating namespaces as the informer last saw them. */
  const terminating = new Set<string>();
  const note = (ns: KubeObject, deleted = false): void => {
    const name = ns.metadata.name ?? '';
    if (!deleted && ns.metadata.deletionTimestamp !== undefined) {
      terminating.add(name);
      queue.add(name);
    } else terminating.delete(name);
  };
  const informer: Informer = startInformer(
    namespaces,
    {
      onList(items) {
        terminating.clear();
        for (const ns of items) note(ns);
      },
      onEvent(type, ns) {
        note(ns, type === 'DELETED');
      },
    },
    { userAgent: USER_AGENT },
  );
  // The resources to empty follow the registry; a new one (a CRD) means another look at every terminating namespace.
  let resources = namespacedResources(registry.resources);
  const unsubscribe = registry.subscribe((change) => {
    resources = namespacedResources(registry.resources);
    if (change.type === 'added') for (const name of terminating) queue.add(name);
  });

  /** Deletes what is in `namespace`; returns what is still there afterwards. */
  async function deleteContent(namespace: string, options: DeleteOptions, signal: AbortSignal | undefined): Promise<Remaining> {
    const remaining: Remaining = { counts: [], finalizers: new Map() };
    const req = { namespace, userAgent: USER_AGENT };
    // Every resource at once (each deletecollection bounds its own concurrency); reported in resource order.
    const lefts = await Promise.all(
      resources.map(async (resource) => {
        if (signal?.aborted === true) throw new Error('leadership lost');
        await resource.collectionDeleter!.deleteCollection(req, options, {});
        return (await resource.lister!.list(req, {})).items;
      }),
    );
    resources.forEach((resource, i) => {
      const left = lefts[i]!;
      if (left.length === 0) return;
      const gr = resource.definition.group === '' ? `${resource.definition.plural}.` : `${resource.definition.plural}.${resource.definition.group}`;
      remaining.counts.push(`${gr} has ${left.length} resource instances`);
      for (const item of left) {
        for (const f of item.metadata.finalizers ?? []) remaining.finalizers.set(f, (remaining.finalizers.get(f) ?? 0) + 1);
      }
    });
    return remaining;
  }

  async function reportConditions(ns: KubeObject, remaining: Remaining): Promise<void> {
    const now = nowRFC3339();
    const previous = new Map(((ns['status'] as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []).map((c) => [c['type'], c]));
    const conditions = conditionsFor(remaining).map((c) => {
      const old = previous.get(c.type);
      const since = old !== undefined && old['status'] === c.status && typeof old['lastTransitionTime'] === 'string' ? old['lastTransitionTime'] : now;
      return { ...c, lastTransitionTime: since };
    });
    const current = (ns['status'] ?? {}) as Record<string, unknown>;
    try {
      await status!.update(CLUSTER, ns.metadata.name ?? '', { ...ns, status: { ...current, phase: 'Terminating', conditions } }, {});
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }

  /** kube's namespace deleter for one namespace; returns 'remaining' when content is left for later. */
  async function sync(name: string, signal: AbortSignal | undefined): Promise<'done' | 'remaining'> {
    let ns: KubeObject;
    try {
      ns = await getter.get(CLUSTER, name, {});
    } catch (err) {
      if (isNotFound(err)) return 'done';
      throw err;
    }
    if (ns.metadata.deletionTimestamp === undefined) return 'done';
    const finalizers = specFinalizers(ns);
    if (finalizers.length === 0) {
      if (signal?.aborted === true) throw new Error('leadership lost');
      await deleter.delete(CLUSTER, name, {}).catch((err: unknown) => {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      });
      return 'done';
    }
    if (!finalizers.includes(FINALIZER_KUBERNETES)) return 'done';
    const orphan = (ns.metadata.finalizers ?? []).includes(FINALIZER_ORPHAN);
    const remaining = await deleteContent(name, { propagationPolicy: orphan ? 'Orphan' : 'Background' }, signal);
    if (signal?.aborted === true) throw new Error('leadership lost');
    await reportConditions(ns, remaining);
    if (remaining.counts.length > 0) return 'remaining';
    // Nothing is left: remove our finalizer (the namespace goes in the same write when nothing else holds it).
    try {
      const fresh = await getter.get(CLUSTER, name, {});
      await finalize!.update(CLUSTER, name, { ...fresh, spec: { ...(fresh['spec'] as object), finalizers: specFinalizers(fresh).filter((f) => f !== FINALIZER_KUBERNETES) } }, {});
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    return 'done';
  }

  return {
    synced: () => informer.synced(),
    async run(leaderTerm: AbortSignal): Promise<void> {
      // Several namespaces at once (kube's --concurrent-namespace-syncs), never one twice at a time.
      const local = new AbortController();
      setMaxListeners(64, local.signal);
      const term = local.signal;
      const end = (): void => local.abort();
      if (leaderTerm.aborted) end();
      else leaderTerm.addEventListener('abort', end, { once: true });
      const worker = async (): Promise<void> => {
        for (;;) {
          const name = await queue.get(term);
          if (name === undefined) return;
          try {
            const outcome = await sync(name, term);
            queue.forget(name);
            if (outcome === 'remaining') queue.addAfter(name, resyncMs);
          } catch {
            if (term.aborted) queue.add(name);
            else queue.addRateLimited(name);
          } finally {
            queue.done(name);
          }
        }
      };
      await Promise.all(Array.from({ length: workers }, worker));
      leaderTerm.removeEventListener('abort', end);
    },
    async stop(): Promise<void> {
      unsubscribe();
      queue.shutDown();
      await informer.stop();
    },
  };
}
