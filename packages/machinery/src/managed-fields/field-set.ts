/**
 * A set of field paths, stored as a trie the way structured-merge-diff's fieldpath.Set is:
 * at each level the path elements that end there (members) and the ones that continue
 * (children). A path element may be both (FieldsV1 writes that as `".": {}`). Set
 * operations keep smd's exact semantics (notably: `difference` only removes members, it
 * does not drop a child subtree whose element is a member of the other set; that is
 * `recursiveDifference`). Sets returned by operations may share subtrees with their
 * inputs: treat them as read-only; only `insert` into sets you built yourself.
 */
import type { JsonValue } from './json-value.js';
import { comparePathElements, parsePathElement, type Path, type PathElement } from './path-element.js';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

export class FieldSet {
  readonly members = new Map<string, PathElement>();
  readonly children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `path` (mutates; only for sets under construction). */
  insert(path: Path): void {
    if (path.length === 0) return;
    if (path.length === 1) {
      this.members.set(path[0]!.key, path[0]!);
      return;
    }
    let s = this.descend(path[0]!);
    for (let i = 1; i < path.length - 1; i++) s = s.descend(path[i]!);
    const last = path[path.length - 1]!;
    s.members.set(last.key, last);
  }

  /** The child set for `pe`, created when missing (mutates). */
  descend(pe: PathElement): FieldSet {
    let child = this.children.get(pe.key);
    if (child === undefined) {
      child = { pe, set: new FieldSet() };
      this.children.set(pe.key, child);
    }
    return child.set;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    if (path.length === 1) return this.members.has(path[0]!.key);
    let s = this.children.get(path[0]!.key)?.set;
    for (let i = 1; i < path.length - 1 && s !== undefined; i++) s = s.children.get(path[i]!.key)?.set;
    return s !== undefined && s.members.has(path[path.length - 1]!.key);
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const child of this.children.values()) if (!child.set.isEmpty()) return false;
    return true;
  }

  /** The paths below `pe` (relative to it); empty when there are none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe.key)?.set ?? EMPTY;
  }

  union(other: FieldSet): FieldSet {
    if (other.members.size === 0 && other.children.size === 0) return this;
    if (this.members.size === 0 && this.children.size === 0) return other;
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of other.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, c);
    for (const [k, c] of other.children) {
      const mine = this.children.get(k);
      out.children.set(k, mine === undefined ? c : { pe: mine.pe, set: mine.set.union(c.set) });
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (theirs === undefined) continue;
      const inner = c.set.intersection(theirs.set);
      if (!inner.isEmpty()) out.children.set(k, { pe: c.pe, set: inner });
    }
    return out;
  }

  /** Members of `other` removed at every level; child subtrees are kept even when their element is a member of `other`. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (theirs === undefined) {
        out.children.set(k, c);
        continue;
      }
      const inner = c.set.difference(theirs.set);
      if (!inner.isEmpty()) out.children.set(k, { pe: c.pe, set: inner });
    }
    return out;
  }

  /** Like `difference`, but a member of `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (other.members.has(k)) continue;
      const theirs = other.children.get(k);
      if (theirs === undefined) {
        out.children.set(k, c);
        continue;
      }
      const inner = c.set.recursiveDifference(theirs.set);
      if (!inner.isEmpty()) out.children.set(k, { pe: c.pe, set: inner });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const k of this.members.keys()) if (!other.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (theirs === undefined || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  sortedChildren(): Child[] {
    return [...this.children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** Every path in smd's order: this level's members (sorted), then each child's paths. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]) => {
      for (const pe of s.sortedMembers()) out.push([...prefix, pe]);
      for (const c of s.sortedChildren()) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /**
   * The FieldsV1 form: a nested object keyed by path elements in sorted order; a member with
   * children gets `".": {}` first; leaves are `{}`.
   */
  toFieldsV1(): Record<string, JsonValue> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    if (includeSelf && (this.members.size > 0 || this.children.size > 0)) out['.'] = {};
    // An element that is both a member and a child (a list item with fields) is one entry:
    // looked up by key, not searched for (that was quadratic in the number of items).
    const entries: { pe: PathElement; member: boolean; child?: FieldSet }[] = [];
    for (const pe of this.members.values()) entries.push({ pe, member: true, child: this.children.get(pe.key)?.set });
    for (const c of this.children.values()) if (!this.members.has(c.pe.key)) entries.push({ pe: c.pe, member: false, child: c.set });
    entries.sort((a, b) => comparePathElements(a.pe, b.pe));
    for (const e of entries) out[e.pe.key] = e.child === undefined ? {} : e.child.emit(e.member);
    return out;
  }

  /**
   * Reads a FieldsV1 object. Keys of unknown element types are skipped (as kube does);
   * throws PathElementError for malformed keys and Error for values that are not objects.
   */
  static fromFieldsV1(value: unknown): FieldSet {
    const set = new FieldSet();
    readInto(set, value);
    return set;
  }
}

const EMPTY = new FieldSet();

/** Reads the entries of a FieldsV1 object into `set`; returns whether the node was marked `"."` or had no entries (a member). */
function readInto(set: FieldSet, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`FieldsV1 node must be an object, got ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`);
  }
  let isMember = false;
  let hasChildren = false;
  for (const [key, child] of Object.entries(value)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = parsePathElement(key);
    if (pe === undefined) continue;
    hasChildren = true;
    const grandchildren = new FieldSet();
    const childIsMember = readInto(grandchildren, child);
    if (childIsMember) set.members.set(pe.key, pe);
    if (grandchildren.members.size > 0 || grandchildren.children.size > 0) set.children.set(pe.key, { pe, set: grandchildren });
  }
  return isMember || !hasChildren;
}
