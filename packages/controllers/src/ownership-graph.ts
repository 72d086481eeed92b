/**
 * The garbage collector's ownership graph (kube's GraphBuilder): one node per uid, built from
 * what the informers observe. A node records the object's identity
 * (apiVersion/kind/namespace/name/uid), its ownerReferences, its dependents, and its
 * deletion state (beingDeleted, deletingDependents — `foregroundDeletion` while being
 * deleted — both one-way). An owner seen only in references is a "virtual" node whose
 * identity comes from the first reference (in the dependent's namespace) until an informer
 * observes it. Every change that may call for action puts uids on the two queues:
 * attemptToDelete (dependents whose owners may be gone, owners waiting for their dependents,
 * virtual nodes to verify) and attemptToOrphan (owners that start being deleted with the
 * `orphan` finalizer). The graph itself never reads the API; the workers do and report
 * what they find back through `virtualDelete`.
 */
import type { KubeObject, OwnerReference } from '@kapi/machinery';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type WorkQueue } from '@kapi/registry';

export interface Identity {
  readonly apiVersion: string;
  readonly kind: string;
  /** "" for cluster-scoped objects (and virtual nodes referenced from cluster-scoped ones). */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface GraphNode {
  identity: Identity;
  owners: OwnerReference[];
  readonly dependents: Set<GraphNode>;
  beingDeleted: boolean;
  deletingDependents: boolean;
  /** Not observed by an informer yet (known only from ownerReferences). */
  virtual: boolean;
  /** What the last observation showed, for kube's "starts waiting for …" transitions. */
  last?: { beingDeleted: boolean; orphan: boolean; foreground: boolean };
}

export function identityKey(id: Identity): string {
  return `${id.apiVersion}|${id.kind}|${id.namespace}|${id.name}|${id.uid}`;
}

function sameIdentity(a: Identity, b: Identity): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name && a.uid === b.uid;
}

/** kube's ownerReferenceMatchesCoordinates: uid, name, kind and apiVersion. */
function refMatches(ref: OwnerReference, id: Identity): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && ref.apiVersion === id.apiVersion;
}

export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  return Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
}

function finalizersOf(obj: KubeObject): string[] {
  return Array.isArray(obj.metadata.finalizers) ? obj.metadata.finalizers : [];
}

/** Blocking: the dependent's reference to `owner` has blockOwnerDeletion: true. */
export function blockingDependents(owner: GraphNode): GraphNode[] {
  return [...owner.dependents].filter((dep) => dep.owners.some((ref) => ref.uid === owner.identity.uid && ref.blockOwnerDeletion === true));
}

/**
 * Splits `dependents` into those with a reference matching `owner`'s coordinates (and, for a
 * namespaced owner, in its namespace) and those referring to its uid otherwise. A dependent
 * with two references to the uid can be in both.
 */
function partitionDependents(dependents: Iterable<GraphNode>, owner: Identity): { matching: GraphNode[]; nonMatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonMatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace !== '' && owner.namespace !== dep.identity.namespace) mismatch = true;
    else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (refMatches(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonMatching.push(dep);
  }
  return { matching, nonMatching };
}

function compareIdentity(a: Identity, b: Identity): number {
  for (const field of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) {
    if (a[field] !== b[field]) return a[field] < b[field] ? -1 : 1;
  }
  return 0;
}

/**
 * kube's getAlternateOwnerIdentity: another identity the dependents give `absent`'s uid —
 * the first after it in (kind, apiVersion, namespace, name) order, else the first overall.
 */
function alternateIdentity(dependents: Iterable<GraphNode>, absent: Identity): Identity | undefined {
  const clusterScoped = absent.namespace === '';
  const seen = new Set<string>([identityKey(absent)]);
  let first: Identity | undefined;
  let firstFollowing: Identity | undefined;
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (refMatches(ref, absent) && (clusterScoped || absent.namespace === dep.identity.namespace)) continue;
      let namespace = dep.identity.namespace;
      if (clusterScoped && ref.apiVersion === absent.apiVersion && ref.kind === absent.kind) namespace = '';
      const candidate: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, namespace, name: ref.name, uid: ref.uid };
      const key = identityKey(candidate);
      if (seen.has(key)) continue;
      seen.add(key);
      if (first === undefined || compareIdentity(candidate, first) < 0) first = candidate;
      if (compareIdentity(absent, candidate) < 0 && (firstFollowing === undefined || compareIdentity(candidate, firstFollowing) < 0)) firstFollowing = candidate;
    }
  }
  return firstFollowing ?? first;
}

/** A bounded set of identities known to be absent (kube's absentOwnerCache, LRU of 500). */
export class AbsentOwnerCache {
  private readonly keys = new Map<string, true>();
  constructor(private readonly capacity = 500) {}
  add(id: Identity): void {
    const key = identityKey(id);
    this.keys.delete(key);
    this.keys.set(key, true);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.keys().next().value!);
  }
  has(id: Identity): boolean {
    const key = identityKey(id);
    if (!this.keys.has(key)) return false;
    this.keys.delete(key);
    this.keys.set(key, true);
    return true;
  }
}

export interface GraphQueues {
  readonly attemptToDelete: WorkQueue<string>;
  readonly attemptToOrphan: WorkQueue<string>;
  /**
   * A dependent names an owner the informers observed in another namespace (kube reports a
   * Warning event `OwnerRefInvalidNamespace` on the dependent).
   */
  readonly onInvalidNamespaceOwnerRef?: (dependent: GraphNode, ref: OwnerReference) => void;
}

export class OwnershipGraph {
  readonly nodes = new Map<string, GraphNode>();
  readonly absentOwners = new AbsentOwnerCache();

  constructor(private readonly queues: GraphQueues) {}

  private reportInvalidNamespace(dependent: GraphNode, ownerUid: string): void {
    const ref = dependent.owners.find((r) => r.uid === ownerUid);
    if (ref !== undefined) this.queues.onInvalidNamespaceOwnerRef?.(dependent, ref);
  }

  private enqueueDelete(node: GraphNode): void {
    this.queues.attemptToDelete.add(node.identity.uid);
  }

  /** An object observed (ADDED/MODIFIED, or in a list) through the resource apiVersion/kind. */
  observe(apiVersion: string, kind: string, obj: KubeObject): void {
    const meta = obj.metadata;
    const uid = meta.uid ?? '';
    if (uid === '') return;
    const identity: Identity = { apiVersion, kind, namespace: meta.namespace ?? '', name: meta.name ?? '', uid };
    const owners = ownerReferencesOf(obj);
    const beingDeleted = meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
    const finalizers = finalizersOf(obj);
    const now = { beingDeleted, orphan: finalizers.includes(FINALIZER_ORPHAN), foreground: finalizers.includes(FINALIZER_FOREGROUND) };
    let node = this.nodes.get(uid);
    if (node?.virtual === true) {
      if (!sameIdentity(node.identity, identity)) {
        // Dependents that named it otherwise may hold invalid references: verify them.
        for (const dep of partitionDependents(node.dependents, identity).nonMatching) {
          if (identity.namespace !== '' && dep.identity.namespace !== identity.namespace) this.reportInvalidNamespace(dep, uid);
          this.enqueueDelete(dep);
        }
        node.identity = identity;
      }
      node.virtual = false;
    }
    if (node === undefined) {
      node = { identity, owners: [...owners], dependents: new Set(), beingDeleted, deletingDependents: beingDeleted && now.foreground, virtual: false };
      this.nodes.set(uid, node);
      this.addDependentToOwners(node, owners);
    } else {
      if (node.identity.apiVersion !== apiVersion || node.identity.kind !== kind || node.identity.name !== identity.name || node.identity.namespace !== identity.namespace) node.identity = identity;
      const { added, removed, changed } = referenceDiffs(node.owners, owners);
      if (added.length > 0 || removed.length > 0 || changed.length > 0) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        node.owners = [...owners];
        this.addDependentToOwners(node, added);
        for (const ref of removed) this.nodes.get(ref.uid)?.dependents.delete(node);
      }
      if (beingDeleted) node.beingDeleted = true;
    }
    this.processTransitions(node.last, now, node);
    node.last = now;
  }

  /** kube's processTransitions: deletion starting with `orphan` or `foregroundDeletion`. */
  private processTransitions(old: GraphNode['last'], now: NonNullable<GraphNode['last']>, node: GraphNode): void {
    const starts = (flag: 'orphan' | 'foreground') => now.beingDeleted && now[flag] && !(old !== undefined && old.beingDeleted && old[flag]);
    if (starts('orphan')) {
      this.queues.attemptToOrphan.add(node.identity.uid);
      return;
    }
    if (starts('foreground')) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.enqueueDelete(dep);
      this.enqueueDelete(node);
    }
  }

  /** kube's addDependentToOwners: virtual nodes for unknown owners, and verification of suspicious references. */
  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let suspicious = false;
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (owner === undefined) {
        owner = {
          identity: { apiVersion: ref.apiVersion, kind: ref.kind, namespace: node.identity.namespace, name: ref.name, uid: ref.uid },
          owners: [],
          dependents: new Set(),
          beingDeleted: false,
          deletingDependents: false,
          virtual: true,
        };
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        // Verified by a worker: a virtual delete follows when the API says it does not exist.
        this.enqueueDelete(owner);
        continue;
      }
      owner.dependents.add(node);
      if (suspicious) continue;
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        if (!owner.virtual) this.reportInvalidNamespace(node, ref.uid);
        suspicious = true;
      }
      else if (!refMatches(ref, owner.identity)) suspicious = true;
      else if (!ownerNamespaced && owner.identity.namespace !== node.identity.namespace && owner.virtual) suspicious = true;
    }
    if (suspicious) this.enqueueDelete(node);
  }

  /** An owner whose blocking reference was removed or unblocked may be done waiting. */
  private addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: ReadonlyArray<{ before: OwnerReference; after: OwnerReference }>): void {
    for (const ref of removed) {
      const owner = ref.blockOwnerDeletion === true ? this.nodes.get(ref.uid) : undefined;
      if (owner !== undefined) this.enqueueDelete(owner);
    }
    for (const { before, after } of changed) {
      const owner = before.blockOwnerDeletion === true && after.blockOwnerDeletion !== true ? this.nodes.get(after.uid) : undefined;
      if (owner !== undefined) this.enqueueDelete(owner);
    }
  }

  /** An informer observed the deletion of `uid`. */
  observeDeletion(uid: string): void {
    const node = this.nodes.get(uid);
    if (node !== undefined) this.removeNode(node);
  }

  /**
   * A worker found `identity` absent (404 or another uid) — kube's virtual delete event. A
   * virtual node whose dependents name it otherwise stays (under another identity to verify).
   */
  virtualDelete(identity: Identity): void {
    const node = this.nodes.get(identity.uid);
    if (node === undefined) return;
    let remove = true;
    if (node.virtual) {
      const { matching, nonMatching } = partitionDependents(node.dependents, identity);
      if (nonMatching.length > 0) {
        remove = false;
        if (matching.length > 0) {
          this.absentOwners.add(identity);
          for (const dep of matching) this.enqueueDelete(dep);
        }
        if (sameIdentity(node.identity, identity)) {
          const replacement = alternateIdentity(nonMatching, identity);
          if (replacement !== undefined) {
            node.identity = replacement;
            this.queues.attemptToDelete.addRateLimited(node.identity.uid);
          }
        }
      }
    } else if (!sameIdentity(node.identity, identity)) {
      remove = false;
      const { matching } = partitionDependents(node.dependents, identity);
      if (matching.length > 0) {
        this.absentOwners.add(identity);
        for (const dep of matching) this.enqueueDelete(dep);
      }
    }
    if (remove) this.removeNode(node, identity);
  }

  /**
   * Drops `uid` without concluding that it is gone (its resource is no longer served): its
   * dependents are verified by the workers, whose lookups of an unserved kind are retried.
   */
  forget(uid: string): void {
    const node = this.nodes.get(uid);
    if (node !== undefined) this.removeNode(node, undefined);
  }

  private removeNode(node: GraphNode, absentIdentity: Identity | undefined = node.identity): void {
    this.nodes.delete(node.identity.uid);
    for (const ref of node.owners) this.nodes.get(ref.uid)?.dependents.delete(node);
    if (node.dependents.size > 0 && absentIdentity !== undefined) this.absentOwners.add(absentIdentity);
    for (const dep of node.dependents) this.enqueueDelete(dep);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // An owner waiting for its dependents may be done now.
      if (owner?.deletingDependents === true) this.enqueueDelete(owner);
    }
  }
}

function referenceDiffs(before: readonly OwnerReference[], after: readonly OwnerReference[]) {
  const old = new Map(before.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: Array<{ before: OwnerReference; after: OwnerReference }> = [];
  for (const ref of after) {
    const prev = old.get(ref.uid);
    if (prev === undefined) added.push(ref);
    else {
      if (!sameReference(prev, ref)) changed.push({ before: prev, after: ref });
      old.delete(ref.uid);
    }
  }
  return { added, removed: [...old.values()], changed };
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}
