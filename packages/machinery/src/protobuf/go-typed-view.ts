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

/** The view of one value (a field's, a list item's or a map value's); ABSENT when Go leaves it out. */
type Viewer = (value: unknown) => unknown;

/**
 * A message's view, compiled once from its wire facts: the fields in order (inline members
 * flattened into their parent's), each with its own viewer, so a call looks nothing up by name.
 */
interface CompiledMessage {
  /** Whether the wire facts know the message (an unknown one is viewed as a shallow copy). */
  readonly known: boolean;
  readonly jsons: string[];
  readonly viewers: Viewer[];
}

const compiled = new Map<string, CompiledMessage>();

function compileMessage(name: string): CompiledMessage {
  const cached = compiled.get(name);
  if (cached !== undefined) return cached;
  const facts = wireMessage(name);
  const message: CompiledMessage = { known: facts !== undefined, jsons: [], viewers: [] };
  // Registered before its fields compile: messages refer to themselves (JSONSchemaProps).
  compiled.set(name, message);
  if (facts !== undefined) addFields(facts.fields ?? [], message);
  return message;
}

function addFields(fields: readonly WireField[], into: CompiledMessage): void {
  for (const field of fields) {
    if (field.inline === true) {
      // An inline member's fields are read from the parent's record (none when unknown).
      const facts = wireMessage(field.message!);
      if (facts !== undefined) addFields(facts.fields ?? [], into);
      continue;
    }
    into.jsons.push(field.json!);
    into.viewers.push(fieldViewer(field));
  }
}

/** The Go view of a message value (anything but a record counts as the zero struct). */
function viewCompiled(message: CompiledMessage, value: unknown, out: Json): Json {
  if (!message.known) return isRecord(value) ? { ...value } : {};
  const input: Json = isRecord(value) ? value : {};
  const { jsons, viewers } = message;
  for (let i = 0; i < jsons.length; i++) {
    const json = jsons[i]!;
    const shown = viewers[i]!(input[json]);
    if (shown !== ABSENT) out[json] = shown;
  }
  return out;
}

/** Views values of the message `name`, compiled on first use (messages refer to each other). */
function messageViewer(name: string): (value: unknown) => Json {
  let message: CompiledMessage | undefined;
  return (value) => viewCompiled((message ??= compileMessage(name)), value, {});
}

/** Whether `name` is a named slice wrapped as a message (`ExtraValue []string`). */
const isNamedSlice = (name: string): boolean => wireMessage(name)?.listOf !== undefined;

/** A value of a named slice wrapped as a message. */
function namedSliceViewer(name: string): Viewer {
  const item = itemViewer(wireMessage(name)!.listOf!);
  return (value) => (Array.isArray(value) ? value.map(item) : (value ?? null));
}

/** A list item or map value. */
function itemViewer(field: WireField): Viewer {
  if (field.kind !== 'message') return (item) => (item === null || item === undefined ? null : item);
  const name = field.message!;
  let inner: Viewer | undefined;
  const build = (): Viewer => (isNamedSlice(name) ? namedSliceViewer(name) : messageViewer(name));
  return (item) => (item === null || item === undefined ? null : (inner ??= build())(item));
}

function fieldViewer(field: WireField): Viewer {
  const omitempty = field.presence === 'omitempty';
  const missing = omitempty || field.presence === 'pointer' ? ABSENT : null;
  // Lists and maps of scalars are their own view (shared, not copied: a large ConfigMap's data).
  const scalarItems = field.kind !== 'message';
  if (field.container === 'list') {
    const empty = omitempty ? ABSENT : undefined;
    if (scalarItems) return (value) => (Array.isArray(value) ? (value.length > 0 ? value : (empty ?? [])) : missing);
    const item = itemViewer(field);
    return (value) => (Array.isArray(value) ? (value.length > 0 ? value.map(item) : (empty ?? [])) : missing);
  }
  if (field.container === 'map') {
    const empty = omitempty ? ABSENT : undefined;
    if (scalarItems) return (value) => (isRecord(value) ? (isEmpty(value) ? (empty ?? {}) : value) : missing);
    const item = itemViewer(field);
    return (value) => {
      if (!isRecord(value)) return missing;
      if (isEmpty(value)) return empty ?? {};
      const out: Json = {};
      for (const key of Object.keys(value)) out[key] = item(value[key]);
      return out;
    };
  }
  const pointer = field.presence === 'pointer';
  const zero = pointer ? () => ABSENT : zeroViewer(field, omitempty);
  let present: Viewer;
  switch (field.kind) {
    case 'message': {
      const name = field.message!;
      let inner: Viewer | undefined;
      present = (value) => (inner ??= isNamedSlice(name) ? namedSliceViewer(name) : messageViewer(name))(value);
      break;
    }
    case 'string':
    case 'bytes':
      present = omitempty ? (value) => (value === '' ? ABSENT : value) : (value) => value;
      break;
    case 'int32':
    case 'int64':
    case 'double':
      present = omitempty ? (value) => (value === 0 ? ABSENT : value) : (value) => value;
      break;
    case 'bool':
      present = omitempty ? (value) => (value === false ? ABSENT : value) : (value) => value;
      break;
    default:
      present = (value) => value;
  }
  return (value) => (value === undefined || value === null ? zero() : present(value));
}

/** What Go shows for a non-pointer field the JSON leaves out (a fresh struct each time). */
function zeroViewer(field: WireField, omitempty: boolean): () => unknown {
  switch (field.kind) {
    case 'message': {
      const name = field.message!;
      let zero: (() => unknown) | undefined;
      const build = (): (() => unknown) => {
        if (isNamedSlice(name)) return omitempty ? () => ABSENT : () => null;
        const view = messageViewer(name);
        return () => view({});
      };
      return () => (zero ??= build())();
    }
    case 'string':
      return omitempty ? () => ABSENT : () => '';
    case 'int32':
    case 'int64':
    case 'double':
      return omitempty ? () => ABSENT : () => 0;
    case 'bool':
      return omitempty ? () => ABSENT : () => false;
    case 'bytes':
      return omitempty ? () => ABSENT : () => null;
    case 'quantity':
      return () => '0';
    case 'intOrString':
      return () => 0;
    case 'duration':
      return () => '0s';
    case 'time':
    case 'microTime':
    case 'rawExtension':
    case 'json':
    case 'fieldsV1':
      return () => null;
    default:
      return () => ABSENT;
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
  return viewCompiled(compileMessage(message), obj, out);
}

/**
 * Removes, in place, the empty lists and maps of `value` (an object of `message`) that Go
 * leaves out of its JSON (`omitempty`), recursively: a decoded Go struct holds nothing else.
 * Empty lists and maps without `omitempty` stay (Go keeps them, and kube's managed fields
 * record them), as do empty structs.
 */
export function omitEmptyGoCollections(message: string, value: unknown): void {
  if (!isRecord(value)) return;
  for (const step of omitSteps(message)) step(value);
}

/** One field's part of omitEmptyGoCollections, on the record holding it. */
type OmitStep = (value: Json) => void;

const omitCompiled = new Map<string, OmitStep[]>();

/**
 * The steps of omitEmptyGoCollections for a message, compiled once: only the fields that can
 * hold an empty omitempty collection, themselves or below (scalars are skipped outright).
 */
function omitSteps(name: string): OmitStep[] {
  const cached = omitCompiled.get(name);
  if (cached !== undefined) return cached;
  const steps: OmitStep[] = [];
  omitCompiled.set(name, steps);
  for (const field of wireMessage(name)?.fields ?? []) {
    if (field.inline === true) {
      const inner = field.message!;
      steps.push((value) => {
        for (const step of omitSteps(inner)) step(value);
      });
      continue;
    }
    const step = omitStep(field);
    if (step !== undefined) steps.push(step);
  }
  return steps;
}

/** Whether omitEmptyGoCollections can change anything in a value of the message (true inside a cycle). */
const omitReach = new Map<string, boolean>();
function omitCanChange(name: string): boolean {
  const known = omitReach.get(name);
  if (known !== undefined) return known;
  omitReach.set(name, true);
  let reach = false;
  for (const field of wireMessage(name)?.fields ?? []) {
    if (field.inline === true ? omitCanChange(field.message!) : (field.container !== undefined && field.presence === 'omitempty') || descends(field)) reach = true;
  }
  omitReach.set(name, reach);
  return reach;
}

/** Whether omitEmptyGoCollections walks into the field's value (a struct, not a named slice). */
const descends = (field: WireField): boolean => field.kind === 'message' && wireMessage(field.message!)?.listOf === undefined && omitCanChange(field.message!);

function omitStep(field: WireField): OmitStep | undefined {
  const json = field.json!;
  const omits = field.container !== undefined && field.presence === 'omitempty';
  const isMap = field.container === 'map';
  // A struct field (not a named slice) is walked into, as are its lists' items and maps' values.
  const inner = field.kind === 'message' && wireMessage(field.message!)?.listOf === undefined ? field.message! : undefined;
  if (!omits && (inner === undefined || !omitCanChange(inner))) return undefined;
  const walk = (item: unknown): void => {
    if (isRecord(item)) for (const step of omitSteps(inner!)) step(item);
  };
  return (value) => {
    const v = value[json];
    if (v === undefined || v === null) return;
    if (omits && (Array.isArray(v) ? v.length === 0 : isMap && isRecord(v) && isEmpty(v))) {
      delete value[json];
      return;
    }
    if (inner === undefined) return;
    if (field.container === 'list') {
      if (Array.isArray(v)) for (const item of v) walk(item);
    } else if (isMap) {
      if (isRecord(v)) for (const item of Object.values(v)) walk(item);
    } else walk(v);
  };
}
