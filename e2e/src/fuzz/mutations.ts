/**
 * Mutations of a valid object: each picks a place in the object (a walk down by child index,
 * so the same instruction applies to any object) and replaces, removes or renames what is
 * there, or adds an unknown field. Generated independently of the object, so a run replays
 * from its seed alone.
 */
import fc from 'fast-check';
import { DuplicateKeys, RawLiteral } from './wire-text.js';
import { oddValue } from './values.js';

export interface Mutation {
  /** Child indexes of the walk (taken modulo the number of children at each level). */
  readonly walk: readonly number[];
  readonly op: 'replace' | 'remove' | 'add-unknown' | 'rename-case' | 'duplicate-key' | 'set-field';
  readonly value: { label: string; value: unknown };
  /** For set-field: a typed field of some kind (numbers, timestamps, booleans), created if missing. */
  readonly field: readonly string[];
}

/** Typed fields of the kinds served (int32, int64, timestamps, micro timestamps, booleans, byte data), where a wrong value must be refused. */
const TYPED_FIELDS: readonly (readonly string[])[] = [
  ['metadata', 'generation'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'deletionTimestamp'],
  ['metadata', 'deletionGracePeriodSeconds'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'uid'],
  ['metadata', 'ownerReferences'],
  ['spec', 'leaseDurationSeconds'],
  ['spec', 'leaseTransitions'],
  ['spec', 'acquireTime'],
  ['spec', 'renewTime'],
  ['spec', 'size'],
  ['spec', 'replicas'],
  ['spec', 'at'],
  ['spec', 'ratio'],
  ['spec', 'quantity'],
  ['status', 'replicas'],
  ['count'],
  ['firstTimestamp'],
  ['lastTimestamp'],
  ['eventTime'],
  ['deprecatedCount'],
  ['deprecatedFirstTimestamp'],
  ['series', 'count'],
  ['series', 'lastObservedTime'],
  ['immutable'],
  ['automountServiceAccountToken'],
  ['binaryData', 'b'],
  ['data', 'k'],
];

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  walk: fc.array(fc.nat(50), { minLength: 0, maxLength: 5 }),
  op: fc.constantFrom('replace', 'replace', 'replace', 'remove', 'add-unknown', 'rename-case', 'duplicate-key', 'set-field', 'set-field', 'set-field'),
  value: oddValue,
  field: fc.constantFrom(...TYPED_FIELDS),
});

export const mutations = fc.array(mutation, { minLength: 1, maxLength: 3 });

/** A label for the shape report, e.g. `replace:odd-number`. */
export function mutationLabel(m: Mutation): string {
  if (m.op === 'set-field') return `set-field:${m.value.label}`;
  return m.op === 'remove' || m.op === 'rename-case' ? m.op : `${m.op}:${m.value.label}`;
}

type Container = Record<string, unknown> | unknown[];

function isContainer(v: unknown): v is Container {
  return v !== null && typeof v === 'object' && !(v instanceof RawLiteral) && !(v instanceof DuplicateKeys);
}

function keysOf(c: Container): (string | number)[] {
  return Array.isArray(c) ? c.map((_, i) => i) : Object.keys(c);
}

/** Applies `m` to `root` in place (root must be a fresh copy); returns the root (replaced when the walk is empty). */
export function applyMutation(root: unknown, m: Mutation): unknown {
  // A fresh copy: generated values may be shared between runs (constantFrom), and a later
  // mutation may change what this one inserts (it must not change the arbitrary's constant).
  const value = copy(m.value.value);
  if (!isContainer(root)) return m.op === 'replace' ? value : root;
  if (m.op === 'set-field') {
    let node = root as Record<string, unknown>;
    for (const key of m.field.slice(0, -1)) {
      if (!isContainer(node[key]) || Array.isArray(node[key])) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    node[m.field.at(-1)!] = value;
    return root;
  }
  let parent: Container = root;
  let key: string | number | undefined;
  for (const step of m.walk) {
    const node: unknown = key === undefined ? parent : (parent as Record<string | number, unknown>)[key];
    if (!isContainer(node)) break;
    const keys = keysOf(node);
    if (keys.length === 0) break;
    parent = node;
    key = keys[step % keys.length];
  }
  if (key === undefined) {
    // The walk stayed at the root: mutate one of its fields by name.
    key = ['apiVersion', 'kind', 'metadata', 'spec', 'data'][m.walk.length % 5]!;
  }
  const record = parent as Record<string | number, unknown>;
  switch (m.op) {
    case 'replace':
      record[key] = value;
      break;
    case 'remove':
      if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
      else delete record[key];
      break;
    case 'add-unknown':
      if (!Array.isArray(parent)) record[`fuzzUnknown${String(key)}`] = value;
      else parent.push(value);
      break;
    case 'rename-case':
      if (!Array.isArray(parent) && typeof key === 'string') {
        const value = record[key];
        delete record[key];
        record[key.charAt(0).toUpperCase() + key.slice(1)] = value;
      }
      break;
    case 'duplicate-key': {
      if (Array.isArray(parent) || typeof key !== 'string') break;
      const entries: [string, unknown][] = Object.entries(record);
      const at = entries.findIndex(([k]) => k === key);
      entries.splice(at + 1, 0, [key, value]);
      return replaceContainer(root, parent, new DuplicateKeys(entries));
    }
  }
  return root;
}

/** Replaces `target` (an object inside `root`, or root itself) by `replacement`. */
function replaceContainer(root: Container, target: Container, replacement: unknown): unknown {
  if (root === target) return replacement;
  const visit = (node: Container): boolean => {
    for (const k of keysOf(node)) {
      const child = (node as Record<string | number, unknown>)[k];
      if (child === target) {
        (node as Record<string | number, unknown>)[k] = replacement;
        return true;
      }
      if (isContainer(child) && visit(child)) return true;
    }
    return false;
  };
  visit(root);
  return root;
}

/** A deep copy of plain JSON data (markers are immutable and shared). */
export function copy<T>(value: T): T {
  if (!isContainer(value)) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)])) as T;
}
