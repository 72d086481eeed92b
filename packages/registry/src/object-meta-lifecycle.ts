/**
 * What the server does to an object's metadata before validation (kube's rest.BeforeCreate
 * and rest.BeforeUpdate), generic over every resource. Each function mutates the private
 * object it is given and calls the strategy hooks at the fixed point in the sequence.
 */
import type { KubeObject } from '@kapi/machinery';
import { badRequest, generateName, newUID, nowRFC3339 } from '@kapi/machinery';
import type { RequestContext, ResourceDefinition } from './definition.js';
import { semanticEqual } from './semantic-equal.js';

const NAMESPACE_MISMATCH = 'the namespace of the provided object does not match the namespace sent on the request';

/**
 * Namespaced resources: an empty `metadata.namespace` takes the request's; a different one
 * is a 400. Cluster-scoped resources: `metadata.namespace` is cleared.
 */
export function reconcileNamespace(obj: KubeObject, definition: ResourceDefinition, requestNamespace: string): void {
  if (!definition.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const namespace = typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
  if (namespace === '') obj.metadata.namespace = requestNamespace;
  else if (namespace !== requestNamespace) throw badRequest(NAMESPACE_MISMATCH);
}

/**
 * Before create: drops deletion fields, selfLink and (for resources with status) status;
 * assigns uid; runs `prepareForCreate`; assigns creationTimestamp, generation 1 (only for resources
 * that manage generation, on create or always; others keep what the client sent, as kube
 * does) and, when `name`
 * is empty and `generateName` set, a generated name. Throws 400 when the body carries a
 * resourceVersion (kube refuses to create such objects).
 */
export function prepareObjectForCreate(obj: KubeObject, definition: ResourceDefinition, req?: RequestContext): void {
  const meta = obj.metadata;
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') {
    throw badRequest('resourceVersion should not be set on objects to be created');
  }
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta['selfLink'];
  if (definition.hasStatus && definition.statusOnCreate !== true) delete obj['status'];
  // The uid first: a Job's generated selector names it.
  meta.uid = newUID();
  definition.strategy?.prepareForCreate?.(obj, req);
  meta.creationTimestamp = nowRFC3339();
  if (definition.managesGeneration === true || definition.managesGeneration === 'onCreate') meta.generation = 1;
  assignGeneratedName(obj);
}

/** Sets `metadata.name` from `generateName` when the name is empty (again on each retry). */
export function assignGeneratedName(obj: KubeObject): boolean {
  const meta = obj.metadata;
  const base = typeof meta.generateName === 'string' ? meta.generateName : '';
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (base === '' || name !== '') return false;
  meta.name = generateName(base);
  return true;
}

function copyField(obj: KubeObject, old: KubeObject, field: string): void {
  if (old[field] === undefined) delete obj[field];
  else obj[field] = structuredClone(old[field]);
}

/**
 * An update through a subresource may change only what that subresource owns: the
 * strategy's hook decides; without one, `/status` keeps everything but metadata and status
 * from `old`.
 */
function prepareForSubresourceUpdate(obj: KubeObject, old: KubeObject, definition: ResourceDefinition, subresource: string): void {
  const hook = definition.strategy?.prepareForSubresourceUpdate;
  if (hook !== undefined) {
    hook(subresource, obj, old);
    return;
  }
  const kept = new Set(['metadata', 'status', 'apiVersion', 'kind']);
  for (const field of new Set([...Object.keys(obj), ...Object.keys(old)])) if (!kept.has(field)) copyField(obj, old, field);
}

/** Everything but metadata and status: what a change of bumps `metadata.generation`. */
function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, ...rest } = obj;
  return rest;
}

/**
 * Before update: keeps generation, uid (when unset), creationTimestamp, deletionTimestamp
 * and deletionGracePeriodSeconds from `old`; for resources with status, the status of
 * `old`; drops selfLink; runs `prepareForUpdate`; then, for resources that manage
 * generation on every update, bumps it when anything other than metadata and status changed.
 */
export function prepareObjectForUpdate(obj: KubeObject, old: KubeObject, definition: ResourceDefinition, subresource = ''): void {
  const meta = obj.metadata;
  const oldMeta = old.metadata;
  delete meta['selfLink'];
  if (oldMeta.generation === undefined) delete meta.generation;
  else meta.generation = oldMeta.generation;
  if (subresource !== '') {
    prepareForSubresourceUpdate(obj, old, definition, subresource);
  } else {
    if (definition.hasStatus) copyField(obj, old, 'status');
    definition.strategy?.prepareForUpdate?.(obj, old);
  }
  if (typeof meta.uid !== 'string' || meta.uid === '') {
    if (oldMeta.uid === undefined) delete meta.uid;
    else meta.uid = oldMeta.uid;
  }
  if (oldMeta.creationTimestamp !== undefined) meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp !== undefined) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  }
  const counts = definition.managesGeneration === true || definition.managesGeneration === 'onUpdate';
  if (counts && !semanticEqual(specOf(obj), specOf(old))) meta.generation = (oldMeta.generation ?? 0) + 1;
}
