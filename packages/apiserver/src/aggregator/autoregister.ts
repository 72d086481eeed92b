/**
 * kube-apiserver's `kube-apiserver-autoregistration` post-start hook: the autoregister
 * controller keeping the local APIServices (local-apiservices.ts) of what this server serves,
 * fed by the built-in group-versions (once) and by a CRD informer (kube's crdregistration
 * controller: a group-version while some CRD serves it).
 *
 * Every replica runs it, as every kube-apiserver does, and it follows kube's table so that
 * replicas (and users) are not fought:
 * - an APIService without the automanaged label is never touched;
 * - an `onstart` one is created or has its spec set at most once per process, and only if it
 *   existed when this process started (or did not exist at all); one another replica created
 *   after this one started is left alone;
 * - a `true` one (CRD) is created, has its spec set and is deleted whenever the CRDs say so.
 * A create that finds the object (AlreadyExists) or an update that lost a race (Conflict) is
 * retried against the informer's newer copy, where it finds nothing left to do. Only `spec`
 * is written; labels, annotations and status stay as they are.
 */
import { isNotFound, type KubeObject } from '@kapi/machinery';
import { createWorkQueue, processQueue, startInformer, type Informer, type Registry, type RequestContext } from '@kapi/registry';
import type { ApiServiceIndex, ApiServiceObject } from './apiservices.js';
import { apiServiceName, builtinApiService, crdApiService, managedType, MANAGED_ON_START } from './local-apiservices.js';

export interface AutoregisterOptions {
  readonly registry: Pick<Registry, 'lookup'>;
  readonly apiServices: ApiServiceIndex;
  /** The built-in group-versions this server serves (apiregistration.k8s.io excluded by the caller). */
  readonly builtinGroupVersions: readonly { readonly group: string; readonly version: string }[];
  readonly onError: (err: unknown) => void;
}

export interface Autoregister {
  /** The local APIServices of built-in group-versions, as registered at start. */
  readonly builtin: readonly ApiServiceObject[];
  /** True once the CRD informer listed and the first pass was queued. */
  started(): boolean;
  stop(): Promise<void>;
}

interface CrdObject extends KubeObject {
  readonly spec?: { readonly group?: string; readonly versions?: readonly { readonly name?: string; readonly served?: boolean }[] | null };
}

const CONTEXT: RequestContext = { namespace: '', userAgent: 'kube-apiserver/v1.32.0' };

/** The spec fields the controller owns, normalised (absent, null, false and '' alike). */
function specKey(apiService: ApiServiceObject | undefined): string {
  const s = apiService?.spec ?? {};
  return JSON.stringify([s.group ?? '', s.version ?? '', s.groupPriorityMinimum ?? 0, s.versionPriority ?? 0, s.service ?? null, s.caBundle ?? '', s.insecureSkipTLSVerify === true]);
}

export function startAutoregister(options: AutoregisterOptions): Autoregister {
  const { apiServices } = options;
  const resource = options.registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices');
  const { creater, updater, deleter } = resource ?? {};
  if (creater === undefined || updater === undefined || deleter === undefined) throw new Error('apiservices must serve create, update and delete');
  const builtin = options.builtinGroupVersions.map((gv) => builtinApiService(gv.group, gv.version)).filter((a): a is ApiServiceObject => a !== undefined);
  const builtinNames = new Set(builtin.map((a) => a.metadata.name ?? ''));
  const desired = new Map<string, ApiServiceObject>(builtin.map((a) => [a.metadata.name ?? '', a]));
  /** Names synced successfully once by this process (the `onstart` "once"). */
  const syncedOnce = new Set<string>();
  /** Names that existed when the controller started. */
  let atStart: ReadonlySet<string> | undefined;
  const queue = createWorkQueue<string>({ baseDelayMs: 5, maxDelayMs: 30_000 });
  const stopping = new AbortController();

  const crds = new Map<string, CrdObject>();
  /** Sets the CRD part of `desired` from every CRD's served versions; queues what changed. */
  const crdsChanged = () => {
    const wanted = new Map<string, ApiServiceObject>();
    for (const crd of crds.values()) {
      const group = crd.spec?.group ?? '';
      for (const v of crd.spec?.versions ?? []) {
        const name = apiServiceName(group, v.name ?? '');
        if (v.served !== true || group === '' || builtinNames.has(name)) continue;
        wanted.set(name, crdApiService(group, v.name ?? ''));
      }
    }
    for (const name of [...desired.keys()]) {
      if (builtinNames.has(name) || wanted.has(name)) continue;
      desired.delete(name);
      if (atStart !== undefined) queue.add(name);
    }
    for (const [name, apiService] of wanted) {
      if (desired.has(name)) continue;
      desired.set(name, apiService);
      if (atStart !== undefined) queue.add(name);
    }
  };
  const crdResource = options.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  let crdInformer: Informer | undefined;
  const tryStart = () => {
    if (atStart !== undefined || !apiServices.synced() || (crdInformer !== undefined && !crdInformer.synced())) return;
    atStart = new Set(apiServices.all().map((a) => a.metadata.name ?? ''));
    for (const name of new Set([...desired.keys(), ...atStart])) queue.add(name);
  };
  if (crdResource !== undefined) {
    crdInformer = startInformer(crdResource, {
      onList(items) {
        crds.clear();
        for (const item of items) crds.set(item.metadata.name ?? '', item as CrdObject);
        crdsChanged();
        // The informer reports itself synced only after this handler returned.
        queueMicrotask(tryStart);
      },
      onEvent(type, obj) {
        if (type === 'DELETED') crds.delete(obj.metadata.name ?? '');
        else crds.set(obj.metadata.name ?? '', obj as CrdObject);
        crdsChanged();
      },
    }, { userAgent: 'kube-apiserver/crd-registration', onError: options.onError });
  }
  const offApiServices = apiServices.onChange((name) => {
    if (atStart === undefined) {
      // The index reports itself synced only after its first list was handed out.
      queueMicrotask(tryStart);
      return;
    }
    if (name !== undefined) queue.add(name);
    else for (const a of apiServices.all()) queue.add(a.metadata.name ?? '');
  });
  tryStart();

  /** kube's checkAPIService. Throws the storage error (the name is retried with backoff). */
  const sync = async (name: string): Promise<void> => {
    const want = desired.get(name);
    const current = apiServices.get(name);
    const once = syncedOnce.has(name);
    if (current === undefined) {
      if (want === undefined || (managedType(want) === MANAGED_ON_START && once)) return;
      await creater.create(CONTEXT, want as KubeObject, {});
      return;
    }
    if (managedType(want) === MANAGED_ON_START && once) return;
    const managed = managedType(current);
    if (managed === undefined) return;
    if (managed === MANAGED_ON_START && (atStart?.has(name) !== true || once)) return;
    if (want === undefined) {
      try {
        await deleter.delete(CONTEXT, name, { preconditions: { uid: current.metadata.uid ?? '' } });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return;
    }
    if (specKey(current) === specKey(want)) return;
    await updater.update(CONTEXT, name, { ...current, spec: want.spec } as KubeObject, {});
  };

  const worker = processQueue(queue, stopping.signal, async (name) => {
    await sync(name);
    syncedOnce.add(name);
  }, options.onError);

  return {
    builtin,
    started: () => atStart !== undefined,
    async stop() {
      stopping.abort();
      offApiServices();
      queue.shutDown();
      await crdInformer?.stop();
      await worker;
    },
  };
}
