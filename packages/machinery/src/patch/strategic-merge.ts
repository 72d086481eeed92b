/**
 * Strategic merge patch (application/strategic-merge-patch+json), as kube applies it on the
 * server, with list semantics taken from the schema: `x-kubernetes-patch-strategy` (`merge`,
 * `replace`, `retainKeys`, `merge,retainKeys`) and `x-kubernetes-patch-merge-key`. Lists
 * without the merge strategy are replaced; maps merge; `null` deletes.
 *
 * Directives: `$patch: replace|delete` on a map, `$patch: delete|replace` items in a merge
 * list (`merge` there is refused as kube refuses it), `$retainKeys`,
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`. Resulting order of merge
 * lists follows kube: patch items in patch order, server-only items in their old order,
 * interleaved by their old positions.
 *
 * Errors are StrategicMergeError with kube's texts and the status class kube answers with.
 */
import { goSliceStable } from './go-stable-sort.js';
import type { JSONSchemaProps } from '../schema.js';
import { resolveSchema, type SchemaDefinitions } from '../schema-resolve.js';
import { deepCopy, isPlainObject } from '../object.js';
import { runSteps, runStepsSliced, type Steps } from '../time-slice.js';
import { goFormatValue, goTypeName } from './go-format.js';

const DIRECTIVE = '$patch';
const DELETE = 'delete';
const REPLACE = 'replace';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

export const ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';
export const ERR_NO_LIST_OF_LISTS = 'lists of lists are not supported';

/**
 * A patch kube cannot apply. `kind`: `BadRequest` (400, malformed directives), `Invalid`
 * (kube's 422 with a generic message: lists of lists), or `Failed` (kube answers these with
 * a 500; kapi reports them as 400 with kube's text).
 */
export class StrategicMergeError extends Error {
  constructor(
    message: string,
    readonly kind: 'BadRequest' | 'Invalid' | 'Failed',
  ) {
    super(message);
    this.name = 'StrategicMergeError';
  }
}

const failed = (message: string) => new StrategicMergeError(message, 'Failed');
const badArgType = (expected: string, actual: unknown) => failed(`expected a ${expected}, but received a ${goTypeName(actual)}`);
const noMergeKey = (m: Record<string, unknown>, key: string) => failed(`map: ${goFormatValue(m)} does not contain declared merge key: ${key}`);
const badPatchType = (t: unknown, m: Record<string, unknown>) => failed(`unknown patch type: ${typeof t === 'string' ? t : goFormatValue(t)} in map: ${goFormatValue(m)}`);

type JsonMap = Record<string, unknown>;

interface FieldMeta {
  readonly lookup: PatchSchema;
  readonly strategies: readonly string[];
  readonly mergeKey: string;
}

/** Patch metadata lookups over a structural schema (kube's LookupPatchMeta). */
class PatchSchema {
  private resolved: JSONSchemaProps | undefined;

  constructor(
    private readonly schema: JSONSchemaProps | undefined,
    private readonly definitions: SchemaDefinitions | undefined,
    readonly name: string,
  ) {}

  private get self(): JSONSchemaProps {
    this.resolved ??= this.schema === undefined ? {} : resolveSchema(this.schema, this.definitions);
    return this.resolved;
  }

  /** The field `key` of this map/struct: its schema (the item schema for lists), strategy and merge key. */
  field(key: string): FieldMeta {
    const s = this.self;
    const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    const raw = s.properties?.[key] ?? additional;
    if (raw === undefined) return { lookup: new PatchSchema(undefined, this.definitions, key), strategies: [], mergeKey: '' };
    const prop = resolveSchema(raw, this.definitions);
    const strategy = prop['x-kubernetes-patch-strategy'];
    const target = prop.type === 'array' ? prop.items : prop;
    return {
      lookup: new PatchSchema(target, this.definitions, key),
      strategies: strategy === undefined || strategy === '' ? [] : strategy.split(','),
      mergeKey: prop['x-kubernetes-patch-merge-key'] ?? '',
    };
  }
}

/** The non-retainKeys strategy of a field (`merge`, `replace` or ""). */
function fieldStrategy(strategies: readonly string[]): string {
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === RETAIN_KEYS_STRATEGY ? '' : strategies[0]!;
    case 2:
      if (strategies[0] === RETAIN_KEYS_STRATEGY) return strategies[1]!;
      if (strategies[1] === RETAIN_KEYS_STRATEGY) return strategies[0]!;
      throw failed(`unexpected patch strategy: [${strategies.join(' ')}]`);
    default:
      throw failed(`unexpected patch strategy: [${strategies.join(' ')}]`);
  }
}

/**
 * Applies `patch` to `original` (the current object) and returns the result. Neither input
 * is mutated. `schema` describes the whole object; `$ref`s resolve against `definitions`.
 * Throws StrategicMergeError.
 */
export function strategicMergePatch(original: JsonMap, patch: JsonMap, schema: JSONSchemaProps, definitions?: SchemaDefinitions): JsonMap {
  return runSteps(strategicMergeSteps(original, patch, schema, definitions));
}

/** `strategicMergePatch` that lets other work have the event loop between copying and merging once the turn has run long. */
export function strategicMergePatchSliced(original: JsonMap, patch: JsonMap, schema: JSONSchemaProps, definitions?: SchemaDefinitions): Promise<JsonMap> {
  return runStepsSliced(strategicMergeSteps(original, patch, schema, definitions));
}

function* strategicMergeSteps(original: JsonMap, patch: JsonMap, schema: JSONSchemaProps, definitions?: SchemaDefinitions): Steps<JsonMap> {
  const lookup = new PatchSchema(schema, definitions, '');
  const target = deepCopy(original);
  yield;
  const changes = deepCopy(patch);
  yield;
  return mergeMap(target, changes, lookup);
}

/** Go's reflect kind of a decoded JSON value, for "same type" checks. */
function goKind(v: unknown): string {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (isPlainObject(v)) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

function mergeMap(original: JsonMap | undefined, patch: JsonMap, lookup: PatchSchema): JsonMap {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === REPLACE) {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === DELETE) return {};
    throw badPatchType(directive, patch);
  }
  const out = original ?? {};
  applyRetainKeys(out, patch);
  applySetElementOrder(out, patch, lookup);
  for (const key of Object.keys(patch)) {
    const patchValue = patch[key];
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = extractKey(key, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete out[k];
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(out, k) || goKind(out[k]) !== goKind(patchValue)) {
      if (!isDeleteList) setWithoutDirectives(out, k, discardNulls(patchValue));
      continue;
    }
    const kind = goKind(patchValue);
    if (kind === 'map') {
      const meta = lookup.field(k);
      const strategy = fieldStrategy(meta.strategies);
      out[k] = strategy === REPLACE ? patchValue : mergeMap(out[k] as JsonMap, patchValue as JsonMap, meta.lookup);
    } else if (kind === 'slice') {
      const meta = lookup.field(k);
      const strategy = fieldStrategy(meta.strategies);
      out[k] =
        strategy === MERGE || isDeleteList ? mergeSlice(out[k] as unknown[], patchValue as unknown[], meta.lookup, meta.mergeKey, isDeleteList) : patchValue;
    } else {
      setWithoutDirectives(out, k, patchValue);
    }
  }
  return out;
}

function setWithoutDirectives(target: JsonMap, key: string, value: unknown): void {
  const [v, keep] = removeDirectives(value);
  if (keep) target[key] = v;
  else delete target[key];
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw new StrategicMergeError(prefix === DELETE_FROM_PRIMITIVE_LIST ? ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST : ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER, 'BadRequest');
  }
  return s.slice(slash + 1);
}

/** `$retainKeys`: keys of `original` not listed are dropped; the patch may only set listed keys. */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new StrategicMergeError(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS, 'BadRequest');
  const keep = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw new StrategicMergeError(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS, 'BadRequest');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** `$setElementOrder/<field>`: merges that field's list now and orders it as listed. */
function applySetElementOrder(original: JsonMap, patch: JsonMap, lookup: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = Object.prototype.hasOwnProperty.call(original, field);
    const foundPatch = Object.prototype.hasOwnProperty.call(patch, field);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      if (!Array.isArray(original[field])) throw badArgType('[]interface {}', original[field]);
      originalList = original[field] as unknown[];
    }
    if (foundPatch) {
      if (!Array.isArray(patch[field])) throw badArgType('[]interface {}', patch[field]);
      patchList = patch[field] as unknown[];
    }
    const meta = lookup.field(field);
    const strategy = fieldStrategy(meta.strategies);
    validatePatchWithSetOrder(patchList, order, meta.mergeKey);
    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) {
      const [v, keep] = removeDirectives(patchList);
      if (!keep) continue;
      merged = v as unknown[];
    } else if (foundOriginal && foundPatch) {
      merged = strategy === MERGE ? mergeSlice(originalList, patchList, meta.lookup, meta.mergeKey, false) : patchList;
    } else continue;
    const [patchItems, serverOnly] = meta.mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const kind = sliceElementKind(originalList, patchList);
    original[field] = normalizeElementOrder(patchItems, serverOnly, order, originalList, meta.mergeKey, kind);
    delete patch[field];
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isPlainObject(left)) throw badArgType('map[string]interface {}', left);
  if (!isPlainObject(right)) throw badArgType('map[string]interface {}', right);
  if (!(mergeKey in left)) throw noMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function validatePatchWithSetOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey !== '' ? splitDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < nonDelete.length && o < order.length) {
    if (isPlainObject(nonDelete[p]) && DIRECTIVE in (nonDelete[p] as JsonMap)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < nonDelete.length && o >= order.length) {
    throw failed(`The order in patch list:\n${goFormatValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormatValue(order)}\n`);
  }
}

/** Items that are `$patch: delete` directives, and the rest. */
function splitDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const rest: unknown[] = [];
  const deletes: unknown[] = [];
  for (const v of list) {
    if (!isPlainObject(v)) throw badArgType('map[string]interface {}', v);
    if (v[DIRECTIVE] === DELETE) deletes.push(v);
    else rest.push(v);
  }
  return [rest, deletes];
}

function partitionPrimitives(list: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const present = new Set(by);
  return [list.filter((v) => present.has(v)), list.filter((v) => !present.has(v))];
}

function partitionMaps(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  const index = new MergeKeyIndex(by, mergeKey);
  for (const v of list) {
    if (!isPlainObject(v)) throw badArgType('map[string]interface {}', v);
    if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
    if (index.find(v[mergeKey]) >= 0) inPatch.push(v);
    else serverOnly.push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * kube's findMapInSliceBasedOnKeyValue over one list, answered from an index built once (a
 * scan per lookup made merging two lists of n items O(n²)): the first item whose `key` is
 * `value`; an item that is not a map fails every lookup that would have scanned past it.
 */
class MergeKeyIndex {
  private readonly first = new Map<unknown, number>();
  private notMap = -1;

  constructor(
    list: readonly unknown[],
    private readonly key: string,
  ) {
    list.forEach((item, i) => {
      if (this.notMap < 0) this.add(item, i);
    });
  }

  /** Records `item` at `index` (items are added in list order). */
  add(item: unknown, index: number): void {
    if (this.notMap >= 0) return;
    if (!isPlainObject(item)) {
      this.notMap = index;
      return;
    }
    if (this.key in item && !this.first.has(item[this.key])) this.first.set(item[this.key], index);
  }

  find(value: unknown): number {
    const found = this.first.get(value);
    if (found !== undefined) return found;
    if (this.notMap >= 0) throw failed(`value for key ${this.notMap} is not a map`);
    return -1;
  }
}

/** The common Go kind of the elements (kube's sliceElementType); throws for mixed kinds and lists of lists. */
function sliceElementKind(...slices: unknown[][]): string {
  let kind: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const k = goKind(v);
      if (kind === undefined) {
        if (k === 'slice') throw new StrategicMergeError(ERR_NO_LIST_OF_LISTS, 'Invalid');
        if (k === 'nil') throw failed(`list element types are not identical: ${goFormatValue(slices)}`);
        kind = k;
      } else if (kind !== k) {
        throw failed(`list element types are not identical: ${goFormatValue(slices)}`);
      }
    }
  }
  if (kind === undefined) throw failed('no elements in any of the given slices');
  return kind;
}

function mergeSlice(original: unknown[], patch: unknown[], lookup: PatchSchema, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) {
      const remove = new Set(patch);
      return original.filter((v) => !remove.has(v));
    }
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw failed(`cannot merge lists without merge key for ${lookup.name}`);
    [original, patch] = applySpecialElements(original, patch, mergeKey);
    merged = mergeByKey(original, patch, mergeKey, lookup);
  }
  const [patchItems, serverOnly] = mergeKey === '' ? partitionPrimitives(merged, patch) : partitionMaps(merged, patch, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
}

/** `$patch: delete` items delete matching originals; `$patch: replace` makes the rest of the patch the list. */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  const deleted = new Set<unknown>();
  let replace = false;
  for (const v of patch) {
    const item = v as JsonMap;
    if (!(DIRECTIVE in item)) {
      plain.push(v);
      continue;
    }
    switch (item[DIRECTIVE]) {
      case DELETE:
        if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
        deleted.add(item[mergeKey]);
        break;
      case REPLACE:
        replace = true;
        break;
      case MERGE:
        throw failed('merging lists cannot yet be specified in the patch');
      default:
        throw badPatchType(item[DIRECTIVE], item);
    }
  }
  if (deleted.size > 0) original = original.filter((o) => !(isPlainObject(o) && mergeKey in o && deleted.has(o[mergeKey])));
  return replace ? [plain, []] : [original, plain];
}

function mergeByKey(original: unknown[], patch: unknown[], mergeKey: string, lookup: PatchSchema): unknown[] {
  const out = [...original];
  const index = new MergeKeyIndex(out, mergeKey);
  for (const v of patch) {
    const item = v as JsonMap;
    if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    const i = index.find(item[mergeKey]);
    if (i >= 0) out[i] = mergeMap(out[i] as JsonMap, item, lookup);
    else index.add(v, out.push(v) - 1);
  }
  return out;
}

/**
 * kube's in-place scalar de-duplication: for each element in turn, every later duplicate is
 * overwritten by the last element (the list shrinks by one each time). Same result, but each
 * value's positions are tracked instead of rescanning the list (kube's loop is O(n²)).
 */
export function deduplicateScalars(s: unknown[]): unknown[] {
  const out = [...s];
  if (new Set(out).size === out.length) return out;
  const positions = new Map<unknown, Set<number>>();
  out.forEach((v, i) => {
    const at = positions.get(v);
    if (at === undefined) positions.set(v, new Set([i]));
    else at.add(i);
  });
  let last = out.length - 1;
  for (let i = 0; i < last; i++) {
    const value = out[i];
    const mine = positions.get(value)!;
    const later = [...mine].filter((j) => j > i).sort((a, b) => a - b);
    for (const j of later) {
      if (j > last) break;
      // out[j] is a duplicate: the last element moves in (and is looked at again if it is one too).
      for (;;) {
        if (j === last) {
          mine.delete(j);
          out.length = last--;
          break;
        }
        const moved = out[last];
        out[j] = moved;
        out.length = last;
        if (moved === value) {
          mine.delete(last--);
          continue;
        }
        const theirs = positions.get(moved)!;
        theirs.delete(last--);
        theirs.add(j);
        mine.delete(j);
        break;
      }
    }
  }
  return out;
}

/** index(list, item) of kube's strategic merge, answered from a map built once: the first position of each item's key. */
function positionsIn(list: unknown[], mergeKey: string, kind: string): (value: unknown) => number {
  const key = (item: unknown) => (kind === 'map' ? (isPlainObject(item) ? item[mergeKey] : undefined) : item);
  const first = new Map<unknown, number>();
  list.forEach((item, i) => {
    const k = key(item);
    if (!first.has(k)) first.set(k, i);
  });
  return (value) => first.get(key(value)) ?? -1;
}

function normalizeElementOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: string): unknown[] {
  const p = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSorted(s, p, serverOrder, mergeKey, kind);
}

function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: string): unknown[] {
  let deletes: unknown[] = [];
  let items = toSort;
  if (kind === 'map') {
    for (const list of [toSort, order]) {
      for (const v of list) {
        if (!isPlainObject(v)) throw badArgType('map[string]interface {}', v);
        if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
      }
    }
    [items, deletes] = splitDeleteItems(toSort);
  }
  const indexOf = positionsIn(order, mergeKey, kind);
  const less = (a: unknown, b: unknown) => {
    const ia = indexOf(a);
    if (ia >= 0) {
      const ib = indexOf(b);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  return [...goSliceStable([...items], less), ...deletes];
}

/** Merges server-only items (`left`) and patch items (`right`) by their positions in the old list. */
function mergeSorted(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: string): unknown[] {
  const out: unknown[] = [];
  const indexOf = positionsIn(serverOrder, mergeKey, kind);
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(left[i]);
      const ri = indexOf(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Removes maps carrying `$patch` (at any depth). Returns the value and whether to keep it. */
function removeDirectives(value: unknown): [unknown, boolean] {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const [nv, keep] = removeDirectives(v);
      if (keep) out.push(nv);
    }
    return [out, true];
  }
  if (isPlainObject(value)) {
    if (DIRECTIVE in value) return [undefined, false];
    for (const k of Object.keys(value)) {
      const [nv, keep] = removeDirectives(value[k]);
      if (keep) value[k] = nv;
      else delete value[k];
    }
    return [value, true];
  }
  return [value, true];
}

/** Null members of maps are dropped (a new value cannot delete what does not exist). */
function discardNulls(value: unknown): unknown {
  if (Array.isArray(value)) value.forEach(discardNulls);
  else if (isPlainObject(value)) {
    for (const k of Object.keys(value)) {
      if (value[k] === null) delete value[k];
      else discardNulls(value[k]);
    }
  }
  return value;
}
