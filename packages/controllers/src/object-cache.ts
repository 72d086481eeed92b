/**
 * In-memory copies of the objects the service account authenticator checks (service
 * accounts, secrets, pods, nodes), kept by informers over the registry's watch caches so
 * that a token is checked without waiting on storage (kube reads the same objects from its
 * informers). Objects are shared and read-only.
 */
import { parseFieldSelector, type KubeObject } from '@kapi/machinery';
import { startInformer, type Informer, type Registry, type RestResource } from '@kapi/registry';

/** The changes of a resource, as an informer sees them. */
export interface ChangeSource {
  synced(): boolean;
  /** Calls `listener` with each changed or deleted object (and with none after a re-list); returns the unsubscribe function. */
  onChange(listener: (obj: KubeObject | undefined, deleted: boolean) => void): () => void;
  stop(): Promise<void>;
}

/** A ChangeSource that also keeps the objects. */
export interface ObjectCache extends ChangeSource {
  get(namespace: string, name: string): KubeObject | undefined;
  /** Every object, or those of one namespace. */
  list(namespace?: string): KubeObject[];
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** An empty cache (a resource the registry does not serve, or one nothing needs). */
export const EMPTY_OBJECT_CACHE: ObjectCache = { get: () => undefined, list: () => [], synced: () => true, onChange: () => () => undefined, stop: () => Promise.resolve() };
const EMPTY = EMPTY_OBJECT_CACHE;

/** The resource listed and watched through a field selector (e.g. `metadata.name=kube-root-ca.crt`). */
function selecting(resource: RestResource, fieldSelector: string): RestResource {
  const selector = parseFieldSelector(fieldSelector);
  const { lister, watcher } = resource;
  return {
    ...resource,
    ...(lister !== undefined ? { lister: { list: (ctx, options) => lister.list(ctx, { ...options, fieldSelector: selector }) } } : {}),
    ...(watcher !== undefined ? { watcher: { watch: (ctx, options) => watcher.watch(ctx, { ...options, fieldSelector: selector }) } } : {}),
  };
}

/** Starts an informer over core/v1 `plural` (only the objects `fieldSelector` selects, when given). */
export function startObjectCache(registry: Pick<Registry, 'lookup'>, plural: string, onError: (err: unknown) => void, fieldSelector?: string): ObjectCache {
  const served = registry.lookup('', 'v1', plural);
  if (served === undefined) return EMPTY;
  return startResourceCache(fieldSelector === undefined ? served : selecting(served, fieldSelector), onError);
}

/**
 * Starts an informer over core/v1 `plural` that keeps no objects, for a controller that only
 * reacts to changes (the resource quota controller's replenishment: every ConfigMap and
 * Secret, which the watch cache already holds).
 */
export function startChangeSource(registry: Pick<Registry, 'lookup'>, plural: string, onError: (err: unknown) => void): ChangeSource {
  const served = registry.lookup('', 'v1', plural);
  return served === undefined ? EMPTY : startResourceCache(served, onError, false);
}

/** Starts an informer over any served resource (any group and version, custom resources too); `keep` false: a ChangeSource whose get and list find nothing. */
export function startResourceCache(resource: RestResource, onError: (err: unknown) => void, keep = true): ObjectCache {
  const plural = resource.definition.plural;
  const objects = new Map<string, KubeObject>();
  const listeners = new Set<(obj: KubeObject | undefined, deleted: boolean) => void>();
  const emit = (obj: KubeObject | undefined, deleted: boolean) => {
    for (const listener of listeners) listener(obj, deleted);
  };
  const informer: Informer = startInformer(resource, {
    onList(items) {
      objects.clear();
      if (keep) for (const item of items) objects.set(key(item.metadata.namespace ?? '', item.metadata.name ?? ''), item);
      emit(undefined, false);
    },
    onEvent(type, obj) {
      if (keep) {
        const k = key(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
        if (type === 'DELETED') objects.delete(k);
        else objects.set(k, obj);
      }
      emit(obj, type === 'DELETED');
    },
  }, { userAgent: `kapi-apiserver/${plural}-cache`, onError });
  return {
    get: (namespace, name) => objects.get(key(namespace, name)),
    list: (namespace) => [...objects.values()].filter((o) => namespace === undefined || (o.metadata.namespace ?? '') === namespace),
    synced: () => informer.synced(),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: () => informer.stop(),
  };
}
