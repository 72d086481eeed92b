/**
 * kube's FieldManager for one resource (the chain in apimachinery's managedfields):
 * `trackUpdate` records a non-apply write (POST, PUT, non-apply PATCH) in
 * `metadata.managedFields`; `applyConfiguration` runs server-side apply. Both keep kube's
 * bookkeeping: manager identity (manager + operation + apiVersion + subresource; Apply
 * entries without apiVersion), the metadata fields nobody owns, `time` only when that
 * manager's fields (Update) or the object (Apply) changed, at most 10 Update entries, the
 * reset with `[]`/`[{}]`, no tracking for existing objects without managedFields, the
 * `before-first-apply` manager, and kubectl's last-applied interplay.
 */
import type { KubeObject } from '../object.js';
import { deepCopy, isPlainObject } from '../object.js';
import { nowRFC3339 } from '../names.js';
import { StatusError, badRequest } from '../status.js';
import { FieldSet } from './field-set.js';
import { goJson } from './json-value.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  printManager,
  type Managed,
} from './managed-fields.js';
import { fieldElement, pathString, type Path } from './path-element.js';
import type { Atom } from './schema-type.js';
import { runSteps, runStepsSliced, type Steps } from '../time-slice.js';
import { compareValues, toFieldSet, validateForApply } from './typed.js';
import { ApplyConflictError, applyConfigSteps, updateManagerSteps, type Conflict, type UpdaterOptions } from './updater.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';
const FIELD_MANAGER_MAX_LENGTH = 128;

export interface FieldManagerScope {
  /** The schema atom of the whole object (`schemaAtom(schema, definitions)`). */
  readonly atom: Atom;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** "" (or absent) for the main resource. */
  readonly subresource?: string;
  /** Fields this write path resets (kube's ResetFieldsStrategy), never owned by anyone. */
  readonly resetFields?: FieldSet;
  /** The clock (RFC 3339, seconds); default now. */
  readonly now?: () => string;
  /**
   * How the kind's typed values show an object, for kinds with Go types (see
   * protobuf/go-typed-view.ts): kube compares typed objects, so an Update records what
   * changed between the Go views of the old object (a create's is the Go zero object) and
   * the new one. Absent for custom resources, which are compared as sent.
   */
  readonly typedView?: (obj: Record<string, unknown>) => Record<string, unknown>;
}

/** Paths no manager owns (kube's stripMeta): apiVersion, kind, metadata itself and its server fields. */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (f) => [fieldElement('metadata'), fieldElement(f)],
  ),
);

function groupVersion(scope: FieldManagerScope): string {
  return scope.group === '' ? scope.version : `${scope.group}/${scope.version}`;
}

/** managerFromUserAgent's recent answers by User-Agent: a client sends the same one with every write. */
const managersByUserAgent = new Map<string, string>();
/** Distinct User-Agents remembered before the memo starts over, and the longest one remembered. */
const MANAGER_MEMO_SIZE = 256;
const MANAGER_MEMO_AGENT_LENGTH = 512;

/** The manager name for writes without fieldManager: the User-Agent before its first "/", printable characters only, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const agent = userAgent ?? '';
  if (agent.length > MANAGER_MEMO_AGENT_LENGTH) return managerOf(agent);
  let manager = managersByUserAgent.get(agent);
  if (manager === undefined) {
    if (managersByUserAgent.size >= MANAGER_MEMO_SIZE) managersByUserAgent.clear();
    managersByUserAgent.set(agent, (manager = managerOf(agent)));
  }
  return manager;
}

function managerOf(userAgent: string): string {
  const prefix = userAgent.split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** The object without managedFields, for comparisons (a shallow copy when it has any). */
function withoutManagedFields(obj: KubeObject | Record<string, unknown>): Record<string, unknown> {
  const meta = obj['metadata'];
  if (!isPlainObject(meta) || !('managedFields' in meta)) return obj;
  const { managedFields: _managedFields, ...rest } = meta;
  return { ...obj, metadata: rest };
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

function setManagedFields(obj: KubeObject, managed: Managed): void {
  const entries = encodeManagedFields(managed);
  if (entries === undefined) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = entries;
}

function options(scope: FieldManagerScope): UpdaterOptions {
  return { atom: scope.atom, resetFields: scope.resetFields };
}

function stripped(managed: Managed, id: string): void {
  const versioned = managed.sets.get(id);
  if (versioned === undefined) return;
  const set = versioned.set.difference(STRIPPED);
  if (set.isEmpty()) managed.sets.delete(id);
  else managed.sets.set(id, { ...versioned, set });
}

/**
 * The Update step below the decode/encode layer: the write as "current-operation", folded
 * into `manager`'s entry (whose time changes only when the write changed its fields), then
 * the cap on Update managers. Mutates `managed`.
 */
function* recordUpdate(
  scope: FieldManagerScope,
  managed: Managed,
  live: Record<string, unknown>,
  next: Record<string, unknown>,
  manager: string,
): Steps<void> {
  const id = managerIdentifier({ manager: manager === '' ? 'unknown' : manager, operation: 'Update', apiVersion: groupVersion(scope), subresource: scope.subresource ?? '' });
  const view = scope.typedView;
  if (view !== undefined) {
    live = view(live);
    next = view(withoutManagedFields(next));
    yield;
  }
  const sets = yield* updateManagerSteps(options(scope), live, next, groupVersion(scope), managed.sets, CURRENT_OPERATION);
  managed.sets.clear();
  for (const [k, v] of sets) managed.sets.set(k, v);
  stripped(managed, CURRENT_OPERATION);
  const current = managed.sets.get(CURRENT_OPERATION);
  if (current !== undefined) {
    managed.sets.delete(CURRENT_OPERATION);
    const previous = managed.sets.get(id);
    managed.sets.set(id, { set: previous === undefined ? current.set : current.set.union(previous.set), apiVersion: current.apiVersion, applied: false });
    managed.times.set(id, (scope.now ?? nowRFC3339)());
  }
  capUpdateManagers(managed);
}

/**
 * Records a non-apply write of `next` over `live` (undefined for a create) by `manager`
 * (already defaulted from the User-Agent; "" becomes `unknown`). Replaces
 * `next.metadata.managedFields` in place. Request managedFields are honoured on the main
 * resource when valid (`[]` or `[{}]` resets tracking), else the live ones are kept; an
 * existing object without managedFields stays untracked. Never throws.
 */
export function trackUpdate(scope: FieldManagerScope, live: KubeObject | undefined, next: KubeObject, manager: string): void {
  runSteps(trackUpdateSteps(scope, live, next, manager));
}

/** `trackUpdate` that lets other work have the event loop between its steps once the turn has run long. */
export function trackUpdateSliced(scope: FieldManagerScope, live: KubeObject | undefined, next: KubeObject, manager: string): Promise<void> {
  return runStepsSliced(trackUpdateSteps(scope, live, next, manager));
}

function* trackUpdateSteps(scope: FieldManagerScope, live: KubeObject | undefined, next: KubeObject, manager: string): Steps<void> {
  const liveEntries = live?.metadata.managedFields;
  let managed: Managed;
  const requested = next.metadata.managedFields;
  if (scope.subresource !== undefined && scope.subresource !== '') managed = decodeOrEmpty(liveEntries);
  else if (isResetManagedFields(requested)) managed = emptyManaged();
  else {
    try {
      managed = decodeManagedFields(requested);
      if (managed.sets.size === 0) managed = decodeOrEmpty(liveEntries);
    } catch {
      managed = decodeOrEmpty(liveEntries);
    }
  }
  delete next.metadata.managedFields;
  const liveUid = live?.metadata.uid;
  if (managed.sets.size === 0 && typeof liveUid === 'string' && liveUid !== '') return;
  yield;
  yield* recordUpdate(scope, managed, live === undefined ? {} : withoutManagedFields(live), next, manager);
  yield;
  setManagedFields(next, managed);
}

/** The 409 of an apply that changes fields other managers own. */
export function applyConflictError(conflicts: readonly Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  } else {
    const byManager = new Map<string, Path[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
    const lines: string[] = [];
    for (const manager of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const p of byManager.get(manager)!) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError({ code: 409, reason: 'Conflict', message, details: { causes } });
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const group = slash >= 0 ? av.slice(0, slash) : '';
  const version = slash >= 0 ? av.slice(slash + 1) : av;
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

export interface ApplyOutcome {
  /** The object to persist: the live object merged with the configuration, with managedFields. */
  readonly object: KubeObject;
  /** False for a no-op apply (nothing but possibly ownership changed... and nothing at all when equal). */
  readonly changed: boolean;
}

/**
 * Server-side apply of `config` (the decoded apply-patch body) by `manager` onto `live`
 * (undefined: the object does not exist yet). Returns a new object; never mutates inputs.
 * Throws 400 for a configuration of another kind/version, one that carries managedFields,
 * or whose lists cannot be keyed; 409 (FieldManagerConflict causes) for conflicts unless
 * `force`. For manager `kubectl`, conflicts with fields the live last-applied annotation
 * still describes are forced, and an existing last-applied annotation is refreshed.
 */
export function applyConfiguration(
  scope: FieldManagerScope,
  live: KubeObject | undefined,
  config: Record<string, unknown>,
  manager: string,
  force: boolean,
): ApplyOutcome {
  return runSteps(applyConfigurationSteps(scope, live, config, manager, force));
}

/** `applyConfiguration` that lets other work have the event loop between its steps once the turn has run long. */
export function applyConfigurationSliced(
  scope: FieldManagerScope,
  live: KubeObject | undefined,
  config: Record<string, unknown>,
  manager: string,
  force: boolean,
): Promise<ApplyOutcome> {
  return runStepsSliced(applyConfigurationSteps(scope, live, config, manager, force));
}

function* applyConfigurationSteps(
  scope: FieldManagerScope,
  live: KubeObject | undefined,
  config: Record<string, unknown>,
  manager: string,
  force: boolean,
): Steps<ApplyOutcome> {
  const gv = groupVersion(scope);
  if (config['apiVersion'] !== gv || config['kind'] !== scope.kind) {
    throw badRequest(`invalid object type: ${gvkString(config['apiVersion'], config['kind'])}`);
  }
  const meta = config['metadata'];
  if (isPlainObject(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const problems = validateForApply(config, scope.atom);
  yield;
  if (problems.length > 0) {
    const name = isPlainObject(meta) && typeof meta['name'] === 'string' ? meta['name'] : '';
    const namespace = isPlainObject(meta) && typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
    throw badRequest(`failed to create typed patch object (${namespace}/${name}; ${gvkString(gv, scope.kind)}): ${problems.join('\n')}`);
  }
  let outcome: ApplyOutcome;
  try {
    outcome = yield* applyOnce(scope, live, config, manager, force);
  } catch (err) {
    if (!(err instanceof ApplyConflictError)) throw err;
    if (manager !== 'kubectl' || live === undefined || !conflictsAllowedByLastApplied(scope, live, err.conflicts)) {
      throw applyConflictError(err.conflicts);
    }
    outcome = yield* applyOnce(scope, live, config, manager, true);
  }
  const annotations = outcome.object.metadata.annotations;
  if (manager === 'kubectl' && isPlainObject(annotations) && typeof annotations[LAST_APPLIED_ANNOTATION] === 'string' && annotations[LAST_APPLIED_ANNOTATION] !== '') {
    const applied = deepCopy(config);
    const appliedMeta = isPlainObject(applied['metadata']) ? applied['metadata'] : undefined;
    if (appliedMeta !== undefined && isPlainObject(appliedMeta['annotations'])) {
      delete appliedMeta['annotations'][LAST_APPLIED_ANNOTATION];
    }
    const value = `${goJson(applied)}\n`;
    if (annotations[LAST_APPLIED_ANNOTATION] !== value) {
      annotations[LAST_APPLIED_ANNOTATION] = value;
      return { object: outcome.object, changed: true };
    }
  }
  return outcome;
}

function* applyOnce(
  scope: FieldManagerScope,
  live: KubeObject | undefined,
  config: Record<string, unknown>,
  manager: string,
  force: boolean,
): Steps<ApplyOutcome> {
  const liveValue: Record<string, unknown> = live === undefined ? {} : withoutManagedFields(live);
  let managed = decodeOrEmpty(live?.metadata.managedFields);
  yield;
  if (managed.sets.size === 0) {
    // Whatever exists before the first apply belongs to "before-first-apply".
    managed = emptyManaged();
    yield* recordUpdate(scope, managed, {}, liveValue, BEFORE_FIRST_APPLY);
  }
  const id = managerIdentifier({ manager, operation: 'Apply', subresource: scope.subresource ?? '' });
  const result = yield* applyConfigSteps(options(scope), liveValue, config, groupVersion(scope), managed.sets, id, force);
  const sets = result.managers;
  managed.sets.clear();
  for (const [k, v] of sets) managed.sets.set(k, v);
  stripped(managed, id);
  const changed = result.object !== undefined;
  const object = (changed ? deepCopy(result.object) : deepCopy(liveValue)) as KubeObject;
  yield;
  if (!isPlainObject(object.metadata)) object.metadata = {};
  if (changed) managed.times.set(id, (scope.now ?? nowRFC3339)());
  setManagedFields(object, managed);
  return { object, changed };
}

/**
 * kubectl's client-side → server-side migration: conflicts on fields that the live
 * last-applied annotation still describes unchanged are allowed.
 */
function conflictsAllowedByLastApplied(scope: FieldManagerScope, live: KubeObject, conflicts: readonly Conflict[]): boolean {
  const raw = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (typeof raw !== 'string' || raw === '') return false;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(raw);
  } catch {
    return false;
  }
  if (!isPlainObject(lastApplied) || lastApplied['apiVersion'] !== groupVersion(scope)) return false;
  const liveValue = withoutManagedFields(live);
  const diff = compareValues(lastApplied, liveValue, scope.atom);
  const allowed = toFieldSet(lastApplied, scope.atom).difference(diff.modified).difference(diff.added).difference(diff.removed);
  return conflicts.every((c) => allowed.has(c.path));
}
