/**
 * Query-parameter decoding and validation for the resource verbs, as kube's parameter codec
 * converts `url.Values` into its option structs: a parameter is read from its first value;
 * booleans are true unless "0" or "false" (any case) — `watch=abc` is a watch, as in kube;
 * integers go through Go's strconv.ParseInt (int64), whose error text is the whole 400
 * BadRequest message (`strconv.ParseInt: parsing "abc": invalid syntax`, also for an empty
 * value). Values kube's option validation rejects are 422 Invalid against
 * `CreateOptions.meta.k8s.io` (or Update/Patch/Delete/ListOptions).
 */
import type { FieldError } from '@kapi/machinery';
import {
  badRequest,
  fieldForbidden,
  goQuote,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  invalid,
  isPlainObject,
  parseFieldSelector,
  parseLabelSelector,
} from '@kapi/machinery';
import type { DeleteOptions, FieldValidation, ListOptions, WriteOptions } from '@kapi/registry';
import { isTrueFlag } from '../http/request-info.js';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const FIELD_MANAGER_MAX_LENGTH = 128;
const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'];

function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function dryRunErrors(values: readonly string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [{ type: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${goStringSlice(values)}: supported values: "All"` }];
}

function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldTooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of manager) {
    if (/[\p{C}]/u.test(ch) && ch !== ' ') {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldInvalid('fieldManager', manager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errs;
}

/** kube's query-to-bool conversion: present means true unless it is "0" or "false" (any case). */
function parseBool(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  return isTrueFlag(raw);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An int64 parameter (kube's Convert_Slice_string_To_int64): undefined when absent; 400 with
 * strconv.ParseInt's text when present but not a base-10 int64 (an empty value included).
 * Values beyond 2^53 lose precision (they mean "no limit" wherever kube takes them).
 */
function parseInt64(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!/^[+-]?[0-9]+$/.test(raw)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(raw)}: invalid syntax`);
  const value = BigInt(raw);
  if (value < INT64_MIN || value > INT64_MAX) throw badRequest(`strconv.ParseInt: parsing ${goQuote(raw)}: value out of range`);
  return Number(value);
}

/**
 * dryRun, fieldManager and fieldValidation of a write, validated in kube's order (422
 * `<kind>.meta.k8s.io "" is invalid: ...`): for PatchOptions first the patch rules
 * (`fieldManager` required for apply, `force` forbidden otherwise), then fieldManager,
 * dryRun and fieldValidation. `patchType` is the patch media type (PatchOptions only).
 */
export function parseWriteOptions(query: URLSearchParams, kind: OptionsKind, warn: (message: string) => void, patchType?: string): WriteOptions & { force?: boolean } {
  const dryRun = query.getAll('dryRun');
  const fieldManager = query.get('fieldManager') ?? '';
  const fieldValidation = query.get('fieldValidation') ?? '';
  const errs: FieldError[] = [];
  const isApply = patchType === 'application/apply-patch+yaml';
  if (kind === 'PatchOptions') {
    if (isApply) {
      if (fieldManager === '') errs.push(fieldRequired('fieldManager', 'is required for apply patch'));
    } else if (query.has('force')) {
      errs.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
    }
  }
  errs.push(...fieldManagerErrors(fieldManager), ...dryRunErrors(dryRun));
  if (!FIELD_VALIDATION_VALUES.includes(fieldValidation)) {
    errs.push(fieldNotSupported('fieldValidation', fieldValidation, FIELD_VALIDATION_VALUES));
  }
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind }, '', errs);
  const force = isApply ? parseBool(query, 'force') : undefined;
  return {
    dryRun: dryRun.length > 0,
    ...(fieldManager !== '' ? { fieldManager } : {}),
    fieldValidation: (fieldValidation === '' ? 'Warn' : fieldValidation) as FieldValidation,
    warn,
    ...(force !== undefined ? { force } : {}),
  };
}

export interface ParsedListOptions extends ListOptions {
  watch: boolean;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/**
 * List/watch query parameters, converted in kube's order: timeoutSeconds and limit (400
 * strconv.ParseInt), then the label and field selectors (400 with the parser's text).
 */
export function parseListOptions(query: URLSearchParams): ParsedListOptions {
  const options: ParsedListOptions = { watch: parseBool(query, 'watch') ?? false };
  const timeoutSeconds = parseInt64(query, 'timeoutSeconds');
  const limit = parseInt64(query, 'limit');
  const labelSelector = query.get('labelSelector');
  if (labelSelector !== null && labelSelector !== '') options.labelSelector = parseLabelSelector(labelSelector);
  const fieldSelector = query.get('fieldSelector');
  if (fieldSelector !== null && fieldSelector !== '') options.fieldSelector = parseFieldSelector(fieldSelector);
  if (limit !== undefined && limit > 0) options.limit = limit;
  const cont = query.get('continue');
  if (cont !== null && cont !== '') options.continue = cont;
  const rv = query.get('resourceVersion');
  if (rv !== null) options.resourceVersion = rv;
  const rvMatch = query.get('resourceVersionMatch');
  if (rvMatch !== null && rvMatch !== '') options.resourceVersionMatch = rvMatch as ListOptions['resourceVersionMatch'];
  if (timeoutSeconds !== undefined) options.timeoutSeconds = timeoutSeconds;
  const bookmarks = parseBool(query, 'allowWatchBookmarks');
  if (bookmarks !== undefined) options.allowWatchBookmarks = bookmarks;
  const initial = parseBool(query, 'sendInitialEvents');
  if (initial !== undefined) options.sendInitialEvents = initial;
  return options;
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

function typeError(field: string, value: unknown, goType: string): Error {
  const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
  return badRequest(`json: cannot unmarshal ${actual} into Go struct field DeleteOptions.${field} of type ${goType}`);
}

/** DeleteOptions before validation, with the dryRun values as given. */
type RawDeleteOptions = DeleteOptions & { dryRunValues: readonly string[] };

/**
 * DeleteOptions from the query (kube's url.Values conversion): dryRun, gracePeriodSeconds
 * (400 strconv.ParseInt), orphanDependents, propagationPolicy (present but empty counts, and
 * is refused), and `uid` / `resourceVersion` as preconditions when not empty.
 */
function deleteOptionsFromQuery(query: URLSearchParams): RawDeleteOptions {
  const dryRun = query.getAll('dryRun');
  const options: RawDeleteOptions = { dryRun: dryRun.length > 0, dryRunValues: dryRun };
  const grace = parseInt64(query, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const orphan = parseBool(query, 'orphanDependents');
  if (orphan !== undefined) options.orphanDependents = orphan;
  const policy = query.get('propagationPolicy');
  if (policy !== null) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  const unsafe = parseBool(query, UNSAFE_OPTION);
  if (unsafe !== undefined) options.ignoreStoreReadErrorWithClusterBreakingPotential = unsafe;
  const uid = query.get('uid') ?? '';
  const resourceVersion = query.get('resourceVersion') ?? '';
  if (uid !== '' || resourceVersion !== '') {
    options.preconditions = { ...(uid !== '' ? { uid } : {}), ...(resourceVersion !== '' ? { resourceVersion } : {}) };
  }
  return options;
}

/** DeleteOptions from a decoded body. Throws 400 for a body of the wrong shape. */
function deleteOptionsFromBody(body: unknown): RawDeleteOptions {
  if (!isPlainObject(body)) throw badRequest(`json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type v1.DeleteOptions`);
  const options: RawDeleteOptions = { dryRun: false, dryRunValues: [] };
  const kind = body['kind'];
  if (kind !== undefined && kind !== null && kind !== '' && kind !== 'DeleteOptions') {
    throw badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (DeleteOptions)`);
  }
  const g = body['gracePeriodSeconds'];
  if (g !== undefined && g !== null) {
    if (typeof g !== 'number' || !Number.isInteger(g)) throw typeError('gracePeriodSeconds', g, 'int64');
    options.gracePeriodSeconds = g;
  }
  const p = body['propagationPolicy'];
  if (p !== undefined && p !== null) {
    if (typeof p !== 'string') throw typeError('propagationPolicy', p, 'v1.DeletionPropagation');
    options.propagationPolicy = p as DeleteOptions['propagationPolicy'];
  }
  const o = body['orphanDependents'];
  if (o !== undefined && o !== null) {
    if (typeof o !== 'boolean') throw typeError('orphanDependents', o, 'bool');
    options.orphanDependents = o;
  }
  const unsafe = body[UNSAFE_OPTION];
  if (unsafe !== undefined && unsafe !== null) {
    if (typeof unsafe !== 'boolean') throw typeError(UNSAFE_OPTION, unsafe, 'bool');
    options.ignoreStoreReadErrorWithClusterBreakingPotential = unsafe;
  }
  const d = body['dryRun'];
  if (d !== undefined && d !== null) {
    if (!Array.isArray(d) || d.some((v) => typeof v !== 'string')) throw typeError('dryRun', d, '[]string');
    options.dryRunValues = d as string[];
    options.dryRun = d.length > 0;
  }
  const pre = body['preconditions'];
  if (pre !== undefined && pre !== null) {
    if (!isPlainObject(pre)) throw typeError('preconditions', pre, 'v1.Preconditions');
    const preconditions: { uid?: string; resourceVersion?: string } = {};
    for (const key of ['uid', 'resourceVersion'] as const) {
      const value = pre[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') throw badRequest(`json: cannot unmarshal ${typeof value} into Go struct field Preconditions.preconditions.${key} of type string`);
      preconditions[key] = value;
    }
    options.preconditions = preconditions;
  }
  return options;
}

const UNSAFE_OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/**
 * kube's rules for the unsafe-deletion option when it is true: it goes alone, without the
 * options a normal (graceful, conditional, dry) deletion takes.
 */
function unsafeOptionErrors(options: RawDeleteOptions): FieldError[] {
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential !== true) return [];
  const clashes: [boolean, string][] = [
    [options.dryRunValues.length > 0, 'dryRun'],
    [options.propagationPolicy !== undefined, 'propagationPolicy'],
    [options.orphanDependents !== undefined, 'orphanDependents'],
    [options.gracePeriodSeconds !== undefined, 'gracePeriodSeconds'],
    [options.preconditions !== undefined, 'preconditions'],
  ];
  return clashes.filter(([set]) => set).map(([, field]) => fieldInvalid(UNSAFE_OPTION, true, `cannot be set together with .${field}`));
}

/**
 * DeleteOptions as kube's delete handlers read them: from the body when the request has one
 * (the query is then not read at all), else from the query. Throws 400 for malformed values
 * and 422 (DeleteOptions.meta.k8s.io) for invalid ones. `unsafeDeletion`: the
 * AllowUnsafeMalformedObjectDeletion gate; without it `ignoreStoreReadErrorWithClusterBreakingPotential`
 * is read (a wrong type is still a 400) and dropped, as kube does.
 */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, warn: (message: string) => void, unsafeDeletion = false): DeleteOptions {
  const raw = body !== undefined && body !== null ? deleteOptionsFromBody(body) : deleteOptionsFromQuery(query);
  if (!unsafeDeletion) delete raw.ignoreStoreReadErrorWithClusterBreakingPotential;
  const { dryRunValues, ...options } = raw;
  const errs: FieldError[] = [];
  if (options.orphanDependents !== undefined && options.propagationPolicy !== undefined) {
    errs.push(fieldInvalid('propagationPolicy', options.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (options.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(options.propagationPolicy)) {
    errs.push(fieldNotSupported('propagationPolicy', options.propagationPolicy, [...PROPAGATION_POLICIES, 'nil']));
  }
  errs.push(...dryRunErrors(dryRunValues), ...unsafeOptionErrors(raw));
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  return { ...options, warn };
}
