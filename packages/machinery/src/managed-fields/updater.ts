/**
 * The field ownership engine (structured-merge-diff's merge.Updater) for one schema:
 *
 * - `update`: a non-apply write. The writer takes the fields it added or changed; other
 *   managers lose those fields and every removed field; it never conflicts.
 * - `apply`: merges an applied configuration into the live object. The applier owns exactly
 *   the fields of its configuration; fields it applied last time and dropped now are removed
 *   from the object unless another manager owns them; changing a field another manager owns
 *   is a conflict unless `force` (then ownership moves).
 *
 * Managers are keyed by an opaque identifier (see managed-fields.ts). Resources here have
 * one version, so no conversion between versions happens. Pure; inputs are not mutated.
 */
import type { FieldSet } from './field-set.js';
import { equalJson } from './json-value.js';
import type { Path } from './path-element.js';
import type { Atom } from './schema-type.js';
import type { Steps } from '../time-slice.js';
import { compareValues, ensureNamedFieldsAreMembers, mergeValues, removeItems, toFieldSet, type Comparison } from './typed.js';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** True for Apply entries. */
  readonly applied: boolean;
}

/** Field sets by manager identifier. */
export type ManagerSets = Map<string, VersionedSet>;

export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** Apply changed fields other managers own (and force was not given). */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} apply conflicts`);
    this.name = 'ApplyConflictError';
  }
}

export interface UpdaterOptions {
  /** The object's schema atom. */
  readonly atom: Atom;
  /** Fields the write path resets (e.g. status on the main resource): never owned. */
  readonly resetFields?: FieldSet | undefined;
}

function filtered(set: FieldSet, reset: FieldSet | undefined): FieldSet {
  return reset === undefined ? set : set.recursiveDifference(reset);
}

function filterComparison(c: Comparison, reset: FieldSet | undefined): Comparison {
  if (reset === undefined) return c;
  return { added: filtered(c.added, reset), modified: filtered(c.modified, reset), removed: filtered(c.removed, reset) };
}

function conflictsFrom(sets: Map<string, FieldSet>): Conflict[] {
  const out: Conflict[] = [];
  for (const manager of [...sets.keys()].sort()) {
    for (const path of sets.get(manager)!.paths()) out.push({ manager, path });
  }
  return out;
}

/** Ownership changes of a write from `oldObject` to `newObject` for everyone but `workflow`. */
function* reconcile(
  options: UpdaterOptions,
  oldObject: unknown,
  newObject: unknown,
  managers: ManagerSets,
  workflow: string,
  force: boolean,
): Steps<{ managers: ManagerSets; compare: Comparison }> {
  const compare = filterComparison(compareValues(oldObject, newObject, options.atom), options.resetFields);
  yield;
  const changed = compare.modified.union(compare.added);
  const conflicts = new Map<string, FieldSet>();
  const out: ManagerSets = new Map(managers);
  for (const [manager, versioned] of managers) {
    if (manager === workflow) continue;
    const conflict = versioned.set.intersection(changed);
    if (!conflict.isEmpty()) conflicts.set(manager, conflict);
    yield;
  }
  if (!force && conflicts.size > 0) throw new ApplyConflictError(conflictsFrom(conflicts));
  for (const [manager, versioned] of managers) {
    if (manager === workflow) continue;
    let set = versioned.set;
    const conflict = conflicts.get(manager);
    if (conflict !== undefined) set = set.difference(conflict);
    if (!compare.removed.isEmpty()) set = set.difference(compare.removed);
    if (set !== versioned.set) out.set(manager, { ...versioned, set });
    yield;
  }
  for (const [manager, versioned] of out) if (versioned.set.isEmpty()) out.delete(manager);
  return { managers: out, compare };
}

/**
 * In steps (see time-slice.ts): a non-apply write by `manager` from `liveObject` to `newObject` (both whole objects;
 * `liveObject` is `{}`-like for a create). Returns the new manager sets.
 */
export function* updateManagerSteps(
  options: UpdaterOptions,
  liveObject: unknown,
  newObject: unknown,
  version: string,
  managers: ManagerSets,
  manager: string,
): Steps<ManagerSets> {
  const { managers: out, compare } = yield* reconcile(options, liveObject, newObject, managers, manager, true);
  const previous = out.get(manager)?.set;
  let set = (previous === undefined ? compare.modified : previous.difference(compare.removed).union(compare.modified)).union(compare.added);
  set = filtered(set, options.resetFields);
  if (set.isEmpty()) out.delete(manager);
  else out.set(manager, { set, apiVersion: version, applied: false });
  return out;
}

export interface ApplyResult {
  /** The merged object, or undefined when applying changed nothing. */
  readonly object: unknown;
  readonly managers: ManagerSets;
}

/**
 * In steps (see time-slice.ts): `config` applied by `manager` to `liveObject`. Throws ApplyConflictError when it changes
 * fields other managers own and `force` is false.
 */
export function* applyConfigSteps(
  options: UpdaterOptions,
  liveObject: unknown,
  config: unknown,
  version: string,
  managers: ManagerSets,
  manager: string,
  force: boolean,
): Steps<ApplyResult> {
  let merged = mergeValues(liveObject, config, options.atom);
  yield;
  const lastSet = managers.get(manager);
  const withApplier: ManagerSets = new Map(managers);
  withApplier.set(manager, { set: filtered(toFieldSet(config, options.atom), options.resetFields), apiVersion: version, applied: true });
  yield;
  merged = yield* prune(options, merged, withApplier, lastSet);
  const { managers: out } = yield* reconcile(options, liveObject, merged, withApplier, manager, force);
  yield;
  return { object: equalJson(liveObject, merged) ? undefined : merged, managers: out };
}

/**
 * Removes what the applier applied last time and not now, unless another manager (or the
 * new configuration) still owns it; items the applier never owned stay.
 */
function* prune(options: UpdaterOptions, merged: unknown, managers: ManagerSets, lastSet: VersionedSet | undefined): Steps<unknown> {
  if (lastSet === undefined || lastSet.set.isEmpty()) return merged;
  const { atom } = options;
  const ensure = (s: FieldSet) => ensureNamedFieldsAreMembers(s, atom);
  let pruned = removeItems(merged, ensure(lastSet.set), atom);
  yield;
  // Add back what anyone owns.
  let owned: FieldSet | undefined;
  for (const v of managers.values()) owned = owned === undefined ? v.set : owned.union(v.set);
  yield;
  const mergedSet = ensure(toFieldSet(merged, atom));
  yield;
  const prunedSet = ensure(toFieldSet(pruned, atom));
  yield;
  const keep = owned === undefined ? prunedSet : prunedSet.union(ensure(owned));
  pruned = removeItems(merged, mergedSet.difference(keep), atom);
  yield;
  // Add back what the applier never owned (dangling items).
  const prunedSet2 = ensure(toFieldSet(pruned, atom));
  yield;
  return removeItems(merged, mergedSet.difference(prunedSet2).intersection(ensure(lastSet.set)), atom);
}

