/**
 * The garbage collector (kube-controller-manager's, in process), driven by watches:
 *
 * - Monitors: one informer (list, then watch, through the resource's RestResource, so the
 *   watch cache answers) per resource that can be listed, watched and deleted — one version
 *   per group/plural, events excepted as in kube — including resources registered later
 *   (`registry.subscribe`); a resource withdrawn for good has its monitor stopped and the
 *   nodes it observed dropped (as deleted when a last GET finds them gone, else only
 *   forgotten: a lookup of a kind no longer served is retried, so their dependents stay). What they see feeds the ownership graph
 *   (ownership-graph.ts), which queues uids on attemptToDelete and attemptToOrphan. The
 *   graph is built in every
 *   replica; `synced()` is true once every monitor has listed.
 * - Workers (`run(term)`): only while the replica leads; every write checks the term first.
 *   attemptToDelete (kube's attemptToDeleteItem): verifies the item by a quorum GET (404 or
 *   another uid: a virtual delete); an owner with `foregroundDeletion` gets its blocking
 *   dependents queued and loses the finalizer once none is left; a dependent's references
 *   are classified by a quorum GET of each owner (cached absences aside): solid, dangling
 *   (404 or another uid; a namespaced owner is looked up in the dependent's namespace), or
 *   waiting (owner deleting in the foreground). With a solid owner, dangling and waiting
 *   references are removed; with none, the dependent is deleted — Foreground when an owner
 *   waits and it has dependents of its own, else per its own finalizers (Background by
 *   default) — with uid and resourceVersion preconditions (retried when only unrelated
 *   fields changed). A cluster-scoped dependent of a namespaced owner is left alone; a
 *   reference to a kind the registry does not serve is retried with backoff (kube's
 *   restMappingError), so its dependent stays. attemptToOrphan: removes the owner from its
 *   dependents' ownerReferences, then the `orphan` finalizer.
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject, OwnerReference } from '@kapi/machinery';
import { isConflict, isNotFound } from '@kapi/machinery';
import { createWorkQueue, FINALIZER_FOREGROUND, FINALIZER_ORPHAN, startInformer, type Informer, type Registry, type RegistryChange, type RestResource, type WorkQueue } from '@kapi/registry';
import { blockingDependents, ownerReferencesOf, OwnershipGraph, type GraphNode, type Identity } from './ownership-graph.js';

const USER_AGENT = 'kapi-controller-manager/garbage-collector';

/** kube's DefaultIgnoredResources: events are never collected. */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

export interface GarbageCollectorOptions {
  /** Concurrent attemptToDelete workers (kube's --concurrent-gc-syncs, default 20). */
  readonly workers?: number;
  /** Longest retry backoff per item; default 60 s. */
  readonly maxRetryDelayMs?: number;
}

export interface GarbageCollector {
  /** True once every monitor has delivered its first list. */
  synced(): boolean;
  /** Processes the queues until `term` aborts; resolves when the workers have stopped. */
  run(term: AbortSignal): Promise<void>;
  /** How many lists the monitors made in total (the first ones plus relists after expiry). */
  lists(): number;
  /** The graph (read-only use: tests and debugging). */
  readonly graph: OwnershipGraph;
  stop(): Promise<void>;
}

class RestMappingError extends Error {
  constructor(apiVersion: string, kind: string) {
    super(`unable to get REST mapping for ${apiVersion}/${kind}`);
  }
}

class LeadershipLost extends Error {
  constructor() {
    super('leadership lost');
  }
}

/** A cluster-scoped dependent naming a namespaced owner: not retried (kube's namespacedOwnerOfClusterScopedObjectErr). */
class NamespacedOwnerOfClusterScopedObject extends Error {}

function groupOf(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const resourceKey = (r: RestResource) => `${r.definition.group}/${r.definition.plural}`;

/** The version a monitor watches: the storage version when served, else the first served. */
function monitoredVersion(registry: Registry, group: string, plural: string): RestResource | undefined {
  const candidates = registry.resources.filter((r) => r.definition.group === group && r.definition.plural === plural);
  const usable = candidates.filter((r) => r.lister !== undefined && r.watcher !== undefined && r.deleter !== undefined && r.getter !== undefined);
  const storage = usable.find((r) => r.definition.versions.find((v) => v.name === r.version)?.storage === true);
  return storage ?? usable[0];
}

export function garbageCollector(registry: Registry, options: GarbageCollectorOptions = {}): GarbageCollector {
  const queueOptions = { maxDelayMs: options.maxRetryDelayMs ?? 60_000 };
  const attemptToDelete: WorkQueue<string> = createWorkQueue(queueOptions);
  const attemptToOrphan: WorkQueue<string> = createWorkQueue(queueOptions);
  /** Set while a term runs: only the leader reports events. */
  let leading = false;
  const graph = new OwnershipGraph({
    attemptToDelete,
    attemptToOrphan,
    onInvalidNamespaceOwnerRef: (dependent, ref) => {
      if (leading) void reportInvalidNamespaceOwnerRef(dependent, ref);
    },
  });
  /** Monitors by group/plural, with the uids each has observed (for relists and withdrawal). */
  const monitors = new Map<string, { informer: Informer; uids: Set<string> }>();
  let retiredLists = 0;

  function startMonitor(resource: RestResource): void {
    const key = resourceKey(resource);
    if (IGNORED.has(key) || monitors.has(key)) return;
    const apiVersion = resource.definition.group === '' ? resource.version : `${resource.definition.group}/${resource.version}`;
    const kind = resource.definition.kind;
    const uids = new Set<string>();
    const informer = startInformer(
      resource,
      {
        onList(items) {
          const listed = new Set<string>();
          for (const obj of items) {
            const uid = obj.metadata.uid ?? '';
            listed.add(uid);
            uids.add(uid);
            graph.observe(apiVersion, kind, obj);
          }
          // Deleted while the watch was down.
          for (const uid of [...uids]) {
            if (listed.has(uid)) continue;
            uids.delete(uid);
            graph.observeDeletion(uid);
          }
        },
        onEvent(type, obj) {
          const uid = obj.metadata.uid ?? '';
          if (type === 'DELETED') {
            uids.delete(uid);
            graph.observeDeletion(uid);
          } else {
            uids.add(uid);
            graph.observe(apiVersion, kind, obj);
          }
        },
      },
      { userAgent: USER_AGENT },
    );
    monitors.set(key, { informer, uids });
  }

  function retireMonitor(key: string, dropNodes: boolean): void {
    const monitor = monitors.get(key);
    if (monitor === undefined) return;
    monitors.delete(key);
    retiredLists += monitor.informer.lists;
    void monitor.informer.stop();
    if (dropNodes) void settleWithdrawn(monitor.informer.resource, [...monitor.uids]);
  }

  /**
   * The objects of a withdrawn resource leave the graph: as deleted when a last quorum GET
   * through its (now unregistered) store finds them gone — a CRD's instances are deleted
   * before it goes, possibly faster than this replica's watch reported it — else forgotten.
   */
  async function settleWithdrawn(resource: RestResource, uids: readonly string[]): Promise<void> {
    for (const uid of uids) {
      const node = graph.nodes.get(uid);
      if (node === undefined || node.virtual) continue;
      let gone = false;
      try {
        const live = await resource.getter!.get(ctxFor(resource, node.identity.namespace), node.identity.name, {});
        gone = live.metadata.uid !== uid;
      } catch (err) {
        gone = isNotFound(err);
      }
      if (gone) graph.observeDeletion(uid);
      else graph.forget(uid);
    }
  }

  function syncMonitors(): void {
    const wanted = new Map<string, RestResource>();
    for (const r of registry.resources) {
      const key = resourceKey(r);
      if (wanted.has(key) || IGNORED.has(key)) continue;
      const chosen = monitoredVersion(registry, r.definition.group, r.definition.plural);
      if (chosen !== undefined) wanted.set(key, chosen);
    }
    for (const [key, monitor] of monitors) {
      const next = wanted.get(key);
      // Withdrawn for good: its objects leave the graph, not known absent (dependents get verified).
      if (next === undefined) retireMonitor(key, true);
      // Replaced (e.g. a new definition of the same resource): the new monitor's list reconciles.
      else if (next !== monitor.informer.resource) {
        const uids = monitor.uids;
        retireMonitor(key, false);
        startMonitor(next);
        for (const uid of uids) monitors.get(key)?.uids.add(uid);
      }
    }
    for (const [key, resource] of wanted) if (!monitors.has(key)) startMonitor(resource);
  }

  syncMonitors();
  // register() reports "removed" then "added" in one call: act once the registry settled.
  let pending = false;
  const unsubscribe = registry.subscribe((_change: RegistryChange) => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      syncMonitors();
    });
  });

  // ---- API access (quorum reads; writes check the term first) ----

  function resourceFor(apiVersion: string, kind: string): RestResource {
    const { group, version } = groupOf(apiVersion);
    const found = registry.resources.find((r) => r.definition.group === group && r.version === version && r.definition.kind === kind);
    if (found?.getter === undefined) throw new RestMappingError(apiVersion, kind);
    return found;
  }

  const ctxFor = (resource: RestResource, namespace: string) => ({ namespace: resource.definition.namespaced ? namespace : '', userAgent: USER_AGENT });

  /**
   * A quorum GET of `id`; undefined when absent. A namespaced kind without a namespace (only
   * a cluster-scoped dependent can name one so) is an error not worth retrying, as in kube.
   */
  async function getObject(id: Identity): Promise<KubeObject | undefined> {
    const resource = resourceFor(id.apiVersion, id.kind);
    if (resource.definition.namespaced && id.namespace === '') throw new NamespacedOwnerOfClusterScopedObject();
    try {
      return await resource.getter!.get(ctxFor(resource, id.namespace), id.name, {});
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  function checkTerm(term: AbortSignal): void {
    if (term.aborted) throw new LeadershipLost();
  }

  /** GET, change, PUT with the read resourceVersion; retried on conflict. Nothing when absent or replaced. */
  async function updateObject(id: Identity, term: AbortSignal, change: (obj: KubeObject) => boolean): Promise<void> {
    const resource = resourceFor(id.apiVersion, id.kind);
    for (let attempt = 0; ; attempt++) {
      const current = await getObject(id);
      if (current === undefined || current.metadata.uid !== id.uid) return;
      const next = structuredClone(current);
      if (!change(next)) return;
      checkTerm(term);
      try {
        await resource.updater!.update(ctxFor(resource, id.namespace), id.name, next, {});
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }

  const removeOwnerReferences = (id: Identity, uids: ReadonlySet<string>, term: AbortSignal) =>
    updateObject(id, term, (obj) => {
      const refs = ownerReferencesOf(obj);
      const kept = refs.filter((r) => !uids.has(r.uid));
      if (kept.length === refs.length) return false;
      if (kept.length > 0) obj.metadata.ownerReferences = kept;
      else delete obj.metadata.ownerReferences;
      return true;
    });

  const removeFinalizer = (id: Identity, finalizer: string, term: AbortSignal) =>
    updateObject(id, term, (obj) => {
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return false;
      obj.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
      return true;
    });

  const unblockOwnerReferences = (id: Identity, term: AbortSignal) =>
    updateObject(id, term, (obj) => {
      let changed = false;
      obj.metadata.ownerReferences = ownerReferencesOf(obj).map((r) => {
        if (r.blockOwnerDeletion !== true) return r;
        changed = true;
        return { ...r, blockOwnerDeletion: false };
      });
      return changed;
    });

  /**
   * Deletes `id` with `policy`, preconditions uid and the resourceVersion it was judged at;
   * when only unrelated fields changed meanwhile (same ownerReferences), tries again at the
   * new resourceVersion. Returns false when it is gone.
   */
  async function deleteObject(id: Identity, judged: KubeObject, policy: 'Background' | 'Foreground' | 'Orphan', term: AbortSignal): Promise<boolean> {
    const resource = resourceFor(id.apiVersion, id.kind);
    let resourceVersion = judged.metadata.resourceVersion ?? '';
    const owners = JSON.stringify(ownerReferencesOf(judged));
    for (;;) {
      checkTerm(term);
      try {
        await resource.deleter!.delete(ctxFor(resource, id.namespace), id.name, { propagationPolicy: policy, preconditions: { uid: id.uid, resourceVersion } });
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        if (!isConflict(err)) throw err;
        const live = await getObject(id);
        if (live === undefined || live.metadata.uid !== id.uid) return false;
        if (live.metadata.resourceVersion === resourceVersion || JSON.stringify(ownerReferencesOf(live)) !== owners) throw err;
        resourceVersion = live.metadata.resourceVersion ?? '';
      }
    }
  }

  /**
   * kube's Warning event on a dependent whose owner lives in another namespace (reason
   * OwnerRefInvalidNamespace, source garbage-collector-controller). Best effort.
   */
  async function reportInvalidNamespaceOwnerRef(dependent: GraphNode, ref: OwnerReference): Promise<void> {
    const events = registry.lookup('', 'v1', 'events');
    const { apiVersion, kind, namespace, name, uid } = dependent.identity;
    if (events?.creater === undefined || namespace === '') return;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const owner = `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
    try {
      await events.creater.create({ namespace, userAgent: USER_AGENT }, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.${Date.now().toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`, namespace },
        involvedObject: { apiVersion, kind, namespace, name, uid },
        reason: 'OwnerRefInvalidNamespace',
        message: `ownerRef ${owner} does not exist in namespace ${JSON.stringify(namespace)}`,
        source: { component: 'garbage-collector-controller' },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: 'Warning',
      }, {});
    } catch {
      // events are best effort
    }
  }

  // ---- attemptToDelete ----

  /** kube's isDangling: whether `ref` of `item` names an owner that does not exist, and the owner when it does. */
  async function isDangling(ref: OwnerReference, item: GraphNode): Promise<{ dangling: boolean; owner?: KubeObject }> {
    const clusterKey: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, namespace: '', name: ref.name, uid: ref.uid };
    if (graph.absentOwners.has(clusterKey)) return { dangling: true };
    const namespacedKey: Identity = { ...clusterKey, namespace: item.identity.namespace };
    if (graph.absentOwners.has(namespacedKey)) return { dangling: true };
    const resource = resourceFor(ref.apiVersion, ref.kind);
    const namespaced = resource.definition.namespaced;
    if (namespaced && item.identity.namespace === '') throw new NamespacedOwnerOfClusterScopedObject();
    const key = namespaced ? namespacedKey : clusterKey;
    const owner = await getObject(key);
    if (owner === undefined || owner.metadata.uid !== ref.uid) {
      graph.absentOwners.add(key);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  async function processDeletingDependents(item: GraphNode, term: AbortSignal): Promise<void> {
    const blocking = blockingDependents(item);
    if (blocking.length === 0) return removeFinalizer(item.identity, FINALIZER_FOREGROUND, term);
    for (const dep of blocking) if (!dep.deletingDependents) attemptToDelete.add(dep.identity.uid);
  }

  /** kube's attemptToDeleteItem. Returns 'virtual-delete' when the item proved absent. */
  async function attemptToDeleteItem(item: GraphNode, term: AbortSignal): Promise<'done' | 'virtual-delete'> {
    if (item.beingDeleted && !item.deletingDependents) return 'done';
    const identity = item.identity;
    const latest = await getObject(identity);
    if (latest === undefined || latest.metadata.uid !== identity.uid) {
      graph.virtualDelete(identity);
      return 'virtual-delete';
    }
    if (item.deletingDependents) {
      await processDeletingDependents(item, term);
      return 'done';
    }
    const refs = ownerReferencesOf(latest);
    if (refs.length === 0) return 'done';
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const { dangling: isGone, owner } = await isDangling(ref, item);
      if (isGone) dangling.push(ref);
      else if (owner!.metadata.deletionTimestamp !== undefined && (owner!.metadata.finalizers ?? []).includes(FINALIZER_FOREGROUND)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return 'done';
      // Waiting references must go too, or those owners would wait for this dependent forever.
      await removeOwnerReferences(identity, new Set([...dangling, ...waiting].map((r) => r.uid)), term);
      return 'done';
    }
    let policy: 'Background' | 'Foreground' | 'Orphan';
    if (waiting.length > 0 && item.dependents.size > 0) {
      // A dependent that itself waits for its dependents would deadlock a cycle: unblock first.
      if ([...item.dependents].some((dep) => dep.deletingDependents)) await unblockOwnerReferences(identity, term);
      policy = 'Foreground';
    } else {
      const finalizers = latest.metadata.finalizers ?? [];
      policy = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    }
    if (!(await deleteObject(identity, latest, policy, term))) {
      graph.virtualDelete(identity);
      return 'virtual-delete';
    }
    return 'done';
  }

  // ---- attemptToOrphan ----

  async function attemptToOrphanItem(owner: GraphNode, term: AbortSignal): Promise<void> {
    const uid = new Set([owner.identity.uid]);
    const results = await Promise.allSettled([...owner.dependents].map((dep) => removeOwnerReferences(dep.identity, uid, term)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    await removeFinalizer(owner.identity, FINALIZER_ORPHAN, term);
  }

  // ---- workers ----

  async function worker(queue: WorkQueue<string>, term: AbortSignal, process: (node: GraphNode) => Promise<'requeue' | 'forget'>): Promise<void> {
    for (;;) {
      const uid = await queue.get(term);
      if (uid === undefined) return;
      try {
        const node = graph.nodes.get(uid);
        const action = node === undefined ? 'forget' : await process(node);
        if (action === 'forget') queue.forget(uid);
        else queue.addRateLimited(uid);
      } catch (err) {
        // Not done: again later (at once by the next leader's term when this one ended).
        if (err instanceof LeadershipLost || term.aborted) queue.add(uid);
        else if (err instanceof NamespacedOwnerOfClusterScopedObject) queue.forget(uid);
        else queue.addRateLimited(uid);
      } finally {
        queue.done(uid);
      }
    }
  }

  return {
    graph,
    synced: () => [...monitors.values()].every((m) => m.informer.synced()),
    lists: () => retiredLists + [...monitors.values()].reduce((n, m) => n + m.informer.lists, 0),
    async run(leaderTerm: AbortSignal): Promise<void> {
      // Every idle worker listens on the term: one signal of our own with room for them all.
      const local = new AbortController();
      setMaxListeners(64, local.signal);
      const term = local.signal;
      const end = (): void => {
        leading = false;
        local.abort();
      };
      leading = true;
      if (leaderTerm.aborted) end();
      else leaderTerm.addEventListener('abort', end, { once: true });
      const deleteWorkers = Array.from({ length: options.workers ?? 20 }, () =>
        worker(attemptToDelete, term, async (node) => {
          const wasVirtual = node.virtual;
          const outcome = await attemptToDeleteItem(node, term);
          // A virtual node whose object exists is looked at again until an informer observes it.
          return outcome === 'done' && wasVirtual && graph.nodes.get(node.identity.uid)?.virtual === true ? 'requeue' : 'forget';
        }),
      );
      const orphanWorkers = Array.from({ length: 4 }, () =>
        worker(attemptToOrphan, term, async (node) => {
          await attemptToOrphanItem(node, term);
          return 'forget';
        }),
      );
      await Promise.all([...deleteWorkers, ...orphanWorkers]);
      leaderTerm.removeEventListener('abort', end);
    },
    async stop(): Promise<void> {
      unsubscribe();
      attemptToDelete.shutDown();
      attemptToOrphan.shutDown();
      await Promise.all([...monitors.values()].map((m) => m.informer.stop()));
      monitors.clear();
    },
  };
}
