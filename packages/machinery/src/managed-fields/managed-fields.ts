/**
 * `metadata.managedFields` entries ↔ field sets by manager (kube's managedfields internal
 * encoding): manager identifiers, decoding with kube's error texts, encoding in kube's sort
 * order, and the cap of 10 Update entries with the oldest merged into `ancient-changes`.
 */
import { isPlainObject } from '../object.js';
import { FieldSet } from './field-set.js';
import type { JsonValue } from './json-value.js';
import type { ManagerSets } from './updater.js';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, JsonValue>;
  subresource?: string;
}

/** Field sets and their last-change times (RFC 3339), by manager identifier. */
export interface Managed {
  readonly sets: ManagerSets;
  readonly times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

/** kube's maximum number of Update entries before the oldest are merged. */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

export interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
}

/**
 * The identity of a manager: its entry without fieldsType, fieldsV1 and time, as compact
 * JSON in Go's field order; Apply entries drop apiVersion (it is not part of their identity).
 */
export function managerIdentifier(info: ManagerInfo): string {
  // A few identities recur on every write (the same clients write again and again).
  const apiVersion = info.apiVersion ?? '';
  const key = `${info.manager.length}:${info.manager}${apiVersion.length}:${apiVersion}${info.operation}/${info.subresource ?? ''}`;
  let id = identifiers.get(key);
  if (id === undefined) {
    if (identifiers.size >= MAX_PARSED_IDENTIFIERS) identifiers.clear();
    id = identifierOf(info);
    identifiers.set(key, id);
  }
  return id;
}

/** managerIdentifier's results by manager, apiVersion, operation and subresource (the first two length-prefixed, so no two infos share a key). */
const identifiers = new Map<string, string>();

function identifierOf(info: ManagerInfo): string {
  const id: Record<string, string> = {};
  if (info.manager !== '') id['manager'] = info.manager;
  id['operation'] = info.operation;
  if (info.operation !== 'Apply' && info.apiVersion !== undefined && info.apiVersion !== '') id['apiVersion'] = info.apiVersion;
  if (info.subresource !== undefined && info.subresource !== '') id['subresource'] = info.subresource;
  return JSON.stringify(id);
}

export function parseManagerIdentifier(id: string): ManagerInfo {
  // A few identifiers recur on every write (each encode parses every entry's identifier).
  let info = parsedIdentifiers.get(id);
  if (info === undefined) {
    if (parsedIdentifiers.size >= MAX_PARSED_IDENTIFIERS) parsedIdentifiers.clear();
    info = Object.freeze(parseIdentifier(id));
    parsedIdentifiers.set(id, info);
  }
  return info;
}

const MAX_PARSED_IDENTIFIERS = 1024;
const parsedIdentifiers = new Map<string, Readonly<ManagerInfo>>();

function parseIdentifier(id: string): ManagerInfo {
  try {
    const parsed = JSON.parse(id) as Partial<ManagerInfo>;
    return {
      manager: parsed.manager ?? '',
      operation: parsed.operation === 'Apply' ? 'Apply' : 'Update',
      ...(parsed.apiVersion !== undefined ? { apiVersion: parsed.apiVersion } : {}),
      ...(parsed.subresource !== undefined ? { subresource: parsed.subresource } : {}),
    };
  } catch {
    return { manager: id, operation: 'Update' };
  }
}

/** How conflict messages name a manager: `"kubectl"`, `"mgr" using v1`, `... with subresource "status"`. */
export function printManager(id: string): string {
  const info = parseManagerIdentifier(id);
  let s = JSON.stringify(info.manager);
  if (info.subresource !== undefined && info.subresource !== '') s = `${s} with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') s = `${s} using ${info.apiVersion ?? ''}`;
  return s;
}

function stringField(entry: Record<string, unknown>, name: string): string {
  const v = entry[name];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new Error(`${name} must be a string`);
  return v;
}

/**
 * Decodes entries (kube's DecodeManagedFields). Throws Error with kube's texts for an
 * operation other than Apply/Update, an empty apiVersion, a missing or unknown fieldsType,
 * or an unreadable field set.
 */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw, i) => {
    if (!isPlainObject(raw)) throw new Error(`managed fields entry ${i} must be an object`);
    const operation = stringField(raw, 'operation');
    if (operation !== 'Apply' && operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    const apiVersion = stringField(raw, 'apiVersion');
    if (apiVersion === '') throw new Error('apiVersion must not be empty');
    const fieldsType = stringField(raw, 'fieldsType');
    if (fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({ manager: stringField(raw, 'manager'), operation, apiVersion, subresource: stringField(raw, 'subresource') });
    let set: FieldSet;
    try {
      set = raw['fieldsV1'] === undefined || raw['fieldsV1'] === null ? new FieldSet() : FieldSet.fromFieldsV1(raw['fieldsV1']);
    } catch (err) {
      throw new Error(`error decoding versioned set: error decoding set: ${(err as Error).message}`);
    }
    managed.sets.set(id, { set, apiVersion, applied: operation === 'Apply' });
    const time = raw['time'];
    managed.times.set(id, typeof time === 'string' && time !== '' ? time : undefined);
  });
  return managed;
}

function unixSeconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

/** Encodes in kube's order: Apply before Update, then by time, manager, apiVersion, subresource. Undefined when there are none. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.sets.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, versioned] of managed.sets) {
    const info = parseManagerIdentifier(id);
    const entry: ManagedFieldsEntry = {};
    if (info.manager !== '') entry.manager = info.manager;
    entry.operation = versioned.applied ? 'Apply' : info.operation;
    if (versioned.apiVersion !== '') entry.apiVersion = versioned.apiVersion;
    const time = managed.times.get(id);
    if (time !== undefined) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = versioned.set.toFieldsV1();
    if (info.subresource !== undefined && info.subresource !== '') entry.subresource = info.subresource;
    entries.push(entry);
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      cmp(p.operation!, q.operation!) ||
      unixSeconds(p.time) - unixSeconds(q.time) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/**
 * At most `max` Update managers: the oldest (by time, then identifier) are merged, per
 * apiVersion, into `ancient-changes` (kube's capManagersManager). Mutates `managed`.
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): void {
  if (managed.sets.size <= max) return;
  const updaters = [...managed.sets.entries()].filter(([, v]) => !v.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const d = unixSeconds(managed.times.get(a)) - unixSeconds(managed.times.get(b));
    return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
  });
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const versioned = managed.sets.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: versioned.apiVersion });
    const first = firstByVersion.get(versioned.apiVersion);
    if (first === undefined) {
      firstByVersion.set(versioned.apiVersion, id);
      continue;
    }
    if (!managed.sets.has(bucket)) {
      const s = managed.sets.get(first)!;
      managed.sets.delete(first);
      managed.sets.set(bucket, s);
    }
    managed.sets.set(bucket, { set: versioned.set.union(managed.sets.get(bucket)!.set), apiVersion: versioned.apiVersion, applied: versioned.applied });
    managed.sets.delete(id);
    length--;
    managed.times.set(bucket, time);
  }
}

/** `[]` or `[{}]`: the client asks to reset field tracking. */
export function isResetManagedFields(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  if (value.length !== 1) return false;
  const entry = value[0];
  return isPlainObject(entry) && Object.values(entry).every((v) => v === undefined || v === null || v === '');
}
