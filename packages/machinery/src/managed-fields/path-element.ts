/**
 * One step of a field path (structured-merge-diff's PathElement): a struct or map field, a
 * keyed item of an associative list, an item of a set list, or a list index. Each element
 * carries its FieldsV1 key (`f:name`, `k:{"name":"c"}`, `v:"a"`, `i:0`), which identifies it
 * in sets. Pure.
 */
import { isPlainObject } from '../object.js';
import { compareJson, compareStrings, goJson, goJsonString, smdValueString, type JsonValue } from './json-value.js';

export type PathElement =
  | { readonly kind: 'field'; readonly name: string; readonly key: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, JsonValue])[]; readonly key: string }
  | { readonly kind: 'value'; readonly value: JsonValue; readonly key: string }
  | { readonly kind: 'index'; readonly index: number; readonly key: string };

export type Path = readonly PathElement[];

const fieldCache = new Map<string, PathElement>();

/** A field element (cached: field names repeat constantly). */
export function fieldElement(name: string): PathElement {
  let pe = fieldCache.get(name);
  if (pe === undefined) {
    pe = { kind: 'field', name, key: `f:${name}` };
    if (fieldCache.size < 10_000) fieldCache.set(name, pe);
  }
  return pe;
}

/** A keyed list item; `fields` in any order (they are sorted by name, as kube sorts them). */
export function keyElement(fields: readonly (readonly [string, JsonValue])[]): PathElement {
  const sorted = [...fields].sort((a, b) => compareStrings(a[0], b[0]));
  const body = sorted.map(([name, value]) => `${goJsonString(name)}:${goJson(value)}`).join(',');
  return { kind: 'key', fields: sorted, key: `k:{${body}}` };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value, key: `v:${goJson(value)}` };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index, key: `i:${index}` };
}

const RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** structured-merge-diff's order: fields, then keys, then values, then indices. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a === b) return 0;
  if (a.kind !== b.kind) return RANK[a.kind] < RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key': {
      const x = a.fields;
      const y = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        if (i >= x.length && i >= y.length) return 0;
        if (i >= x.length) return -1;
        if (i >= y.length) return 1;
        const c = compareStrings(x[i]![0], y[i]![0]) || compareJson(x[i]![1], y[i]![1]);
        if (c !== 0) return c;
      }
    }
    case 'value':
      return compareJson(a.value, (b as typeof a).value);
    case 'index': {
      const j = (b as typeof a).index;
      return a.index < j ? -1 : a.index > j ? 1 : 0;
    }
  }
}

/** The text form used in conflict messages: `.name`, `[name="c"]`, `[=value]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([n, v]) => `${n}=${smdValueString(v)}`).join(',')}]`;
    case 'value':
      return `[=${smdValueString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export function pathString(path: Path): string {
  return path.map(pathElementString).join('');
}

/** Thrown for a FieldsV1 key that cannot be read. */
export class PathElementError extends Error {}

/**
 * Parses a FieldsV1 key. Returns undefined for a well-formed key of an unknown type (kube
 * skips those); throws PathElementError for malformed keys.
 */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementError(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(rest);
    case 'v':
      return valueElement(parseJson(rest));
    case 'k': {
      const obj = parseJson(rest);
      if (!isPlainObject(obj)) throw new PathElementError(`key must be an object: ${s}`);
      return keyElement(Object.entries(obj) as [string, JsonValue][]);
    }
    case 'i': {
      if (!/^[+-]?[0-9]+$/.test(rest)) throw new PathElementError(`strconv.Atoi: parsing ${JSON.stringify(rest)}: invalid syntax`);
      return indexElement(Number(rest));
    }
    default:
      return undefined;
  }
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new PathElementError((err as Error).message);
  }
}
