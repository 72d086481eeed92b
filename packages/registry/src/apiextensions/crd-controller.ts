/**
 * The CRD controller. It runs in every replica (not leader-elected): each one watches
 * CustomResourceDefinitions (through the watch cache) and serves every established CRD's
 * custom resources from its own registry, so all replicas converge on the same set.
 *
 * Per CRD it (1) converges the status (NamesAccepted, Established, acceptedNames,
 * storedVersions) — any replica may write it; the write is conditional on the
 * resourceVersion it read and a lost race is dropped, since the winner's event arrives
 * next and already carries the same status; (2) registers the custom resource definition
 * as soon as the names are accepted (re-registering when the spec changes), unregisters
 * when the CRD is gone; (3) for a CRD being deleted: keeps serving reads and deletes but
 * refuses creates, deletes every custom resource (all namespaces), then removes the
 * `customresourcecleanup.apiextensions.k8s.io` finalizer so the CRD goes.
 *
 * The CRDs come from the shared informer loop (informer/informer.ts: a consistent first
 * list, then a watch resumed from its last resourceVersion when it ends, a consistent
 * relist only after 410 Expired). Its synchronous handlers keep `known` (the CRDs as last
 * seen, and this controller's own status writes before their events arrive — kube's naming
 * controller's mutation cache) and queue the CRD's name in a work queue (one entry per
 * name however many events came, never two reconciles of one name at once); one worker
 * reconciles the latest state of each name, so the NamesAccepted checks across CRDs see
 * each other's accepted names. A failed reconcile is retried with backoff. `synced`
 * resolves once every CRD of the first list has been reconciled.
 */
import { isConflict, isNotFound } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import type { Registry } from '../registry.js';
import type { RestResource } from '../rest.js';
import { startInformer } from '../informer/informer.js';
import { createWorkQueue } from '../informer/work-queue.js';
import { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER, asCrd, isConditionTrue, type CustomResourceDefinition } from './crd-types.js';
import { TERMINATING, desiredStatus, sameStatus } from './crd-status.js';
import { customResourceDefinition } from './custom-resource.js';

const CONTROLLER = { namespace: '', userAgent: 'kube-apiserver/v1.32.0 (apiextensions-controller)' };

export interface CrdControllerOptions {
  /** Called with each definition before it is registered (e.g. to add a watch cache for its storage prefix). */
  readonly beforeRegister?: (definition: ResourceDefinition) => void;
  /**
   * Backoff after a failed list or watch start (doubling up to 5 s); default 500 ms. A watch
   * that ends is resumed from its last resourceVersion; only 410 Expired makes it list again.
   */
  readonly relistDelayMs?: number;
  /**
   * How often a terminating CRD whose custom resources are not all gone yet (they have
   * finalizers of their own) is tried again; default 1000 ms.
   */
  readonly cleanupRetryMs?: number;
  readonly onError?: (err: unknown) => void;
}

export interface CrdController {
  /** Resolves once the first list of CRDs has been reconciled (every established CRD is served). */
  synced(): Promise<void>;
  readonly hasSynced: boolean;
  /** Stops watching; resolves once the loop has ended. Registered resources stay registered. */
  stop(): Promise<void>;
}

interface Served {
  readonly key: string;
  readonly group: string;
  readonly plural: string;
  terminating: boolean;
}

function crdStore(registry: Registry): RestResource {
  const store = registry.lookup(APIEXTENSIONS_GROUP, 'v1', 'customresourcedefinitions');
  if (store === undefined) throw new Error('the registry does not serve customresourcedefinitions.apiextensions.k8s.io');
  return store;
}

export function startCrdController(registry: Registry, options: CrdControllerOptions = {}): CrdController {
  const store = crdStore(registry);
  const statusUpdater = store.subresources?.get('status')?.updater;
  if (store.lister === undefined || store.watcher === undefined || store.updater === undefined || statusUpdater === undefined) {
    throw new Error('customresourcedefinitions must serve list, watch, update and status update');
  }
  const { updater } = store;
  const stopping = new AbortController();
  /** The CRDs by name as last seen (events, lists, and this controller's own writes). */
  const known = new Map<string, CustomResourceDefinition>();
  const served = new Map<string, Served>();
  const cleaning = new Map<string, Promise<void>>();
  const queue = createWorkQueue<string>();
  let synced = false;
  let markSynced: () => void = () => {};
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));
  /** The names of the first list not reconciled yet (undefined until the first list). */
  let initial: Set<string> | undefined;
  const checkSynced = (): void => {
    if (synced || initial === undefined || initial.size > 0) return;
    synced = true;
    markSynced();
  };
  const report = (err: unknown) => options.onError?.(err);
  const revision = (crd: CustomResourceDefinition): number => Number(crd.metadata.resourceVersion ?? 0) || 0;
  /** Records `crd` unless `known` already holds a newer state of it. */
  const put = (crd: CustomResourceDefinition): void => {
    const current = known.get(crd.metadata.name!);
    if (current === undefined || revision(crd) >= revision(current)) known.set(crd.metadata.name!, crd);
  };
  /** Our own write: seen by the next reconciles at once (its event follows), unless the CRD went meanwhile. */
  const remember = (crd: CustomResourceDefinition): void => {
    if (known.has(crd.metadata.name!)) put(crd);
  };
  /** Names the group's resources that this controller did not register (built-ins) hold. */
  const reservedNames = (group: string | undefined) => {
    const ours = new Set([...served.values()].map((s) => `${s.group}/${s.plural}`));
    const seen = new Set<string>();
    return registry.resources
      .map((r) => r.definition)
      .filter((d) => d.group === group && !ours.has(`${d.group}/${d.plural}`) && !seen.has(d.plural) && seen.add(d.plural))
      .map((d) => ({ plural: d.plural, singular: d.singular, kind: d.kind, listKind: d.listKind, ...(d.shortNames ? { shortNames: [...d.shortNames] } : {}) }));
  };

  const serve = (crd: CustomResourceDefinition, terminating: boolean): void => {
    const name = crd.metadata.name!;
    const key = JSON.stringify([crd.spec, crd.status?.acceptedNames]);
    const current = served.get(name);
    if (current !== undefined && current.key === key) {
      current.terminating = terminating;
      return;
    }
    const entry: Served = { key, group: crd.spec!.group!, plural: crd.spec!.names!.plural!, terminating };
    // Never take over a resource served by something else (a built-in).
    const ours = current !== undefined && current.group === entry.group && current.plural === entry.plural;
    if (!ours && registry.resources.some((r) => r.definition.group === entry.group && r.definition.plural === entry.plural)) return;
    const definition = customResourceDefinition(crd, { terminating: () => entry.terminating });
    options.beforeRegister?.(definition);
    if (current !== undefined && (current.group !== entry.group || current.plural !== entry.plural)) registry.unregister(current.group, current.plural);
    registry.register(definition);
    served.set(name, entry);
  };

  const withdraw = (name: string): void => {
    const current = served.get(name);
    if (current === undefined) return;
    served.delete(name);
    registry.unregister(current.group, current.plural);
  };

  /** Writes `status` if it differs; undefined when the write lost a race or the CRD is gone (a newer event follows). */
  const writeStatus = async (crd: CustomResourceDefinition, status: CustomResourceDefinition['status']): Promise<CustomResourceDefinition | undefined> => {
    if (sameStatus(crd.status, status!)) return crd;
    try {
      const body = { ...crd, metadata: { ...crd.metadata }, status };
      const written = asCrd(await statusUpdater.update(CONTROLLER, crd.metadata.name!, body, {}).then((r) => r.object));
      remember(written);
      return written;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return undefined;
      throw err;
    }
  };

  /** Deletes the custom resources of `crd` (only ever a resource this controller serves for it); true when none is left. */
  const deleteInstances = async (crd: CustomResourceDefinition): Promise<boolean> => {
    const entry = served.get(crd.metadata.name!);
    if (entry === undefined) return true;
    const resource = registry.resources.find((r) => r.definition.group === entry.group && r.definition.plural === entry.plural);
    if (resource?.lister === undefined || resource.collectionDeleter === undefined) return true;
    // The store's deletecollection across every namespace: batched, objects gone meanwhile skipped.
    await resource.collectionDeleter.deleteCollection(CONTROLLER, {}, {});
    const left = await resource.lister.list(CONTROLLER, {});
    // Objects with finalizers of their own stay until those are removed; try again on the next event/resync.
    return left.items.length === 0;
  };

  const finalize = async (crd: CustomResourceDefinition): Promise<void> => {
    const name = crd.metadata.name!;
    // A CRD that was never established has no custom resources to serve or delete.
    if (isConditionTrue(crd, 'Established')) serve(crd, true);
    const marked = await writeStatus(crd, desiredStatus(crd, [...known.values()], TERMINATING.inProgress, reservedNames(crd.spec?.group)));
    if (marked === undefined) return;
    if (!(await deleteInstances(marked))) return;
    const completed = await writeStatus(marked, desiredStatus(marked, [...known.values()], TERMINATING.completed, reservedNames(crd.spec?.group)));
    if (completed === undefined) return;
    const finalizers = (completed.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    try {
      await updater.update(CONTROLLER, name, { ...completed, metadata: { ...completed.metadata, finalizers } }, {});
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  };

  /** Converges the CRD `name` as `known` holds it; withdraws its resource when it is gone. */
  const reconcile = async (name: string): Promise<void> => {
    const crd = known.get(name);
    if (crd === undefined) {
      withdraw(name);
      return;
    }
    if (crd.metadata.deletionTimestamp !== undefined) {
      if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) {
        if (served.has(name)) served.get(name)!.terminating = true;
        return;
      }
      // The cleanup runs beside the queue (deleting many custom resources takes a while);
      // the CRD's later events wait for the retry below while it runs.
      if (cleaning.has(name)) return;
      const run = finalize(crd)
        .catch(report)
        .finally(() => cleaning.delete(name));
      cleaning.set(name, run);
      return;
    }
    const status = desiredStatus(crd, [...known.values()], undefined, reservedNames(crd.spec?.group));
    const written = await writeStatus(crd, status);
    const view = written ?? { ...crd, status };
    if (isConditionTrue(view, 'Established')) serve(view, false);
  };

  const worker = (async () => {
    for (;;) {
      const name = await queue.get(stopping.signal);
      if (name === undefined) return;
      try {
        await reconcile(name);
        queue.forget(name);
      } catch (err) {
        report(err);
        if (!stopping.signal.aborted) queue.addRateLimited(name);
      } finally {
        queue.done(name);
        if (initial?.delete(name) === true) checkSynced();
      }
    }
  })();

  const informer = startInformer(
    store,
    {
      onList(items) {
        const present = new Set(items.map((i) => i.metadata.name!));
        // Gone while the watch was down (the list after an expiry): withdrawn by the worker.
        for (const name of [...known.keys()]) {
          if (present.has(name)) continue;
          known.delete(name);
          queue.add(name);
        }
        for (const item of items) put(asCrd(item));
        for (const name of present) queue.add(name);
        if (initial === undefined) {
          initial = present;
          checkSynced();
        }
      },
      onEvent(type, obj) {
        const name = obj.metadata.name!;
        if (type === 'DELETED') known.delete(name);
        else put(asCrd(obj));
        queue.add(name);
      },
    },
    {
      userAgent: CONTROLLER.userAgent,
      // Consistent: `synced` means every CRD stored before the start is served.
      initialListResourceVersion: '',
      retryDelayMs: options.relistDelayMs ?? 500,
      onError: report,
    },
  );

  // Custom resources held by their own finalizers produce no CRD event when they go: retry.
  const retry = setInterval(() => {
    for (const crd of known.values()) {
      if (crd.metadata.deletionTimestamp !== undefined && !cleaning.has(crd.metadata.name!)) queue.add(crd.metadata.name!);
    }
  }, options.cleanupRetryMs ?? 1000);
  retry.unref();

  return {
    synced: () => syncedPromise,
    get hasSynced() {
      return synced;
    },
    async stop() {
      stopping.abort();
      clearInterval(retry);
      queue.shutDown();
      markSynced();
      await informer.stop();
      await worker;
      await Promise.allSettled([...cleaning.values()]);
    },
  };
}
