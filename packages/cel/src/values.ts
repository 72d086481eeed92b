/**
 * JSON values → the CEL engine's values, directed by the declared type: integers become
 * bigint, byte/duration/date/date-time strings become bytes/durations/timestamps, objects
 * become lazy field maps (a field is converted the first time a rule reads it, so a rule
 * touching two fields of a large object converts two fields). The input is never mutated.
 */
import { Optional } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { Authorizer, type CelAuthorizer } from './library/authz.js';
import type { DeclType } from './decl-type.js';

/**
 * A map whose entries are converted when first read (`get`); anything that walks every entry
 * (size, iteration) reads all of `entryNames` first.
 */
abstract class LazyMap extends Map<string, unknown> {
  #complete = false;

  /** The names of every entry the map has once all are read. */
  protected abstract entryNames(): Iterable<string>;

  #fill(): void {
    if (this.#complete) return;
    for (const name of this.entryNames()) this.get(name);
    this.#complete = true;
  }

  override get size(): number { this.#fill(); return super.size; }
  override keys(): MapIterator<string> { this.#fill(); return super.keys(); }
  override values(): MapIterator<unknown> { this.#fill(); return super.values(); }
  override entries(): MapIterator<[string, unknown]> { this.#fill(); return super.entries(); }
  override [Symbol.iterator](): MapIterator<[string, unknown]> { this.#fill(); return super[Symbol.iterator](); }
  override forEach(cb: (value: unknown, key: string, map: Map<string, unknown>) => void): void { this.#fill(); super.forEach(cb); }
}

/** The base of the per-type classes the engine recognises object values by. */
export class CelObject extends LazyMap {
  readonly #raw: Record<string, unknown>;
  readonly #decl: DeclType;
  constructor(decl: DeclType, raw: Record<string, unknown>) {
    super();
    this.#decl = decl;
    this.#raw = raw;
  }

  /** The JSON object this value reads from. */
  get raw(): Record<string, unknown> { return this.#raw; }

  override get(name: string): unknown {
    const cached = super.get(name);
    if (cached !== undefined) return cached;
    const field = this.#decl.fields?.get(name);
    if (!field) return undefined;
    const v = this.#raw[field.jsonName];
    if (v === undefined || v === null) return undefined;
    const converted = toCelValue(v, field.type);
    super.set(name, converted);
    return converted;
  }

  override has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  protected override entryNames(): Iterable<string> {
    return this.#decl.fields?.keys() ?? [];
  }
}

/** The class object values of `decl` are made with; set by the environment that declares it. */
const classes = new WeakMap<DeclType, new (decl: DeclType, raw: Record<string, unknown>) => CelObject>();

export function objectClassFor(decl: DeclType, name: string): new (decl: DeclType, raw: Record<string, unknown>) => CelObject {
  let cls = classes.get(decl);
  if (!cls) {
    cls = { [name]: class extends CelObject {} }[name]!;
    classes.set(decl, cls);
  }
  return cls;
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration into a CEL duration; undefined when the text is not one. */
export function parseGoDuration(text: string): Duration | undefined {
  let s = text;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') { neg = s[0] === '-'; s = s.slice(1); }
  if (s === '0') return new Duration(0, 0);
  if (s === '') return undefined;
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (s.length > 0) {
    const m = re.exec(s);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = BigInt(DURATION_UNITS[m[3]!]!);
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) total += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    s = s.slice(m[0].length);
  }
  if (neg) total = -total;
  const seconds = total / 1_000_000_000n;
  return new Duration(seconds, Number(total - seconds * 1_000_000_000n));
}

/**
 * A JSON object of unknown type as a CEL map, converted lazily: an entry is converted when
 * read, so a policy reading two fields of a large object (VAP's `object`) converts two.
 */
export class DynMap extends LazyMap {
  readonly #raw: Record<string, unknown>;
  constructor(raw: Record<string, unknown>) {
    super();
    this.#raw = raw;
  }

  override get(key: string): unknown {
    const cached = super.get(key);
    if (cached !== undefined) return cached;
    if (!Object.prototype.hasOwnProperty.call(this.#raw, key)) return undefined;
    const v = this.#raw[key];
    if (v === undefined) return undefined;
    const converted = dynToCel(v);
    super.set(key, converted);
    return converted;
  }

  override has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.#raw, key) && this.#raw[key] !== undefined;
  }

  protected override entryNames(): Iterable<string> {
    return Object.keys(this.#raw);
  }
}

// The engine recognises maps by their constructor being Map; a DynMap is one, lazily.
Object.defineProperty(DynMap.prototype, 'constructor', { value: Map });

/** A JSON value of unknown type: integral numbers are ints, objects (lazy) maps, arrays lists. */
export function dynToCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(dynToCel);
  if (v !== null && typeof v === 'object') {
    if (v instanceof Map || v instanceof Uint8Array || v instanceof Date) return v;
    return new DynMap(v as Record<string, unknown>);
  }
  return v;
}

/** Converts a JSON value of declared type `decl` to the engine's value. */
export function toCelValue(v: unknown, decl: DeclType): unknown {
  switch (decl.kind) {
    case 'int': return typeof v === 'number' ? BigInt(Math.trunc(v)) : v;
    case 'double': return typeof v === 'bigint' ? Number(v) : v;
    case 'object': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return dynToCel(v);
      const cls = classes.get(decl);
      return cls ? new cls(decl, v as Record<string, unknown>) : dynToCel(v);
    }
    case 'list': {
      if (!Array.isArray(v)) return dynToCel(v);
      const elem = decl.elem!;
      return v.map((x) => toCelValue(x, elem));
    }
    case 'map': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return dynToCel(v);
      const elem = decl.elem!;
      const m = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined && x !== null) m.set(k, toCelValue(x, elem));
      return m;
    }
    case 'bytes': return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    case 'duration': return typeof v === 'string' ? (parseGoDuration(v) ?? v) : v;
    case 'timestamp': {
      if (typeof v !== 'string') return v;
      const d = new Date(v);
      return Number.isNaN(d.getTime()) ? v : d;
    }
    case 'dyn': return dynToCel(v);
    case 'optional': return v === undefined || v === null ? Optional.none() : Optional.of(toCelValue(v, decl.elem!));
    case 'opaque':
      if (decl.typeName === 'kubernetes.authorization.Authorizer' && !(v instanceof Authorizer)) return new Authorizer(v as CelAuthorizer);
      return v;
    default: return v;
  }
}
