import type { KubeObject } from '@kapi/machinery';
import type { Predicate, WatchEvent } from '@kapi/storage';
import type { SortedMap } from './sorted-map.js';

/**
 * One change the cache applied, as kept in the event buffer. The `WatchEvent`s handed to
 * watchers are made once per (event, type) and shared by every watcher (serialize once: the
 * HTTP layer keys encoded bytes by event/object identity), so nothing here is copied per
 * watcher. Everything is read-only once built.
 */
export class CacheEvent {
  private added?: WatchEvent;
  private modified?: WatchEvent;
  private deleted?: WatchEvent;

  constructor(
    readonly type: 'put' | 'delete',
    readonly key: string,
    /** put: the new state; delete: the last state with resourceVersion = the deleting revision. */
    readonly object: KubeObject,
    /** The state before the change; undefined for a create. */
    readonly prevObject: KubeObject | undefined,
    readonly revision: number,
    /** When the cache received it (ms), for sizing the buffer by a time window. */
    readonly recordTime: number,
    /** The cache's objects right after this change: the snapshot Exact and continue reads use. Cleared when trimmed. */
    public snapshot: SortedMap<KubeObject> | undefined,
  ) {}

  /**
   * The event a watcher with `predicate` gets, with kube's selector transitions: ADDED when the
   * object starts matching, MODIFIED while it matches, DELETED when it stops matching (the
   * previous state at this event's revision) or is deleted; undefined when neither state matches.
   */
  watchEventFor(predicate: Predicate): WatchEvent | undefined {
    if (this.type === 'delete') {
      return predicate.matches(this.object) ? (this.deleted ??= { type: 'DELETED', object: this.object, revision: this.revision }) : undefined;
    }
    const now = predicate.matches(this.object);
    const before = this.prevObject !== undefined && predicate.matches(this.prevObject);
    if (now) {
      return before
        ? (this.modified ??= { type: 'MODIFIED', object: this.object, revision: this.revision })
        : (this.added ??= { type: 'ADDED', object: this.object, revision: this.revision });
    }
    if (!before) return undefined;
    return (this.deleted ??= { type: 'DELETED', object: atRevision(this.prevObject!, this.revision), revision: this.revision });
  }
}

/** A shallow copy of `obj` whose metadata carries `revision` (for the transition DELETED). */
function atRevision(obj: KubeObject, revision: number): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}

/** Synthetic ADDED events for cached objects, one shared event per object (WeakMap by identity). */
const addedEvents = new WeakMap<KubeObject, WatchEvent>();

export function addedEventOf(obj: KubeObject): WatchEvent {
  let event = addedEvents.get(obj);
  if (event === undefined) {
    event = { type: 'ADDED', object: obj, revision: Number(obj.metadata.resourceVersion ?? 0) };
    addedEvents.set(obj, event);
  }
  return event;
}
