/**
 * events.k8s.io Events (v1, and the deprecated v1beta1): the same stored objects as core v1
 * Events (kube's cohabitating resources: one etcd prefix `events`, stored as core v1), seen
 * with the field names of the events API (kube's pkg/apis/events conversion):
 *
 *   involvedObject → regarding            message → note
 *   source → deprecatedSource              reportingComponent → reportingController
 *   firstTimestamp → deprecatedFirstTimestamp, lastTimestamp → deprecatedLastTimestamp,
 *   count → deprecatedCount; eventTime, series, action, reason, related, type,
 *   reportingInstance keep their names.
 *
 * Every field has a home in both forms, so a round trip is lossless without annotations.
 * Validation (kube's ValidateEventCreate/Update): v1beta1 requests get core v1's legacy
 * rules only; v1 requests also the strict ones (eventTime required, type Normal or Warning,
 * the deprecated fields unset on create, series count ≥ 2, most fields immutable). Field
 * selectors: kube's events.k8s.io label conversion (regarding.*, reason,
 * reportingController, type; not source, which only core v1 names), evaluated on the stored core form. Tables: kube's
 * event printer (the same storage answers both groups).
 */
import type { FieldError, KubeObject, PrinterColumn } from '@kapi/machinery';
import { wireMessage } from '@kapi/catalog';
import { fieldInvalid, fieldRequired, goQuote } from '@kapi/machinery';
import type { FieldGetter, VersionDefinition } from '../../definition.js';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt, stringAt } from '../../builtin/builtin-strategy.js';
import { schemaOf } from '../../builtin/schemas.js';
import { eventColumns } from '../core/event-columns.js';
import { eventSelectableFields, legacyEventErrors } from '../core/events.js';
import { semanticEqual } from '../../semantic-equal.js';

/** [events.k8s.io name, core v1 name], in the order of kube's events.k8s.io Event struct. */
const EVENTS_FIELDS: readonly (readonly [string, string])[] = [
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['regarding', 'involvedObject'],
  ['related', 'related'],
  ['note', 'message'],
  ['type', 'type'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

/** The order of kube's core v1 Event struct. */
const CORE_ORDER = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'series',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

const TYPE_META = ['apiVersion', 'kind', 'metadata'];

/** `obj` with fields renamed by `names` (from → to), ordered as `order`; other fields kept after them. */
function renamed(obj: KubeObject, names: ReadonlyMap<string, string>, order: readonly string[]): KubeObject {
  const out: Record<string, unknown> = {};
  for (const key of TYPE_META) if (key in obj) out[key] = obj[key];
  const byTarget = new Map<string, unknown>();
  const rest: [string, unknown][] = [];
  for (const [key, value] of Object.entries(obj)) {
    if (TYPE_META.includes(key)) continue;
    const to = names.get(key);
    if (to !== undefined) byTarget.set(to, value);
    else rest.push([key, value]);
  }
  for (const key of order) if (byTarget.has(key)) out[key] = byTarget.get(key);
  for (const [key, value] of rest) if (!(key in out)) out[key] = value;
  return out as KubeObject;
}

const TO_EVENTS = new Map(EVENTS_FIELDS.map(([events, core]) => [core, events]));
const TO_CORE = new Map(EVENTS_FIELDS.map(([events, core]) => [events, core]));
const EVENTS_ORDER = EVENTS_FIELDS.map(([events]) => events);

const SCALAR_ZERO: Readonly<Partial<Record<string, unknown>>> = { string: '', int32: 0, int64: 0, bool: false };

/**
 * The `omitempty` scalars of kube's events.k8s.io Event with their zero values (from the
 * generated wire facts): Go leaves them out of JSON when zero. Their core v1 counterparts are
 * always written (and stored as Go's protobuf writes them: "" and 0), so the renamed object
 * drops them.
 */
let omitZero: readonly (readonly [string, unknown])[] | undefined;
const eventsOmitZero = () =>
  (omitZero ??= (wireMessage('k8s.io.api.events.v1.Event')?.fields ?? []).flatMap((f) =>
    f.presence === 'omitempty' && f.container === undefined && f.json !== undefined && f.kind in SCALAR_ZERO ? [[f.json, SCALAR_ZERO[f.kind]] as const] : [],
  ));

/** A core v1 Event in the events.k8s.io form (a new top-level object; nested values shared). */
export function coreEventToEventsApi(obj: KubeObject): KubeObject {
  const out = renamed(obj, TO_EVENTS, EVENTS_ORDER) as Record<string, unknown>;
  for (const [field, zero] of eventsOmitZero()) if (out[field] === zero) delete out[field];
  return out as KubeObject;
}

/** An events.k8s.io Event in the core v1 form (a new top-level object; nested values shared). */
export function eventsApiToCoreEvent(obj: KubeObject): KubeObject {
  return renamed(obj, TO_CORE, CORE_ORDER);
}

const coreGetter = (field: string): FieldGetter => eventSelectableFields[field]!;

/** kube's AddFieldLabelConversionsForEvent (events.k8s.io name → the core field set). */
export const eventsApiSelectableFields: Record<string, FieldGetter> = {
  reason: coreGetter('reason'),
  'regarding.kind': coreGetter('involvedObject.kind'),
  'regarding.namespace': coreGetter('involvedObject.namespace'),
  'regarding.name': coreGetter('involvedObject.name'),
  'regarding.uid': coreGetter('involvedObject.uid'),
  'regarding.apiVersion': coreGetter('involvedObject.apiVersion'),
  'regarding.resourceVersion': coreGetter('involvedObject.resourceVersion'),
  'regarding.fieldPath': coreGetter('involvedObject.fieldPath'),
  reportingController: coreGetter('reportingComponent'),
  type: coreGetter('type'),
};

/** kube's event printer over the events.k8s.io form (the cells read the core form). */
export const eventsApiColumns: readonly PrinterColumn[] = eventColumns.map((c) => ({
  definition: c.definition,
  cell: (obj: KubeObject, now: number) => c.cell(eventsApiToCoreEvent(obj), now),
}));

const EVENT_TYPES = ['Normal', 'Warning'];
const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';

function seriesErrors(obj: KubeObject): FieldError[] {
  const series = recordAt(obj, 'series');
  if (series === undefined) return [];
  const errs: FieldError[] = [];
  const count = typeof series['count'] === 'number' ? series['count'] : 0;
  if (count < 2) errs.push(fieldInvalid('series.count', '', 'should be at least 2'));
  if (!isSet(series['lastObservedTime'])) errs.push(fieldRequired('series.lastObservedTime'));
  return errs;
}

/** kube's ValidateEventCreate for events.k8s.io/v1 requests beyond the legacy rules (paths of the internal type). */
function strictCreateErrors(obj: KubeObject): FieldError[] {
  const errs = seriesErrors(obj);
  if (!isSet(obj['eventTime'])) errs.push(fieldRequired('eventTime'));
  const type = stringAt(obj, ['type']) ?? '';
  if (!EVENT_TYPES.includes(type)) errs.push(fieldInvalid('type', '', `has invalid value: ${type}`));
  if (isSet(obj['firstTimestamp'])) errs.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (isSet(obj['lastTimestamp'])) errs.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof obj['count'] === 'number' && obj['count'] !== 0) errs.push(fieldInvalid('count', '', 'needs to be unset'));
  if ((stringAt(obj, ['source', 'component']) ?? '') !== '' || (stringAt(obj, ['source', 'host']) ?? '') !== '') {
    errs.push(fieldInvalid('source', '', 'needs to be unset'));
  }
  return errs;
}

/** Go's time.Time.String() of an RFC 3339 timestamp ("2024-01-01 00:00:00.5 +0000 UTC"); the zero time when absent. */
function goTime(value: unknown): string {
  const m = typeof value === 'string' ? /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(value) : null;
  if (m === null) return '0001-01-01 00:00:00 +0000 UTC';
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  return `${m[1]} ${m[2]}${fraction === '' ? '' : `.${fraction}`} +0000 UTC`;
}

/** `%#v` of a struct of string fields (kube's internal type, e.g. core.ObjectReference). */
function goStruct(type: string, fields: readonly [string, string][], value: unknown): string {
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const parts = fields.map(([goName, json]) => `${goName}:${goQuote(typeof record[json] === 'string' ? record[json] : '')}`);
  return `${type}{${parts.join(', ')}}`;
}

const OBJECT_REFERENCE_FIELDS: readonly [string, string][] = [
  ['Kind', 'kind'],
  ['Namespace', 'namespace'],
  ['Name', 'name'],
  ['UID', 'uid'],
  ['APIVersion', 'apiVersion'],
  ['ResourceVersion', 'resourceVersion'],
  ['FieldPath', 'fieldPath'],
];

const goString = (value: unknown) => goQuote(typeof value === 'string' ? value : '');

/**
 * The fields kube's ValidateEventUpdate keeps immutable for events.k8s.io/v1, in its order
 * (core names; reason twice, as kube checks it), with how kube's field.Invalid prints the
 * new value of the internal type (strings quoted, Times as time.Time.String(), structs %#v).
 */
const IMMUTABLE: readonly [field: string, path: string, format: (value: unknown) => string][] = [
  ['involvedObject', 'involvedObject', (v) => goStruct('core.ObjectReference', OBJECT_REFERENCE_FIELDS, v)],
  ['reason', 'reason', goString],
  ['message', 'message', goString],
  ['source', 'source', (v) => goStruct('core.EventSource', [['Component', 'component'], ['Host', 'host']], v)],
  ['firstTimestamp', 'firstTimestamp', goTime],
  ['lastTimestamp', 'lastTimestamp', goTime],
  ['count', 'count', (v) => String(typeof v === 'number' ? v : 0)],
  ['reason', 'reason', goString],
  ['type', 'type', goString],
  ['eventTime', 'eventTime', goTime],
  ['action', 'action', goString],
  ['related', 'related', (v) => (v === undefined || v === null ? 'null' : goStruct('core.ObjectReference', OBJECT_REFERENCE_FIELDS, v))],
  ['reportingComponent', 'reportingController', goString],
  ['reportingInstance', 'reportingInstance', goString],
];

function strictUpdateErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = semanticEqual(obj['series'], old['series']) ? [] : seriesErrors(obj);
  for (const [field, path, format] of IMMUTABLE) {
    if (!semanticEqual(obj[field], old[field])) errs.push({ type: 'FieldValueInvalid', field: path, message: `Invalid value: ${format(obj[field])}: field is immutable` });
  }
  return errs;
}

const strategy = builtinStrategy({
  validateCreate: (obj, version) => [...legacyEventErrors(obj), ...(version === 'v1' ? strictCreateErrors(obj) : [])],
  validateUpdate: (obj, old, version) => [...legacyEventErrors(obj), ...(version === 'v1' ? strictUpdateErrors(obj, old) : [])],
});

const toCore = (obj: KubeObject) => eventsApiToCoreEvent(obj);
const fromCore = (obj: KubeObject) => coreEventToEventsApi(obj);

/**
 * Deprecated in 1.22, removed from kube's serving in 1.25; kapi (emulating 1.32) still serves
 * it, with kube's deprecation warning, until disabled by --runtime-config.
 */
const v1beta1: VersionDefinition = {
  name: 'v1beta1',
  served: true,
  storage: false,
  schema: schemaOf('io.k8s.api.events.v1beta1.Event'),
  deprecated: { deprecatedRelease: '1.22', removedRelease: '1.25', replacement: { group: 'events.k8s.io', version: 'v1', kind: 'Event' } },
  fromStorage: fromCore,
  toStorage: toCore,
};

/**
 * events.k8s.io Events: every version converts to and from the core v1 storage form; v1 is
 * the version whose form the storage form answers to (`storage: true`), v1beta1 is kapi's
 * deprecated extra.
 */
export const eventsApiOverride: ResourceOverride = (generated) => ({
  ...generated,
  versions: [...generated.versions.map((v) => ({ ...v, storage: v.name === 'v1', fromStorage: fromCore, toStorage: toCore })), v1beta1],
  selectableFields: eventsApiSelectableFields,
  printerColumns: eventsApiColumns,
  strategy,
});
