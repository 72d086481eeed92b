import { compareKeys, nativeOrderHolds } from './key-order.js';

/**
 * A persistent (immutable) sorted map from keys to values: a B+-tree whose nodes are never
 * changed once built. `set` and `delete` copy only the path from the root to one leaf and
 * return a new map, so keeping an old map is an O(1) snapshot that shares every untouched node
 * with the current one. The watch cache keeps one such map per revision for Exact and
 * paginated reads.
 *
 * Keys are ordered like etcd's (see compareKeys); each operation checks once whether its key
 * lets the searches use JavaScript's own string comparison (see nativeOrderHolds). Lookups, updates and `countBelow` are
 * O(log n); `forEach` visits entries in key order.
 */

const MAX_ENTRIES = 32;
const MIN_ENTRIES = MAX_ENTRIES / 4;

interface Leaf<V> {
  readonly keys: readonly string[];
  readonly values: readonly V[];
}

interface Branch<V> {
  readonly children: readonly Node<V>[];
  /** The smallest key in each child. */
  readonly firstKeys: readonly string[];
  readonly size: number;
}

type Node<V> = Leaf<V> | Branch<V>;

const isBranch = <V>(node: Node<V>): node is Branch<V> => 'children' in node;
const sizeOf = <V>(node: Node<V>): number => (isBranch(node) ? node.size : node.keys.length);
const firstKeyOf = <V>(node: Node<V>): string => (isBranch(node) ? node.firstKeys[0]! : node.keys[0]!);

/** The index of the first key >= `key` (binary search); `native`: nativeOrderHolds(key). */
function lowerBound(keys: readonly string[], key: string, native: boolean): number {
  let lo = 0;
  let hi = keys.length;
  if (native) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The child of a branch whose range holds `key`: the last child whose first key is <= key. */
function childIndex<V>(branch: Branch<V>, key: string, native: boolean): number {
  let lo = 0;
  let hi = branch.firstKeys.length;
  if (native) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (branch.firstKeys[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo - 1);
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(branch.firstKeys[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo - 1);
}

function makeBranch<V>(children: Node<V>[]): Branch<V> {
  let size = 0;
  for (const child of children) size += sizeOf(child);
  return { children, firstKeys: children.map(firstKeyOf), size };
}

/** Splits an over-full node's entries into two halves. */
function splitLeaf<V>(keys: string[], values: V[]): Node<V>[] {
  if (keys.length <= MAX_ENTRIES) return [{ keys, values }];
  const half = keys.length >>> 1;
  return [
    { keys: keys.slice(0, half), values: values.slice(0, half) },
    { keys: keys.slice(half), values: values.slice(half) },
  ];
}

function splitBranch<V>(children: Node<V>[]): Node<V>[] {
  if (children.length <= MAX_ENTRIES) return [makeBranch(children)];
  const half = children.length >>> 1;
  return [makeBranch(children.slice(0, half)), makeBranch(children.slice(half))];
}

/** Returns the replacement nodes (one, or two after a split). */
function insert<V>(node: Node<V>, key: string, value: V, native: boolean): Node<V>[] {
  if (!isBranch(node)) {
    const at = lowerBound(node.keys, key, native);
    const keys = node.keys.slice();
    const values = node.values.slice();
    if (at < keys.length && keys[at] === key) {
      values[at] = value;
      return [{ keys, values }];
    }
    keys.splice(at, 0, key);
    values.splice(at, 0, value);
    return splitLeaf(keys, values);
  }
  const at = childIndex(node, key, native);
  const child = node.children[at]!;
  const replaced = insert(child, key, value, native);
  const children = node.children.slice();
  if (replaced.length === 1) {
    // No split below: this branch keeps its shape; only one child, its first key and the size change.
    const only = replaced[0]!;
    children[at] = only;
    const firstKeys = node.firstKeys.slice();
    firstKeys[at] = firstKeyOf(only);
    return [{ children, firstKeys, size: node.size - sizeOf(child) + sizeOf(only) }];
  }
  children.splice(at, 1, ...replaced);
  return splitBranch(children);
}

/** Merges two adjacent nodes of the same kind, splitting again when the result is over-full. */
function mergeNodes<V>(left: Node<V>, right: Node<V>): Node<V>[] {
  if (isBranch(left) && isBranch(right)) return splitBranch([...left.children, ...right.children]);
  const l = left as Leaf<V>;
  const r = right as Leaf<V>;
  return splitLeaf([...l.keys, ...r.keys], [...l.values, ...r.values]);
}

function entryCount<V>(node: Node<V>): number {
  return isBranch(node) ? node.children.length : node.keys.length;
}

/** Returns the replacement node (undefined when it became empty), or `node` itself when `key` is absent. */
function remove<V>(node: Node<V>, key: string, native: boolean): Node<V> | undefined {
  if (!isBranch(node)) {
    const at = lowerBound(node.keys, key, native);
    if (at >= node.keys.length || node.keys[at] !== key) return node;
    if (node.keys.length === 1) return undefined;
    const keys = node.keys.slice();
    const values = node.values.slice();
    keys.splice(at, 1);
    values.splice(at, 1);
    return { keys, values };
  }
  const at = childIndex(node, key, native);
  const child = node.children[at]!;
  const replaced = remove(child, key, native);
  if (replaced === child) return node;
  const children = node.children.slice();
  if (replaced === undefined) {
    children.splice(at, 1);
    return children.length === 0 ? undefined : makeBranch(children);
  }
  children[at] = replaced;
  if (entryCount(replaced) < MIN_ENTRIES && children.length > 1) {
    const left = at > 0 ? at - 1 : at;
    children.splice(left, 2, ...mergeNodes(children[left]!, children[left + 1]!));
  }
  return makeBranch(children);
}

function buildLevel<V>(nodes: Node<V>[]): Node<V> {
  while (nodes.length > 1) {
    const parents: Node<V>[] = [];
    for (let i = 0; i < nodes.length; i += MAX_ENTRIES) parents.push(makeBranch(nodes.slice(i, i + MAX_ENTRIES)));
    nodes = parents;
  }
  return nodes[0]!;
}

export class SortedMap<V> {
  private static readonly emptyLeaf: Leaf<never> = { keys: [], values: [] };

  private constructor(private readonly root: Node<V>) {}

  static empty<V>(): SortedMap<V> {
    return new SortedMap<V>(SortedMap.emptyLeaf);
  }

  /** Builds a map from keys already in strictly increasing order (with their values). */
  static fromSorted<V>(keys: readonly string[], values: readonly V[]): SortedMap<V> {
    if (keys.length === 0) return SortedMap.empty<V>();
    const leaves: Node<V>[] = [];
    for (let i = 0; i < keys.length; i += MAX_ENTRIES) {
      leaves.push({ keys: keys.slice(i, i + MAX_ENTRIES), values: values.slice(i, i + MAX_ENTRIES) });
    }
    return new SortedMap(buildLevel(leaves));
  }

  get size(): number {
    return sizeOf(this.root);
  }

  get(key: string): V | undefined {
    const native = nativeOrderHolds(key);
    let node = this.root;
    while (isBranch(node)) node = node.children[childIndex(node, key, native)]!;
    const at = lowerBound(node.keys, key, native);
    return at < node.keys.length && node.keys[at] === key ? node.values[at] : undefined;
  }

  set(key: string, value: V): SortedMap<V> {
    const nodes = insert(this.root, key, value, nativeOrderHolds(key));
    return new SortedMap(nodes.length === 1 ? nodes[0]! : makeBranch(nodes));
  }

  delete(key: string): SortedMap<V> {
    const replaced = remove(this.root, key, nativeOrderHolds(key));
    if (replaced === this.root) return this;
    let root: Node<V> = replaced ?? SortedMap.emptyLeaf;
    while (isBranch(root) && root.children.length === 1) root = root.children[0]!;
    return new SortedMap(root);
  }

  /** How many keys are smaller than `key`. */
  countBelow(key: string): number {
    const native = nativeOrderHolds(key);
    let count = 0;
    let node = this.root;
    while (isBranch(node)) {
      const at = childIndex(node, key, native);
      for (let i = 0; i < at; i++) count += sizeOf(node.children[i]!);
      node = node.children[at]!;
    }
    return count + lowerBound(node.keys, key, native);
  }

  /**
   * The values of the first `count` entries with key >= `fromKey`, in key order (fewer when the
   * map ends first): a range read without a call per entry, for lists (see countBelow).
   */
  valuesFrom(fromKey: string, count: number): V[] {
    const out: V[] = [];
    if (count > 0) collect(this.root, fromKey, nativeOrderHolds(fromKey), count, out);
    return out;
  }

  /**
   * Calls `visit` for each entry with key >= `fromKey`, in key order, until it returns false.
   */
  forEachFrom(fromKey: string, visit: (key: string, value: V) => boolean): void {
    walk(this.root, fromKey, visit, nativeOrderHolds(fromKey));
  }
}

/** Returns false once `visit` asked to stop. */
function walk<V>(node: Node<V>, fromKey: string, visit: (key: string, value: V) => boolean, native: boolean): boolean {
  if (!isBranch(node)) {
    for (let i = fromKey === '' ? 0 : lowerBound(node.keys, fromKey, native); i < node.keys.length; i++) {
      if (!visit(node.keys[i]!, node.values[i]!)) return false;
    }
    return true;
  }
  for (let i = fromKey === '' ? 0 : childIndex(node, fromKey, native); i < node.children.length; i++) {
    if (!walk(node.children[i]!, fromKey, visit, native)) return false;
    fromKey = '';
  }
  return true;
}

/** Appends values of keys >= `fromKey` to `out` until it holds `count`; true once it does. */
function collect<V>(node: Node<V>, fromKey: string, native: boolean, count: number, out: V[]): boolean {
  if (!isBranch(node)) {
    const values = node.values;
    const start = fromKey === '' ? 0 : lowerBound(node.keys, fromKey, native);
    const end = Math.min(values.length, start + count - out.length);
    for (let i = start; i < end; i++) out.push(values[i]!);
    return out.length >= count;
  }
  for (let i = fromKey === '' ? 0 : childIndex(node, fromKey, native); i < node.children.length; i++) {
    if (collect(node.children[i]!, fromKey, native, count, out)) return true;
    fromKey = '';
  }
  return false;
}
