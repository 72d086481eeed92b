/**
 * A garbage collector (kube-controller-manager's, simplified to periodic passes): each pass
 * lists every resource (one storage version each) and builds the ownership graph from
 * `metadata.ownerReferences` by uid, then
 * - owners being deleted with the `orphan` finalizer: their dependents lose the
 *   ownerReference, then the finalizer is removed (the owner goes in that write);
 * - owners being deleted with `foregroundDeletion`: their dependents are deleted (in the
 *   foreground themselves when they have dependents), and once no dependent with
 *   `blockOwnerDeletion: true` is left the finalizer is removed;
 * - dependents none of whose owners exist are deleted (Background); references to owners
 *   that are gone are dropped while another owner exists. An owner "exists" only when a live
 *   read (not the pass's snapshot) finds an object of the referenced kind and name, in the
 *   dependent's namespace for namespaced kinds, with the referenced uid (kube's rule: a
 *   cluster-scoped dependent cannot have a namespaced owner, nor a namespaced one an owner
 *   in another namespace). References to kinds the registry does not serve are left alone.
 */
import type { KubeObject, OwnerReference } from '@kapi/machinery';
import { isConflict, isNotFound } from '@kapi/machinery';
import type { Registry } from '../registry.js';
import type { RestResource } from '../rest.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../store-delete.js';

const USER_AGENT = 'kapi-controller-manager/garbage-collector';

interface Node {
  readonly resource: RestResource;
  readonly obj: KubeObject;
}

export interface GarbageCollector {
  /** One pass (what each resync does). */
  sync(signal?: AbortSignal): Promise<void>;
}

function storageResources(registry: Registry): RestResource[] {
  return registry.resources.filter((r) => {
    if (r.lister === undefined || r.getter === undefined || r.updater === undefined || r.deleter === undefined) return false;
    const storageVersion = r.definition.versions.find((v) => v.storage)?.name ?? r.definition.versions[0]?.name;
    return r.version === storageVersion;
  });
}

function ownerRefs(obj: KubeObject): OwnerReference[] {
  return Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
}

function reqFor(obj: KubeObject) {
  return { namespace: obj.metadata.namespace ?? '', userAgent: USER_AGENT };
}

function ignoreGone(err: unknown): void {
  if (!isNotFound(err) && !isConflict(err)) throw err;
}

export function garbageCollector(registry: Registry): GarbageCollector {
  const resources = storageResources(registry);
  const byKind = (apiVersion: string, kind: string): RestResource | undefined => {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return registry.resources.find((r) => r.definition.group === group && r.version === version && r.definition.kind === kind);
  };

  /** Live check that `ref` names an existing owner of `dependent`; undefined when the kind is unknown. */
  async function ownerExists(dependent: KubeObject, ref: OwnerReference): Promise<boolean | undefined> {
    const resource = byKind(ref.apiVersion, ref.kind);
    if (resource?.getter === undefined) return undefined;
    const namespace = dependent.metadata.namespace ?? '';
    if (resource.definition.namespaced && namespace === '') return false;
    try {
      const owner = await resource.getter.get({ namespace: resource.definition.namespaced ? namespace : '', userAgent: USER_AGENT }, ref.name, {});
      return owner.metadata.uid === ref.uid;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async function update(node: Node, change: (obj: KubeObject) => void): Promise<void> {
    const fresh = await node.resource.getter!.get(reqFor(node.obj), node.obj.metadata.name ?? '', {});
    if (fresh.metadata.uid !== node.obj.metadata.uid) return;
    const next = structuredClone(fresh);
    change(next);
    await node.resource.updater!.update(reqFor(node.obj), node.obj.metadata.name ?? '', next, {});
  }

  const removeFinalizer = (node: Node, finalizer: string) =>
    update(node, (obj) => {
      obj.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    }).catch(ignoreGone);

  return {
    async sync(signal?: AbortSignal): Promise<void> {
      const nodes: Node[] = [];
      for (const resource of resources) {
        const list = await resource.lister!.list({ namespace: '', userAgent: USER_AGENT }, {});
        for (const obj of list.items) nodes.push({ resource, obj });
      }
      const dependentsOf = new Map<string, Node[]>();
      for (const node of nodes) {
        for (const ref of ownerRefs(node.obj)) {
          const list = dependentsOf.get(ref.uid) ?? [];
          list.push(node);
          dependentsOf.set(ref.uid, list);
        }
      }
      for (const node of nodes) {
        if (signal?.aborted === true) return;
        const meta = node.obj.metadata;
        const uid = meta.uid ?? '';
        const dependents = dependentsOf.get(uid) ?? [];
        if (meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).includes(FINALIZER_ORPHAN)) {
          for (const dep of dependents) {
            await update(dep, (obj) => {
              const refs = ownerRefs(obj).filter((r) => r.uid !== uid);
              if (refs.length > 0) obj.metadata.ownerReferences = refs;
              else delete obj.metadata.ownerReferences;
            }).catch(ignoreGone);
          }
          await removeFinalizer(node, FINALIZER_ORPHAN);
          continue;
        }
        if (meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).includes(FINALIZER_FOREGROUND)) {
          let blocking = 0;
          for (const dep of dependents) {
            const ref = ownerRefs(dep.obj).find((r) => r.uid === uid);
            if (ref?.blockOwnerDeletion === true) blocking++;
            if (dep.obj.metadata.deletionTimestamp !== undefined) continue;
            const hasOwnDependents = (dependentsOf.get(dep.obj.metadata.uid ?? '') ?? []).length > 0;
            await dep.resource.deleter!.delete(reqFor(dep.obj), dep.obj.metadata.name ?? '', {
              propagationPolicy: hasOwnDependents ? 'Foreground' : 'Background',
              preconditions: { uid: dep.obj.metadata.uid ?? '' },
            }).catch(ignoreGone);
          }
          if (blocking === 0) await removeFinalizer(node, FINALIZER_FOREGROUND);
          continue;
        }
        const refs = ownerRefs(node.obj);
        if (refs.length === 0 || meta.deletionTimestamp !== undefined) continue;
        const present: OwnerReference[] = [];
        let unknown = false;
        for (const ref of refs) {
          const exists = await ownerExists(node.obj, ref);
          if (exists === undefined) unknown = true;
          if (exists !== false) present.push(ref);
        }
        if (present.length === refs.length) continue;
        if (present.length > 0 || unknown) {
          const goneUids = new Set(refs.filter((r) => !present.includes(r)).map((r) => r.uid));
          await update(node, (obj) => {
            obj.metadata.ownerReferences = ownerRefs(obj).filter((r) => !goneUids.has(r.uid));
          }).catch(ignoreGone);
          continue;
        }
        await node.resource.deleter!.delete(reqFor(node.obj), meta.name ?? '', { propagationPolicy: 'Background', preconditions: { uid } }).catch(ignoreGone);
      }
    },
  };
}
