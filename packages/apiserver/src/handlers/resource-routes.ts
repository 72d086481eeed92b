/**
 * The route installer for resource paths: which verbs a resource serves at which path
 * shape, decided by the roles its REST storage implements (kube registers only those; an
 * unregistered method is 405, an unregistered path 404).
 */
import { StatusError } from '@kapi/machinery';
import type { RestResource } from '@kapi/registry';
import type { ResourceRequestInfo, ResourceVerb } from '../http/request-info.js';
import { methodNotRegistered, pathNotFound } from '../http/generic-errors.js';
import { handleDelete, handleDeleteCollection } from './delete.js';
import { handlePatch } from './patch.js';
import { handleGet, handleList } from './read.js';
import type { VerbHandler } from './scope.js';
import { handleWatch } from './watch.js';
import { handleCreate, handleUpdate } from './write.js';
import { handleConnect, handleNamedCreate } from './subresource.js';

/** The handler for `verb` if the resource's roles support it. */
function handlerFor(resource: RestResource, verb: ResourceVerb): VerbHandler | undefined {
  switch (verb) {
    case 'get':
      return resource.getter && handleGet;
    case 'list':
      return resource.lister && handleList;
    case 'watch':
      return resource.watcher && handleWatch;
    case 'create':
      return resource.creater && handleCreate;
    case 'update':
      return resource.updater && handleUpdate;
    case 'patch':
      return resource.patcher && handlePatch;
    case 'delete':
      return resource.deleter && handleDelete;
    case 'deletecollection':
      return resource.collectionDeleter && handleDeleteCollection;
  }
}

/**
 * A watch of a resource that serves none, as kube's routes answer it: the `/watch/` path is
 * not registered (404); `?watch=true` on the collection reaches the list route, which refuses
 * (405 `watch is not supported on resources of kind "<resource>"`); on an item it is a GET.
 */
function unwatchable(info: ResourceRequestInfo, resource: RestResource): VerbHandler | undefined {
  if (info.verb !== 'watch') return undefined;
  if (info.watchPath === true) throw pathNotFound();
  if (info.name !== '') return resource.getter && handleGet;
  if (resource.lister === undefined) return undefined;
  const { group, plural } = resource.definition;
  throw new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: `watch is not supported on resources of kind ${JSON.stringify(group === '' ? plural : `${plural}.${group}`)}`,
    details: { ...(group !== '' ? { group } : {}), kind: plural },
  });
}

/** Verbs a subresource path can serve (kube: get, update, patch on `<name>/<subresource>`). */
const SUBRESOURCE_VERBS: ReadonlySet<ResourceVerb> = new Set(['get', 'update', 'patch']);

/**
 * A subresource request: the subresource's roles stand in for the resource's (handlers read
 * `scope.resource`). 404 for a subresource the resource does not have, 405 for a verb it
 * does not serve.
 */
function resolveSubresource(info: ResourceRequestInfo, resource: RestResource, namespace: string): ResolvedRoute {
  const sub = resource.subresources?.get(info.subresource);
  if (sub === undefined || info.name === '') throw pathNotFound();
  if (sub.connecter !== undefined) {
    const connecter = sub.connecter;
    if (info.extraParts && !connecter.subpaths) throw pathNotFound();
    if (info.verb === '' || !(connecter.verbs as readonly string[]).includes(info.verb)) throw methodNotRegistered();
    return { handler: (scope) => handleConnect(scope, connecter), namespace };
  }
  if (info.extraParts) throw pathNotFound();
  if (sub.creater !== undefined) {
    const creater = sub.creater;
    if (info.verb !== 'create') throw methodNotRegistered();
    return { handler: (scope) => handleNamedCreate(scope, creater, sub.kind), namespace };
  }
  if (info.verb === '' || !SUBRESOURCE_VERBS.has(info.verb)) throw methodNotRegistered();
  const view: RestResource = {
    definition: resource.definition,
    version: resource.version,
    ...(sub.getter !== undefined ? { getter: sub.getter } : {}),
    ...(sub.updater !== undefined ? { updater: sub.updater } : {}),
    ...(sub.patcher !== undefined ? { patcher: sub.patcher } : {}),
  };
  const handler = handlerFor(view, info.verb);
  if (handler === undefined) throw methodNotRegistered();
  return { handler: (scope) => handler({ ...scope, resource: view }), namespace };
}

/** Verbs served at each path shape (kube's installer): collection vs item, namespaced or all namespaces. */
const ITEM_VERBS: ReadonlySet<ResourceVerb> = new Set(['get', 'update', 'patch', 'delete', 'watch']);
const COLLECTION_VERBS: ReadonlySet<ResourceVerb> = new Set(['list', 'watch', 'create', 'deletecollection']);
const ALL_NAMESPACES_VERBS: ReadonlySet<ResourceVerb> = new Set(['list', 'watch']);

export interface ResolvedRoute {
  readonly handler: VerbHandler;
  /** The namespace the registry operates in ("" for cluster-scoped resources). */
  readonly namespace: string;
}

/**
 * Resolves a resource request against the resource serving its group/version/plural.
 * Subresources with their own roles: a named creater answers POST only, a connecter the
 * verbs it lists (and, for proxies, paths below it).
 * Throws 404 for path shapes kube does not serve (unknown subresources, a namespace on a
 * cluster-scoped resource, a named item without its namespace) and 405 for a method the
 * path does not register.
 */
export function resolveResourceRoute(info: ResourceRequestInfo, resource: RestResource): ResolvedRoute {
  if (info.extraParts && info.subresource === '') throw pathNotFound();
  const { namespaced } = resource.definition;
  if (info.subresource !== '') {
    if (namespaced && info.namespace === '') throw pathNotFound();
    if (!namespaced && info.namespace !== '' && !(resource.definition.group === '' && info.resource === 'namespaces' && info.name === info.namespace)) {
      throw pathNotFound();
    }
    return resolveSubresource(info, resource, namespaced ? info.namespace : '');
  }
  const isNamespaceItself = !namespaced && resource.definition.group === '' && info.resource === 'namespaces' && info.name === info.namespace;
  let allowed: ReadonlySet<ResourceVerb>;
  let namespace = '';
  if (namespaced) {
    if (info.namespace === '') {
      if (info.name !== '') throw pathNotFound();
      allowed = ALL_NAMESPACES_VERBS;
    } else {
      namespace = info.namespace;
      allowed = info.name !== '' ? ITEM_VERBS : COLLECTION_VERBS;
    }
  } else {
    if (info.namespace !== '' && !isNamespaceItself) throw pathNotFound();
    allowed = info.name !== '' ? ITEM_VERBS : COLLECTION_VERBS;
  }
  if (info.verb === '' || !allowed.has(info.verb)) throw methodNotRegistered();
  const handler = handlerFor(resource, info.verb) ?? unwatchable(info, resource);
  if (handler === undefined) throw methodNotRegistered();
  return { handler, namespace };
}
