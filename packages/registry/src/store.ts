/**
 * The generic store: every REST role for any ResourceDefinition over a `Storage`, the same
 * pipeline for built-ins and custom resources. Roles are offered per the definition's
 * verbs. Every method throws StatusErrors only (storage errors are translated once, in
 * storage-errors.ts).
 */
import type { JSONSchemaProps, SchemaDefinitions } from '@kapi/machinery';
import type { PodSpecPolicy } from './validate-object.js';
import { schemaAtom } from '@kapi/machinery';
import type { Storage, UnreadableDeleter, Watcher as StorageWatcher } from '@kapi/storage';
import type { Admission } from './admission.js';
import type { ResourceDefinition, WriteGuard } from './definition.js';
import type { Reserver } from './reservation.js';
import { definitions as builtinSchemas } from './builtin/index.js';
import { formatApiVersion } from './decode-body.js';
import { DEFAULT_PREFIX, keySpace } from './keys.js';
import { namespaceLifecycle, type NamespaceLifecycle } from './namespace-lifecycle.js';
import type { RestResource, RestSubresource } from './rest.js';
import { COMPONENTS } from './schemas/schema-builders.js';
import { OBJECT_META } from './builtin/schemas.js';
import type { StoreContext } from './store-context.js';
import { createObject } from './store-create.js';
import { deleteCollection, deleteObject } from './store-delete.js';
import { deleteCorruptObject } from './store-unsafe-delete.js';
import { getObject, listObjects } from './store-read.js';
import { updateObject } from './store-update.js';
import { patchObject } from './store-patch.js';
import { watchObjects } from './store-watch.js';
import { scaleAdmissionView, scaleSubresource } from './apiextensions/scale.js';
import { SCALE_KIND } from './schemas/autoscaling.js';
import { managedFieldsConversion, versionConversion } from './store-conversion.js';
import { DEFAULT_KUBELET_ADDRESSING, type KubeletAddressing, type SubresourceFactories, type SubresourceStore } from './subresource-store.js';
import { objectKey } from './keys.js';
import { present, updateStored } from './store-context.js';
import { translatingStorageErrors } from './storage-errors.js';
import { admitConnect, admitSubresourceCreate } from './store-admission.js';
import type { KubeObject } from '@kapi/machinery';

export interface StoreOptions {
  readonly definition: ResourceDefinition;
  /** The storage; when it also implements `Watcher`, the store offers the watch role. */
  readonly storage: Storage;
  /** The version to serve; default the definition's storage version. */
  readonly version?: string;
  /** etcd key prefix; default `/registry`. */
  readonly prefix?: string;
  /** Targets of `$ref` in the schemas; default the built-in `definitions`. */
  readonly schemas?: SchemaDefinitions;
  /**
   * Checks that the namespace of a create exists (kube's NamespaceLifecycle admission).
   * Default: a quorum read of the namespace under the same prefix. `false` disables it.
   */
  readonly namespaceLifecycle?: NamespaceLifecycle | false;
  /** Called before each delete with the object's name; throw a StatusError to refuse. */
  readonly deletionGuard?: (name: string) => void;
  /** Called on each create and update of the main resource; throw a StatusError to refuse. */
  readonly writeGuard?: WriteGuard;
  /** The resource's admission (mutating and validating plugins, see admission.ts). */
  readonly admission?: Admission;
  /** Deletes manage the `orphan`/`foregroundDeletion` finalizers (kube's EnableGarbageCollection); default true. */
  readonly garbageCollection?: boolean;
  /** What the resource's objects hold outside themselves (Services: cluster IPs, node ports), reserved around its writes. */
  readonly reserver?: Reserver;
  /** Other groups' definitions of the same stored objects (events.k8s.io for core events): their managed field sets are converted too. */
  readonly cohabitants?: readonly ResourceDefinition[];
  /** Subresources with roles of their own (binding, eviction, log, proxies), by name. */
  readonly subresourceFactories?: SubresourceFactories;
  /** Objects expire this many seconds after their last create or update (see StoreContext.ttlSeconds). */
  readonly ttlSeconds?: number;
  /** The registry's other resources, for those subresources (asked lazily, per request). */
  readonly lookup?: (group: string, plural: string) => RestResource | undefined;
  /** How Nodes' kubelets are addressed, for the subresources that reach them; default kube's. */
  readonly kubelet?: KubeletAddressing;
  /** Cluster policy on the kind's pod spec (see PodSpecPolicy). */
  readonly podPolicy?: PodSpecPolicy;
}

function servedVersion(definition: ResourceDefinition, version: string | undefined) {
  const found = version === undefined ? definition.versions.find((v) => v.storage) : definition.versions.find((v) => v.name === version);
  if (found === undefined) {
    throw new Error(`resource ${definition.plural}.${definition.group} has no version ${version ?? '(storage)'}`);
  }
  return found;
}

/** Builds the store context for one resource version. Throws (programming error) for an unknown version. */
export function createStoreContext(options: StoreOptions): StoreContext {
  const { definition } = options;
  const version = servedVersion(definition, options.version);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const schemas = options.schemas ?? builtinSchemas;
  const metadataSchema: JSONSchemaProps = { $ref: `${COMPONENTS}${OBJECT_META}` };
  const lifecycle =
    options.namespaceLifecycle === false
      ? undefined
      : (options.namespaceLifecycle ?? namespaceLifecycle(options.storage, keySpace(prefix, { plural: 'namespaces', namespaced: false }).root));
  const conversion = versionConversion(definition, version);
  return {
    definition,
    storage: options.storage,
    space: keySpace(prefix, definition),
    resource: { group: definition.group, resource: definition.plural },
    expected: { group: definition.group, version: version.name, kind: definition.kind, ...(definition.bodyDecoding === 'unstructured' ? { unstructured: true } : {}) },
    apiVersion: formatApiVersion(definition.group, version.name),
    version,
    conversion,
    managedFieldsConversion: managedFieldsConversion(definition, version, options.cohabitants),
    presented: new WeakMap(),
    schema: version.schema,
    metadataSchema,
    schemas,
    validation: {
      definition,
      schema: version.schema,
      definitions: schemas,
      version: version.name,
      ...(conversion.identity ? {} : { served: (obj) => conversion.toServed(obj) }),
      ...(options.podPolicy !== undefined ? { podPolicy: options.podPolicy } : {}),
    },
    namespaces: definition.namespaced ? lifecycle : undefined,
    deletionGuard: options.deletionGuard,
    writeGuard: options.writeGuard,
    reserver: options.reserver,
    admission: options.admission,
    garbageCollection: options.garbageCollection ?? true,
    atom: schemaAtom(version.schema, schemas),
    ttlSeconds: options.ttlSeconds,
  };
}

/** The storage as a `Watcher`, when it serves watches. */
export function storageWatcher(storage: Storage): StorageWatcher | undefined {
  const candidate = storage as Storage & Partial<StorageWatcher>;
  return typeof candidate.watch === 'function' ? (candidate as Storage & StorageWatcher) : undefined;
}

/** What a subresource factory gets: this store's operations and the registry's other resources. */
function subresourceStore(ctx: StoreContext, options: StoreOptions): SubresourceStore {
  const { lookup } = options;
  return {
    resource: ctx.resource,
    get: (req, name) => getObject(ctx, req, name, {}),
    update: (req, name, mutate, options) =>
      translatingStorageErrors(ctx.resource, name, async () => {
        const key = objectKey(ctx.space, req.namespace, name);
        if (options.dryRun === true) return present(ctx, mutate(structuredClone((await ctx.storage.get(key))!)));
        const preconditions = options.preconditions;
        return present(ctx, await updateStored(ctx, key, (current) => mutate(current!), preconditions !== undefined ? { preconditions } : {}));
      }),
    // kube's eviction deletes the pod without admission (it admitted the Eviction).
    delete: (req, name, options) => deleteObject(ctx, req, name, options, false),
    lookup: (group, plural) => lookup?.(group, plural),
    kubelet: options.kubelet ?? DEFAULT_KUBELET_ADDRESSING,
  };
}

/**
 * The roles of each subresource the version (else the definition) declares (they act on the
 * object itself), then those the factories build.
 */
function subresourceRoles(ctx: StoreContext, options: StoreOptions): ReadonlyMap<string, RestSubresource> | undefined {
  const subresources = ctx.version.subresources ?? ctx.definition.subresources ?? [];
  const factories = Object.entries(options.subresourceFactories ?? {});
  if (subresources.length === 0 && factories.length === 0) return undefined;
  const out = new Map<string, RestSubresource>();
  if (factories.length > 0) {
    const store = subresourceStore(ctx, options);
    for (const [name, factory] of factories) out.set(name, withSubresourceAdmission(ctx, factory(store)));
  }
  for (const sub of subresources) {
    const verbs = new Set(sub.verbs);
    const name = sub.name;
    if (name === 'scale' && sub.scale !== undefined) {
      // A view over the main resource (custom resources' autoscaling/v1 Scale), admitted as the Scale.
      const scaleView = { subresource: 'scale', kind: SCALE_KIND, ...scaleAdmissionView(sub.scale) };
      out.set(name, scaleSubresource(sub.scale, {
        getter: { get: (req, objName, opts) => getObject(ctx, req, objName, opts) },
        updater: { update: (req, objName, body, opts) => updateObject(ctx, req, objName, body, opts, '', scaleView) },
        resource: ctx.resource,
        definitions: ctx.schemas,
      }));
      continue;
    }
    out.set(name, {
      name,
      ...(verbs.has('get') ? { getter: { get: (req, objName, opts) => getObject(ctx, req, objName, opts) } } : {}),
      ...(verbs.has('update') ? { updater: { update: (req, objName, body, opts) => updateObject(ctx, req, objName, body, opts, name) } } : {}),
      ...(verbs.has('patch') ? { patcher: { patch: (req, objName, patch, opts) => patchObject(ctx, req, objName, patch, opts, name) } } : {}),
    });
  }
  return out;
}

/** kube's connect options kind of each CONNECT subresource. */
const CONNECT_OPTIONS: Readonly<Record<string, string>> = {
  '/pods/exec': 'PodExecOptions', '/pods/attach': 'PodAttachOptions', '/pods/portforward': 'PodPortForwardOptions',
  '/pods/proxy': 'PodProxyOptions', '/services/proxy': 'ServiceProxyOptions', '/nodes/proxy': 'NodeProxyOptions',
};

/** The connect options object kube decodes from a CONNECT request's query (Go's omitempty kept). */
function connectOptions(kind: string, query: URLSearchParams, path: string): KubeObject {
  const out: Record<string, unknown> = { kind, apiVersion: 'v1' };
  if (kind === 'PodExecOptions' || kind === 'PodAttachOptions') {
    for (const flag of ['stdin', 'stdout', 'stderr', 'tty']) if (query.get(flag) === 'true' || query.get(flag) === '1') out[flag] = true;
    const container = query.get('container');
    if (container !== null && container !== '') out['container'] = container;
    if (kind === 'PodExecOptions') out['command'] = query.getAll('command');
  } else if (kind === 'PodPortForwardOptions') {
    const ports = query.getAll('ports').flatMap((p) => p.split(',')).map(Number).filter((p) => Number.isInteger(p));
    if (ports.length > 0) out['ports'] = ports;
  } else if (path !== '') {
    out['path'] = path;
  }
  return out as unknown as KubeObject;
}

/**
 * A factory-built subresource with admission: a NamedCreater's body is admitted as a CREATE
 * of the subresource's kind (mutations are passed on), a connect (exec, attach, port-forward,
 * proxies) as a CONNECT with kube's connect options.
 */
function withSubresourceAdmission(ctx: StoreContext, sub: RestSubresource): RestSubresource {
  if (ctx.admission === undefined) return sub;
  const kind = sub.kind ?? { group: ctx.expected.group, version: ctx.expected.version, kind: ctx.expected.kind };
  const creater = sub.creater;
  const connecter = sub.connecter;
  const optionsKind = CONNECT_OPTIONS[`${ctx.definition.group}/${ctx.definition.plural}/${sub.name}`];
  return {
    ...sub,
    ...(creater !== undefined ? {
      creater: {
        create: async (req, name, body, options) =>
          creater.create(req, name, await admitSubresourceCreate(ctx, req, { name, subresource: sub.name, kind, body, options }), options),
      },
    } : {}),
    ...(connecter !== undefined && optionsKind !== undefined ? {
      connecter: {
        verbs: connecter.verbs,
        subpaths: connecter.subpaths,
        connect: async (req, name, request) => {
          await admitConnect(ctx, req, { name, subresource: sub.name, kind: { group: '', version: 'v1', kind: optionsKind }, connectOptions: connectOptions(optionsKind, request.query, request.path) });
          return connecter.connect(req, name, request);
        },
      },
    } : {}),
  };
}

/**
 * Resources whose kube storage is a wrapper without the corrupt-object deleter (namespaces'
 * REST, RBAC's policy-based storages): kube answers the unsafe delete option there with a 500.
 */
const WITHOUT_CORRUPT_OBJECT_DELETER = new Set([
  '/namespaces',
  'rbac.authorization.k8s.io/roles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/clusterrolebindings',
]);

function unreadableDeleter(storage: Storage): (Storage & UnreadableDeleter) | undefined {
  return typeof (storage as Partial<UnreadableDeleter>).deleteWithoutDecoding === 'function' ? (storage as Storage & UnreadableDeleter) : undefined;
}

/**
 * The REST storage of one resource version, with the roles its verbs call for (watch only
 * when the storage serves watches) and its subresources.
 */
export function createStore(options: StoreOptions): RestResource {
  const ctx = createStoreContext(options);
  const verbs = new Set(ctx.definition.verbs);
  const watcher = storageWatcher(options.storage);
  const subresources = subresourceRoles(ctx, options);
  const rawDeleter = verbs.has('delete') && !WITHOUT_CORRUPT_OBJECT_DELETER.has(`${ctx.definition.group}/${ctx.definition.plural}`) ? unreadableDeleter(options.storage) : undefined;
  return {
    definition: ctx.definition,
    version: ctx.expected.version,
    ...(verbs.has('get') ? { getter: { get: (req, name, opts) => getObject(ctx, req, name, opts) } } : {}),
    ...(verbs.has('list') ? { lister: { list: (req, opts) => listObjects(ctx, req, opts) } } : {}),
    ...(verbs.has('create') ? { creater: { create: (req, body, opts) => createObject(ctx, req, body, opts) } } : {}),
    ...(verbs.has('update') ? { updater: { update: (req, name, body, opts) => updateObject(ctx, req, name, body, opts) } } : {}),
    ...(verbs.has('patch') ? { patcher: { patch: (req, name, patch, opts) => patchObject(ctx, req, name, patch, opts) } } : {}),
    ...(verbs.has('delete') ? { deleter: { delete: (req, name, opts) => deleteObject(ctx, req, name, opts) } } : {}),
    ...(rawDeleter !== undefined ? { corruptObjectDeleter: { deleteCorrupt: (req, name) => deleteCorruptObject(ctx, rawDeleter, req, name) } } : {}),
    ...(verbs.has('watch') && watcher !== undefined ? { watcher: { watch: (req, opts) => watchObjects(ctx, watcher, req, opts) } } : {}),
    ...(verbs.has('deletecollection')
      ? { collectionDeleter: { deleteCollection: (req, opts, listOpts) => deleteCollection(ctx, req, opts, listOpts) } }
      : {}),
    ...(subresources !== undefined ? { subresources } : {}),
  };
}
