/**
 * Indexes by a selectable field's value (kube's cacher indexes pods by `spec.nodeName`): which
 * watchers want which value, and which cached keys hold which value. A predicate offers the
 * index through its `index` hint (storage's IndexedMatch); the hint only narrows — every
 * candidate is still tested by the predicate.
 */
import type { KubeObject } from '@kapi/machinery';
import type { IndexedMatch } from '@kapi/storage';
import { compareKeys } from './key-order.js';
import type { SortedMap } from './sorted-map.js';

type ValueOf = IndexedMatch['valueOf'];

/** Members grouped by field and value. */
class ByFieldValue<T> {
  readonly fields = new Map<string, { valueOf: ValueOf; byValue: Map<string, Set<T>> }>();

  add(field: string, valueOf: ValueOf, value: string, member: T): void {
    let entry = this.fields.get(field);
    if (entry === undefined) this.fields.set(field, (entry = { valueOf, byValue: new Map() }));
    let set = entry.byValue.get(value);
    if (set === undefined) entry.byValue.set(value, (set = new Set()));
    set.add(member);
  }

  /** Whether `member` was there. */
  remove(field: string, value: string, member: T): boolean {
    const entry = this.fields.get(field);
    const set = entry?.byValue.get(value);
    if (entry === undefined || set === undefined || !set.delete(member)) return false;
    if (set.size === 0) entry.byValue.delete(value);
    return true;
  }
}

/** Watchers whose predicate has an index hint, found by the value of the changed object. */
export class WatcherIndex<W> {
  private readonly members = new ByFieldValue<W>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(index: IndexedMatch, watcher: W): void {
    this.members.add(index.field, index.valueOf, index.value, watcher);
    this.count++;
  }

  remove(index: IndexedMatch, watcher: W): void {
    if (this.members.remove(index.field, index.value, watcher)) this.count--;
  }

  /**
   * Calls `visit` for every watcher whose value is the object's before or after the change
   * (a watcher that sees the object leave its value gets the transition); each once.
   */
  forCandidates(object: KubeObject, prevObject: KubeObject | undefined, visit: (watcher: W) => void): number {
    let offered = 0;
    for (const { valueOf, byValue } of this.members.fields.values()) {
      const now = valueOf(object);
      const nowSet = byValue.get(now);
      if (nowSet !== undefined) {
        for (const watcher of nowSet) visit(watcher);
        offered += nowSet.size;
      }
      if (prevObject === undefined) continue;
      const before = valueOf(prevObject);
      if (before === now) continue;
      const beforeSet = byValue.get(before);
      if (beforeSet === undefined) continue;
      for (const watcher of beforeSet) visit(watcher);
      offered += beforeSet.size;
    }
    return offered;
  }

  *all(): Generator<W> {
    for (const { byValue } of this.members.fields.values()) for (const set of byValue.values()) yield* set;
  }
}

/**
 * The keys of the cache's current objects by field value, for the fields lists have asked
 * for (built on the first such list, then kept up to date by every change the cache applies).
 * It describes one map only: `keysFor` answers for that map and no other.
 */
export class ObjectIndex {
  private readonly members = new ByFieldValue<string>();
  private map: SortedMap<KubeObject> | undefined;

  /** Drops every index (the cache re-listed). */
  reset(): void {
    this.members.fields.clear();
    this.map = undefined;
  }

  /** Records a change the cache applied; `map` is the cache's map after it. */
  update(key: string, object: KubeObject | undefined, prevObject: KubeObject | undefined, map: SortedMap<KubeObject>): void {
    for (const [field, { valueOf }] of this.members.fields) {
      const before = prevObject === undefined ? undefined : valueOf(prevObject);
      const now = object === undefined ? undefined : valueOf(object);
      if (before === now) continue;
      if (before !== undefined) this.members.remove(field, before, key);
      if (now !== undefined) this.members.add(field, valueOf, now, key);
    }
    this.map = map;
  }

  /**
   * The keys of `map`'s objects whose field has the hint's value, sorted; undefined when
   * `map` is not the state this index describes (an older snapshot).
   */
  keysFor(map: SortedMap<KubeObject>, hint: IndexedMatch): string[] | undefined {
    if (this.map !== undefined && map !== this.map) return undefined;
    let entry = this.members.fields.get(hint.field);
    if (entry === undefined) {
      // First list by this field: index the whole map once.
      this.map = map;
      this.members.fields.set(hint.field, (entry = { valueOf: hint.valueOf, byValue: new Map() }));
      const { byValue } = entry;
      map.forEachFrom('', (key, obj) => {
        const value = hint.valueOf(obj);
        let set = byValue.get(value);
        if (set === undefined) byValue.set(value, (set = new Set()));
        set.add(key);
        return true;
      });
    }
    const keys = entry.byValue.get(hint.value);
    return keys === undefined ? [] : [...keys].sort(compareKeys);
  }
}
