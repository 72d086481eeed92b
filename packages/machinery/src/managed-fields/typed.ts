/**
 * structured-merge-diff's operations on values with a schema atom, reimplemented over plain
 * JSON: the field set a value sets (`toFieldSet`), the difference between two values
 * (`compareValues`), merging an applied configuration into a live object (`mergeValues`)
 * and removing field paths (`removeItems`). `undefined` means "absent"; `null` is a JSON
 * null. Inputs are never mutated; results may share unchanged subtrees with the inputs.
 */
import { isPlainObject } from '../object.js';
import { FieldSet } from './field-set.js';
import { equalJson, type JsonValue } from './json-value.js';
import { fieldElement, keyElement, pathString, valueElement, type Path, type PathElement } from './path-element.js';
import { UNTYPED, atomFor, type Atom, type ListAtom, type MapAtom } from './schema-type.js';

type Value = unknown;

/** The path element of a list item, or an error text (smd's wording). */
export function listItemElement(list: ListAtom, item: Value): PathElement | string {
  if (list.relationship !== 'associative') return 'invalid indexing of non-associative list';
  if (list.keys.length > 0) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isPlainObject(item)) return 'associative list with keys may not have non-map elements';
    const fields: [string, JsonValue][] = [];
    for (const key of list.keys) {
      if (Object.prototype.hasOwnProperty.call(item, key)) fields.push([key, item[key] as JsonValue]);
      else if (list.keyDefaults.has(key)) fields.push([key, list.keyDefaults.get(key) as JsonValue]);
      else return `associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`;
    }
    return keyElement(fields);
  }
  if (isPlainObject(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return valueElement(item as JsonValue);
}

function fieldType(map: MapAtom, key: string): Atom | undefined {
  const field = map.fields.get(key);
  if (field !== undefined) return field();
  return map.element?.();
}

/** Which part of the atom handles a value (kube's handleAtom order: map, scalar, list). */
function part(atom: Atom): 'map' | 'scalar' | 'list' {
  if (atom.map !== undefined) return 'map';
  if (atom.scalar !== undefined) return 'scalar';
  return 'list';
}

function asMap(v: Value): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}

function asList(v: Value): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** Whether `map` has no own enumerable keys, without listing them (Object.keys of a large map is a pass of its own). */
function isEmptyMap(map: Record<string, unknown>): boolean {
  for (const key in map) if (Object.prototype.hasOwnProperty.call(map, key)) return false;
  return true;
}

// ---------------------------------------------------------------------------------------
// toFieldSet

/** The set of fields `value` sets (leaves, list items, map entries, empty or null structs). */
export function toFieldSet(value: Value, atom: Atom): FieldSet {
  const set = new FieldSet();
  fieldSetWalk(value, atom, [], set);
  return set;
}

function fieldSetWalk(value: Value, atom: Atom, path: PathElement[], set: FieldSet): void {
  const a = atomFor(atom, value);
  switch (part(a)) {
    case 'scalar':
      set.insert(path);
      return;
    case 'list': {
      const t = a.list!;
      if (t.relationship === 'atomic') {
        set.insert(path);
        return;
      }
      const list = asList(value);
      if (list === undefined) return;
      const elements = list.map((item) => listItemElement(t, item));
      const seen = new Set<string>();
      const duplicates = new Set<string>();
      for (const pe of elements) {
        if (typeof pe === 'string') continue;
        if (seen.has(pe.key)) {
          if (!duplicates.has(pe.key)) {
            set.insert([...path, pe]);
            duplicates.add(pe.key);
          }
        } else seen.add(pe.key);
      }
      list.forEach((item, i) => {
        const pe = elements[i]!;
        if (typeof pe === 'string' || duplicates.has(pe.key)) return;
        const childPath = [...path, pe];
        fieldSetWalk(item, t.element(), childPath, set);
        set.insert(childPath);
      });
      return;
    }
    case 'map': {
      const t = a.map!;
      if (t.relationship === 'atomic') {
        set.insert(path);
        return;
      }
      const m = asMap(value);
      if (m === undefined) return;
      for (const [key, child] of Object.entries(m)) {
        const type = fieldType(t, key);
        if (type === undefined) continue;
        const childPath = [...path, fieldElement(key)];
        fieldSetWalk(child, type, childPath, set);
        if (child === null || (isPlainObject(child) && Object.keys(child).length === 0) || !t.fields.has(key)) set.insert(childPath);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// compare

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Which fields `rhs` adds, modifies and removes relative to `lhs`. */
export function compareValues(lhs: Value, rhs: Value, atom: Atom): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareWalk(lhs, rhs, atom, [], out);
  return out;
}

interface LeafState {
  inLeaf: boolean;
}

type Part = 'map' | 'scalar' | 'list';

/** part(atomFor(atom, value)) without building the narrowed atom (a write compares every field). */
function partFor(atom: Atom, value: Value): Part {
  if (value === null || value === undefined) return part(atom);
  if (Array.isArray(value)) return atom.list !== undefined ? 'list' : part(atom);
  if (typeof value === 'object') return atom.map !== undefined ? 'map' : part(atom);
  return atom.scalar !== undefined ? 'scalar' : part(atom);
}

/** Compares `lhs` and `rhs` at `path`, which it may extend while it runs but leaves as it found it (and never keeps). */
function compareWalk(lhs: Value, rhs: Value, atom: Atom, path: PathElement[], out: Comparison): void {
  const plhs = partFor(atom, lhs);
  const prhs = partFor(atom, rhs);
  const state: LeafState = { inLeaf: false };
  if (rhs === undefined) compareAtom(plhs, atom, lhs, rhs, path, out, state);
  else if (lhs === undefined || plhs === prhs) compareAtom(prhs, atom, lhs, rhs, path, out, state);
  else {
    compareAtom(plhs, atom, lhs, rhs, path, out, { inLeaf: false });
    compareAtom(prhs, atom, lhs, rhs, path, out, state);
  }
  if (!state.inLeaf) {
    if (lhs === undefined) out.added.insert(path);
    else if (rhs === undefined) out.removed.insert(path);
  }
}

function compareLeaf(lhs: Value, rhs: Value, path: PathElement[], out: Comparison, state: LeafState): void {
  if (state.inLeaf) return;
  state.inLeaf = true;
  if (lhs === undefined) out.added.insert(path);
  else if (rhs === undefined) out.removed.insert(path);
  else if (!equalJson(lhs, rhs)) out.modified.insert(path);
}

/** Compares by `part` of `a` (the part atomFor picks for the value; `a.list`/`a.map` are set for those parts). */
function compareAtom(p: Part, a: Atom, lhs: Value, rhs: Value, path: PathElement[], out: Comparison, state: LeafState): void {
  switch (p) {
    case 'scalar':
      compareLeaf(lhs, rhs, path, out, state);
      return;
    case 'list': {
      const t = a.list!;
      const l = asList(lhs);
      const r = asList(rhs);
      const bothEmpty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
      if (t.relationship === 'atomic' || bothEmpty) {
        compareLeaf(lhs, rhs, path, out, state);
        return;
      }
      compareListItems(t, l ?? [], r ?? [], path, out);
      return;
    }
    case 'map': {
      const t = a.map!;
      const l = asMap(lhs);
      const r = asMap(rhs);
      const bothEmpty = (l === undefined || isEmptyMap(l)) && (r === undefined || isEmptyMap(r));
      if (t.relationship === 'atomic' || bothEmpty) {
        compareLeaf(lhs, rhs, path, out, state);
        return;
      }
      // The keys of l, then those only r has (in their orders).
      if (l !== undefined) {
        for (const key of Object.keys(l)) {
          compareField(t, key, l[key], r !== undefined && Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined, path, out);
        }
      }
      if (r !== undefined) {
        for (const key of Object.keys(r)) {
          if (l === undefined || !Object.prototype.hasOwnProperty.call(l, key)) compareField(t, key, undefined, r[key], path, out);
        }
      }
    }
  }
}

function compareField(t: MapAtom, key: string, lv: Value, rv: Value, path: PathElement[], out: Comparison): void {
  path.push(fieldElement(key));
  compareWalk(lv, rv, fieldType(t, key) ?? UNTYPED, path, out);
  path.pop();
}

function groupItems(t: ListAtom, list: unknown[]): Map<string, { pe: PathElement; items: unknown[] }> {
  const groups = new Map<string, { pe: PathElement; items: unknown[] }>();
  for (const item of list) {
    const pe = listItemElement(t, item);
    if (typeof pe === 'string') continue;
    const g = groups.get(pe.key);
    if (g === undefined) groups.set(pe.key, { pe, items: [item] });
    else g.items.push(item);
  }
  return groups;
}

function compareListItems(t: ListAtom, lhs: unknown[], rhs: unknown[], path: PathElement[], out: Comparison): void {
  const left = groupItems(t, lhs);
  const right = groupItems(t, rhs);
  const all = [...left.values()].map((g) => g.pe);
  for (const g of right.values()) if (!left.has(g.pe.key)) all.push(g.pe);
  const element = t.element();
  for (const pe of all) {
    const l = left.get(pe.key)?.items ?? [];
    const r = right.get(pe.key)?.items ?? [];
    const childPath = [...path, pe];
    if (l.length <= 1 && r.length <= 1) {
      compareWalk(l[0], r[0], element, childPath, out);
    } else if (l.length >= 2 && r.length >= 2) {
      if (l.length !== r.length || l.some((x, i) => !equalJson(x, r[i]))) out.modified.insert(childPath);
    } else if (l.length >= 2) {
      if (r.length !== 0) compareWalk(undefined, r[0], element, childPath, out);
      out.removed.insert(childPath);
    } else {
      if (l.length !== 0) compareWalk(l[0], undefined, element, childPath, out);
      out.added.insert(childPath);
    }
  }
}

// ---------------------------------------------------------------------------------------
// validation of an applied configuration

/**
 * The problems structured-merge-diff reports when it types an applied configuration:
 * associative list items without their keys, of the wrong shape, or repeated. Each is
 * `<path>: <message>` (e.g. `.metadata.ownerReferences: duplicate entries for key [uid="1"]`).
 */
export function validateForApply(value: Value, atom: Atom): string[] {
  const errors: string[] = [];
  validateWalk(value, atom, [], errors);
  return errors;
}

function validateWalk(value: Value, atom: Atom, path: PathElement[], errors: string[]): void {
  if (value === null || value === undefined) return;
  const a = atomFor(atom, value);
  const p = part(a);
  if (p === 'list' && Array.isArray(value)) {
    const t = a.list!;
    if (t.relationship === 'atomic') return;
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const pe = listItemElement(t, item);
      if (typeof pe === 'string') {
        errors.push(`${pathString(path)}: element ${i}: ${pe}`);
        return;
      }
      if (seen.has(pe.key)) {
        errors.push(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
        return;
      }
      seen.add(pe.key);
      validateWalk(item, t.element(), [...path, pe], errors);
    });
  } else if (p === 'map' && isPlainObject(value)) {
    const t = a.map!;
    if (t.relationship === 'atomic') return;
    for (const [key, child] of Object.entries(value)) {
      const type = fieldType(t, key);
      if (type !== undefined) validateWalk(child, type, [...path, fieldElement(key)], errors);
    }
  }
}

// ---------------------------------------------------------------------------------------
// merge

/** `rhs` merged into `lhs` (rhs wins at leaves); undefined when both are absent or the merge is empty. */
export function mergeValues(lhs: Value, rhs: Value, atom: Atom): Value {
  // The rhs decides which part of the atom merges (a changed type is taken from rhs).
  return mergeAtom(atomFor(atom, rhs === undefined ? lhs : rhs), lhs, rhs);
}

function keepRhs(lhs: Value, rhs: Value): Value {
  return rhs !== undefined ? rhs : lhs;
}

function mergeAtom(a: Atom, lhs: Value, rhs: Value): Value {
  switch (part(a)) {
    case 'scalar':
      return keepRhs(lhs, rhs);
    case 'list': {
      const t = a.list!;
      const l = asList(lhs);
      const r = asList(rhs);
      const bothEmpty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
      if (t.relationship === 'atomic' || bothEmpty) return keepRhs(lhs, rhs);
      return mergeListItems(t, l ?? [], r ?? []);
    }
    case 'map': {
      const t = a.map!;
      const l = asMap(lhs);
      const r = asMap(rhs);
      const bothEmpty = (l === undefined || isEmptyMap(l)) && (r === undefined || isEmptyMap(r));
      if (t.relationship === 'atomic' || bothEmpty) return keepRhs(lhs, rhs);
      const out: Record<string, unknown> = {};
      for (const key of new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})])) {
        const type = fieldType(t, key) ?? UNTYPED;
        const lv = l !== undefined && Object.prototype.hasOwnProperty.call(l, key) ? l[key] : undefined;
        const rv = r !== undefined && Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined;
        const merged = mergeValues(lv, rv, type);
        if (merged !== undefined) out[key] = merged;
      }
      return Object.keys(out).length > 0 ? out : undefined;
    }
  }
}

/**
 * smd's list merge: items of `lhs` keep their places; items of `rhs` are merged into the
 * matching ones, and new ones are inserted following rhs's order relative to shared items.
 */
function mergeListItems(t: ListAtom, lhs: unknown[], rhs: unknown[]): Value {
  const element = t.element();
  const rhsPEs: PathElement[] = [];
  const observedRHS = new Map<string, unknown>();
  for (const item of rhs) {
    const pe = listItemElement(t, item);
    if (typeof pe === 'string') continue;
    if (observedRHS.has(pe.key)) continue;
    observedRHS.set(pe.key, item);
    rhsPEs.push(pe);
  }
  const lhsPEs: PathElement[] = [];
  const observedLHS = new Map<string, unknown>();
  const lhsItems: unknown[] = [];
  for (const item of lhs) {
    const pe = listItemElement(t, item);
    if (typeof pe === 'string') continue;
    // A repeated item is merged as if it were null (kube drops the duplicates' contents).
    observedLHS.set(pe.key, observedLHS.has(pe.key) ? null : item);
    lhsPEs.push(pe);
    lhsItems.push(item);
  }
  const sharedOrder = rhsPEs.filter((pe) => observedLHS.has(pe.key));
  let nextShared = sharedOrder.shift();
  const mergedRHS = new Set<string>();
  const out: unknown[] = [];
  const push = (v: Value) => {
    if (v !== undefined) out.push(v);
  };
  let lI = 0;
  let rI = 0;
  while (lI < lhsPEs.length || rI < rhsPEs.length) {
    if (lI < lhsPEs.length && rI < rhsPEs.length) {
      const pe = lhsPEs[lI]!;
      if (pe.key === rhsPEs[rI]!.key) {
        mergedRHS.add(pe.key);
        push(mergeValues(observedLHS.get(pe.key), observedRHS.get(pe.key), element));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (observedRHS.has(pe.key) && nextShared !== undefined && nextShared.key !== pe.key) {
        lI++;
        continue;
      }
    }
    if (lI < lhsPEs.length) {
      const pe = lhsPEs[lI]!;
      if (!observedRHS.has(pe.key)) {
        push(mergeValues(lhsItems[lI], undefined, element));
        lI++;
        continue;
      } else if (mergedRHS.has(pe.key)) {
        lI++;
      }
    }
    if (rI < rhsPEs.length) {
      const pe = rhsPEs[rI]!;
      mergedRHS.add(pe.key);
      const l = observedLHS.has(pe.key) ? observedLHS.get(pe.key) : undefined;
      push(mergeValues(l, observedRHS.get(pe.key), element));
      rI++;
      if (nextShared !== undefined && nextShared.key === pe.key) nextShared = sharedOrder.shift();
    }
  }
  return out.length > 0 ? out : undefined;
}

// ---------------------------------------------------------------------------------------
// remove

/**
 * `value` without the paths in `toRemove` (a member removes the whole subtree). A map or
 * list that ends up empty becomes null, as in structured-merge-diff.
 */
export function removeItems(value: Value, toRemove: FieldSet, atom: Atom): Value {
  const a = atomFor(atom, value);
  switch (part(a)) {
    case 'scalar':
      return value;
    case 'list': {
      const t = a.list!;
      if (!Array.isArray(value) || value.length === 0 || t.relationship === 'atomic') return null;
      const out: unknown[] = [];
      for (const item of value) {
        const pe = listItemElement(t, item);
        if (typeof pe === 'string') {
          out.push(item);
          continue;
        }
        if (toRemove.members.has(pe.key)) continue;
        const subset = toRemove.withPrefix(pe);
        out.push(subset.isEmpty() ? item : removeItems(item, subset, t.element()));
      }
      return out.length > 0 ? out : null;
    }
    case 'map': {
      const t = a.map!;
      if (!isPlainObject(value) || isEmptyMap(value) || t.relationship === 'atomic') return null;
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        const pe = fieldElement(key);
        if (toRemove.members.has(pe.key)) continue;
        const subset = toRemove.withPrefix(pe);
        out[key] = subset.isEmpty() ? child : removeItems(child, subset, fieldType(t, key) ?? UNTYPED);
      }
      return Object.keys(out).length > 0 ? out : null;
    }
  }
}

/**
 * smd's EnsureNamedFieldsAreMembers: every struct field that has children in `set` becomes
 * a member too (so removing it removes the whole field).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, atom: Atom | undefined): FieldSet {
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const [k, child] of set.children) {
    let childAtom: Atom | undefined;
    if (child.pe.kind === 'field' && atom?.map !== undefined) {
      if (atom.map.fields.has(child.pe.name)) out.members.set(k, child.pe);
      childAtom = fieldType(atom.map, child.pe.name);
    } else if (child.pe.kind === 'key' && atom?.list !== undefined) {
      childAtom = atom.list.element();
    }
    out.children.set(k, { pe: child.pe, set: ensureNamedFieldsAreMembers(child.set, childAtom) });
  }
  return out;
}

export type { Path };
