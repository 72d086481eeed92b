/**
 * A built-in object as kube's Go types see it, from the catalogue's wire facts: the value a
 * typed Go struct reflects (what structured-merge-diff reads from it, and what encoding/json
 * writes). kube compares these when it tracks managed fields, so a field is "there" exactly
 * when Go has it:
 *   - a value (non-pointer) struct always exists, with its own zero fields, even when the
 *     JSON left it out (`spec`, `template`, `strategy`); a pointer struct exists only when set;
 *   - a list or map without `omitempty` is `null` when nil and kept when empty (`[]`); with
 *     `omitempty` it is absent when empty;
 *   - a scalar without `omitempty` has its zero value ("", 0, false) when absent; with
 *     `omitempty` it is absent when zero; a pointer is absent when nil;
 *   - values with their own JSON form show their zero: metav1.Time and MicroTime `null`,
 *     Quantity "0", IntOrString 0, Duration "0s", RawExtension and JSON `null`.
 * Keys the wire facts do not know are left out (but apiVersion and kind). Pure: returns new objects
 * that share scalar leaves, lists and maps of scalars and the inside of opaque values with the
 * input (treat the view as read-only); never mutates its input.
 */
import { wireMessage, type WireField } from '@kapi/catalog';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a record has no own keys. */
function isEmpty(value: Json): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
}

/** Marks a field Go leaves out. */
const ABSENT = Symbol('absent');

/** The Go view of a message value (anything but a record counts as the zero struct). */
function viewMessage(name: string, value: unknown, out: Json = {}): Json {
  const facts = wireMessage(name);
  if (facts === undefined) return isRecord(value) ? { ...value } : {};
  const input = isRecord(value) ? value : {};
  for (const field of facts.fields ?? []) {
    if (field.inline === true) {
      viewMessage(field.message!, input, out);
      continue;
    }
    const json = field.json!;
    const shown = viewField(field, input[json]);
    if (shown !== ABSENT) out[json] = shown;
  }
  return out;
}

/** A value of a named slice wrapped as a message (`ExtraValue []string`). */
function viewNamedSlice(name: string, value: unknown): unknown {
  const items = wireMessage(name)?.listOf;
  if (items === undefined || !Array.isArray(value)) return value ?? null;
  return value.map((item) => viewItem(items, item));
}

/** A list item or map value. */
function viewItem(field: WireField, item: unknown): unknown {
  if (item === null || item === undefined) return null;
  if (field.kind !== 'message') return item;
  return wireMessage(field.message!)?.listOf !== undefined ? viewNamedSlice(field.message!, item) : viewMessage(field.message!, item);
}

function viewField(field: WireField, value: unknown): unknown {
  const omitempty = field.presence === 'omitempty';
  // Lists and maps of scalars are their own view (shared, not copied: a large ConfigMap's data).
  const scalarItems = field.kind !== 'message';
  if (field.container === 'list') {
    if (Array.isArray(value)) return value.length > 0 ? (scalarItems ? value : value.map((item) => viewItem(field, item))) : omitempty ? ABSENT : [];
    return omitempty || field.presence === 'pointer' ? ABSENT : null;
  }
  if (field.container === 'map') {
    if (isRecord(value)) {
      if (isEmpty(value)) return omitempty ? ABSENT : {};
      if (scalarItems) return value;
      const out: Json = {};
      for (const key of Object.keys(value)) out[key] = viewItem(field, value[key]);
      return out;
    }
    return omitempty || field.presence === 'pointer' ? ABSENT : null;
  }
  if (value === undefined || value === null) return field.presence === 'pointer' ? ABSENT : zeroOf(field, omitempty);
  switch (field.kind) {
    case 'message':
      return wireMessage(field.message!)?.listOf !== undefined ? viewNamedSlice(field.message!, value) : viewMessage(field.message!, value);
    case 'string':
    case 'bytes':
      return omitempty && value === '' ? ABSENT : value;
    case 'int32':
    case 'int64':
    case 'double':
      return omitempty && value === 0 ? ABSENT : value;
    case 'bool':
      return omitempty && value === false ? ABSENT : value;
    default:
      return value;
  }
}

/** What Go shows for a non-pointer field the JSON leaves out. */
function zeroOf(field: WireField, omitempty: boolean): unknown {
  switch (field.kind) {
    case 'message':
      return wireMessage(field.message!)?.listOf !== undefined ? (omitempty ? ABSENT : null) : viewMessage(field.message!, {});
    case 'string':
      return omitempty ? ABSENT : '';
    case 'int32':
    case 'int64':
    case 'double':
      return omitempty ? ABSENT : 0;
    case 'bool':
      return omitempty ? ABSENT : false;
    case 'bytes':
      return omitempty ? ABSENT : null;
    case 'quantity':
      return '0';
    case 'intOrString':
      return 0;
    case 'duration':
      return '0s';
    case 'time':
    case 'microTime':
    case 'rawExtension':
    case 'json':
    case 'fieldsV1':
      return null;
    default:
      return ABSENT;
  }
}

/**
 * The Go view of `obj`, an object of the protobuf message `message` (see the module
 * comment): a new object, its apiVersion and kind first.
 */
export function goTypedView(message: string, obj: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Json = {};
  if (obj['apiVersion'] !== undefined) out['apiVersion'] = obj['apiVersion'];
  if (obj['kind'] !== undefined) out['kind'] = obj['kind'];
  return viewMessage(message, obj, out);
}

/**
 * Removes, in place, the empty lists and maps of `value` (an object of `message`) that Go
 * leaves out of its JSON (`omitempty`), recursively: a decoded Go struct holds nothing else.
 * Empty lists and maps without `omitempty` stay (Go keeps them, and kube's managed fields
 * record them), as do empty structs.
 */
export function omitEmptyGoCollections(message: string, value: unknown): void {
  if (!isRecord(value)) return;
  for (const field of wireMessage(message)?.fields ?? []) {
    if (field.inline === true) {
      omitEmptyGoCollections(field.message!, value);
      continue;
    }
    const json = field.json!;
    const v = value[json];
    if (v === undefined || v === null) continue;
    const empty = Array.isArray(v) ? v.length === 0 : field.container === 'map' && isRecord(v) && isEmpty(v);
    if (empty && field.container !== undefined && field.presence === 'omitempty') {
      delete value[json];
      continue;
    }
    if (field.kind !== 'message' || wireMessage(field.message!)?.listOf !== undefined) continue;
    if (field.container === 'list' && Array.isArray(v)) for (const item of v) omitEmptyGoCollections(field.message!, item);
    else if (field.container === 'map' && isRecord(v)) for (const item of Object.values(v)) omitEmptyGoCollections(field.message!, item);
    else if (field.container === undefined) omitEmptyGoCollections(field.message!, v);
  }
}
