/**
 * goTypedView and omitEmptyGoCollections are compiled per message (closures per field); this
 * checks they give exactly what the direct reading of the wire facts gives (the references
 * below, the implementation before it was compiled), on objects generated from the wire facts of every built-in kind: fields set,
 * zero, empty, null and absent, lists and maps of structs, named slices and inline members.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogKinds, wireMessage, type WireField } from '@kapi/catalog';
import { goTypedView, omitEmptyGoCollections } from './go-typed-view.js';

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
function referenceView(message: string, obj: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Json = {};
  if (obj['apiVersion'] !== undefined) out['apiVersion'] = obj['apiVersion'];
  if (obj['kind'] !== undefined) out['kind'] = obj['kind'];
  return viewMessage(message, obj, out);
}


function referenceOmit(message: string, value: unknown): void {
  if (!isRecord(value)) return;
  for (const field of wireMessage(message)?.fields ?? []) {
    if (field.inline === true) {
      referenceOmit(field.message!, value);
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
    if (field.container === 'list' && Array.isArray(v)) for (const item of v) referenceOmit(field.message!, item);
    else if (field.container === 'map' && isRecord(v)) for (const item of Object.values(v)) referenceOmit(field.message!, item);
    else if (field.container === undefined) referenceOmit(field.message!, v);
  }
}

/** A small seeded PRNG (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function scalarSample(field: WireField, rnd: () => number): unknown {
  const zero = rnd() < 0.3;
  switch (field.kind) {
    case 'string':
      return zero ? '' : 's';
    case 'bytes':
      return zero ? '' : 'Ynl0ZXM=';
    case 'int32':
    case 'int64':
    case 'double':
      return zero ? 0 : 7;
    case 'bool':
      return !zero;
    case 'quantity':
      return '1Gi';
    case 'intOrString':
      return zero ? 80 : 'http';
    case 'duration':
      return '5s';
    case 'time':
    case 'microTime':
      return '2026-11-27T00:00:00Z';
    default:
      return zero ? {} : { any: ['thing', { nested: 1 }] };
  }
}

function itemSample(field: WireField, rnd: () => number, depth: number): unknown {
  if (rnd() < 0.1) return null;
  if (field.kind !== 'message') return scalarSample(field, rnd);
  const named = wireMessage(field.message!)?.listOf;
  if (named !== undefined) return rnd() < 0.2 ? [] : [itemSample(named, rnd, depth + 1)];
  return sample(field.message!, rnd, depth + 1);
}

function fieldSample(field: WireField, rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (r < 0.1) return null;
  if (field.container === 'list') return r < 0.25 ? [] : [itemSample(field, rnd, depth), itemSample(field, rnd, depth)];
  if (field.container === 'map') return r < 0.25 ? {} : { a: itemSample(field, rnd, depth), b: itemSample(field, rnd, depth) };
  return itemSample(field, rnd, depth);
}

function fill(name: string, rnd: () => number, depth: number, out: Record<string, unknown>): void {
  for (const field of wireMessage(name)?.fields ?? []) {
    if (field.inline === true) {
      fill(field.message!, rnd, depth, out);
      continue;
    }
    if (rnd() < 0.3) continue;
    out[field.json!] = fieldSample(field, rnd, depth);
  }
}

function sample(name: string, rnd: () => number, depth: number): unknown {
  if (depth > 4) return rnd() < 0.5 ? {} : 'not a struct';
  const out: Record<string, unknown> = rnd() < 0.05 ? { unknownKey: 1 } : {};
  fill(name, rnd, depth, out);
  return out;
}

void describe('goTypedView and omitEmptyGoCollections, compiled', () => {
  void it('gives what the wire facts read directly give, for generated objects of every built-in kind', () => {
    const messages = [...new Set(catalogKinds().map((k) => k.protobuf).filter((m): m is string => typeof m === 'string' && m !== ''))];
    assert.ok(messages.length > 50, `${messages.length} messages`);
    let compared = 0;
    for (const message of messages) {
      assert.deepStrictEqual(goTypedView(message, {}), referenceView(message, {}), message);
      for (let seed = 1; seed <= 12; seed++) {
        const obj = { apiVersion: 'v', kind: 'K', ...(sample(message, prng(seed), 0) as Record<string, unknown>) };
        assert.deepStrictEqual(goTypedView(message, obj), referenceView(message, obj), `${message} seed ${seed}`);
        const omitted = structuredClone(obj);
        const expected = structuredClone(obj);
        omitEmptyGoCollections(message, omitted);
        referenceOmit(message, expected);
        assert.deepStrictEqual(omitted, expected, `omitEmptyGoCollections: ${message} seed ${seed}`);
        compared++;
      }
    }
    assert.deepStrictEqual(goTypedView('no.such.Message', { apiVersion: 'v', a: 1 }), referenceView('no.such.Message', { apiVersion: 'v', a: 1 }));
    assert.ok(compared > 600);
  });
});
