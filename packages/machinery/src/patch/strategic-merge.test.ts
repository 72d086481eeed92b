import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deduplicateScalars, strategicMergePatch, StrategicMergeError } from './strategic-merge.js';
import { testDefinitions, testSchema } from '../managed-fields/test-schema.js';

type Obj = Record<string, unknown>;
const smp = (original: Obj, patch: Obj) => strategicMergePatch(original, patch, testSchema, testDefinitions);
const meta = (m: Obj): Obj => ({ metadata: { name: 'w', ...m } });

function smpError(original: Obj, patch: Obj): StrategicMergeError {
  try {
    smp(original, patch);
  } catch (err) {
    if (err instanceof StrategicMergeError) return err;
    throw err;
  }
  assert.fail('expected a StrategicMergeError');
}

void test('maps merge, null deletes, new values lose their nulls, inputs stay untouched', () => {
  const original = { ...meta({ labels: { a: '1', b: '2' } }), data: { x: 'y' } };
  const patch = { metadata: { labels: { b: null, c: '3' } }, data: null, spec: { strategy: { type: 'Recreate', rollingUpdate: null } } };
  const snapshot = structuredClone({ original, patch });
  assert.deepEqual(smp(original, patch), { metadata: { name: 'w', labels: { a: '1', c: '3' } }, spec: { strategy: { type: 'Recreate' } } });
  assert.deepEqual({ original, patch }, snapshot);
  // A null for something absent is ignored.
  assert.deepEqual(smp(meta({}), { metadata: { annotations: null } }), meta({}));
});

void test('lists without the merge strategy are replaced; merge lists merge by key, new items first', () => {
  const original = { spec: { args: ['a', 'b'], tags: ['x'] }, ...meta({ ownerReferences: [{ uid: '1', name: 'a' }, { uid: '2', name: 'b' }] }) };
  const out = smp(original, { spec: { args: ['c'], tags: ['y'] }, metadata: { ownerReferences: [{ uid: '2', name: 'B' }, { uid: '3', name: 'c' }] } });
  assert.deepEqual((out['spec'] as Obj)['args'], ['c']);
  // `tags` is a set for server-side apply but has no patch strategy: replaced.
  assert.deepEqual((out['spec'] as Obj)['tags'], ['y']);
  assert.deepEqual((out['metadata'] as Obj)['ownerReferences'], [
    { uid: '1', name: 'a' },
    { uid: '2', name: 'B' },
    { uid: '3', name: 'c' },
  ]);
  const prepended = smp(meta({ ownerReferences: [{ uid: '1', name: 'a' }] }), { metadata: { ownerReferences: [{ uid: '9', name: 'z' }] } });
  assert.deepEqual((prepended['metadata'] as Obj)['ownerReferences'], [{ uid: '9', name: 'z' }, { uid: '1', name: 'a' }]);
  // Keyed merge reaches into items and merges them as maps (here: containers by name).
  const containers = smp(
    { spec: { containers: [{ name: 'app', image: 'v1', env: [{ name: 'A', value: '1' }] }] } },
    { spec: { containers: [{ name: 'app', image: 'v2', env: [{ name: 'B', value: '2' }] }] } },
  );
  assert.deepEqual(containers, { spec: { containers: [{ name: 'app', image: 'v2', env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }] }] } });
});

void test('primitive merge lists union without repeats, ordered as kube orders them', () => {
  assert.deepEqual((smp(meta({ finalizers: ['a', 'b'] }), { metadata: { finalizers: ['c', 'a'] } })['metadata'] as Obj)['finalizers'], ['c', 'a', 'b']);
  assert.deepEqual((smp(meta({ finalizers: ['a', 'b', 'c'] }), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } })['metadata'] as Obj)['finalizers'], [
    'a',
    'c',
  ]);
  // Deleting from a list that does not exist is a no-op.
  assert.deepEqual(smp(meta({}), { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }), meta({}));
});

void test('$patch directives: delete and replace items in merge lists, replace and delete maps', () => {
  const refs = meta({ ownerReferences: [{ uid: '1' }, { uid: '2' }] });
  assert.deepEqual((smp(refs, { metadata: { ownerReferences: [{ uid: '1', $patch: 'delete' }] } })['metadata'] as Obj)['ownerReferences'], [{ uid: '2' }]);
  assert.deepEqual((smp(refs, { metadata: { ownerReferences: [{ $patch: 'replace' }, { uid: '3' }] } })['metadata'] as Obj)['ownerReferences'], [{ uid: '3' }]);
  assert.deepEqual(smp({ data: { a: '1', b: '2' } }, { data: { $patch: 'replace', c: '3' } }), { data: { c: '3' } });
  assert.deepEqual(smp({ data: { a: '1' } }, { data: { $patch: 'delete' } }), { data: {} });
  // A new value carrying a directive map loses it.
  assert.deepEqual(smp({}, { spec: { strategy: { $patch: 'delete' }, replicas: 1 } }), { spec: { replicas: 1 } });
  assert.equal(smpError(refs, { metadata: { ownerReferences: [{ uid: '1', $patch: 'merge' }] } }).message, 'merging lists cannot yet be specified in the patch');
  assert.equal(smpError({ data: {} }, { data: { $patch: 'explode' } }).message, 'unknown patch type: explode in map: map[$patch:explode]');
});

void test('$retainKeys keeps only the listed keys, and the patch may only set those', () => {
  const original = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
  assert.deepEqual(smp(original, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }), { spec: { strategy: { type: 'Recreate' } } });
  const err = smpError(original, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } });
  assert.equal(err.kind, 'BadRequest');
  assert.equal(err.message, 'invalid patch format of retainKeys');
  assert.equal(smpError(original, { spec: { strategy: { $retainKeys: 'type' } } }).message, 'invalid patch format of retainKeys');
});

void test('$setElementOrder orders merge lists by key and primitive lists by value', () => {
  const refs = meta({ ownerReferences: [{ uid: '1', name: 'a' }, { uid: '2', name: 'b' }] });
  const out = smp(refs, { metadata: { '$setElementOrder/ownerReferences': [{ uid: '2' }, { uid: '1' }], ownerReferences: [{ uid: '1', name: 'A' }] } });
  assert.deepEqual((out['metadata'] as Obj)['ownerReferences'], [{ uid: '2', name: 'b' }, { uid: '1', name: 'A' }]);
  const fin = smp(meta({ finalizers: ['a', 'b'] }), { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'], finalizers: ['c'] } });
  assert.deepEqual((fin['metadata'] as Obj)['finalizers'], ['b', 'c', 'a']);
  assert.equal(smpError(refs, { metadata: { $setElementOrder: [] } }).message, 'invalid patch format of setElementOrder list');
  const mismatch = smpError(refs, { metadata: { '$setElementOrder/ownerReferences': [{ uid: '1' }], ownerReferences: [{ uid: '5' }] } });
  assert.match(mismatch.message, /^The order in patch list:\n\[map\[uid:5\]\]\n doesn't match \$setElementOrder list:\n\[map\[uid:1\]\]\n$/);
});

void test('malformed merge lists fail with kube texts', () => {
  const refs = meta({ ownerReferences: [{ uid: '1' }] });
  assert.equal(smpError(refs, { metadata: { ownerReferences: [{ name: 'x' }] } }).message, 'map: map[name:x] does not contain declared merge key: uid');
  assert.equal(smpError(refs, { metadata: { ownerReferences: ['x'] } }).message.startsWith('list element types are not identical'), true);
  const lists = smpError(meta({ finalizers: [['a']] }), { metadata: { finalizers: [['b']] } });
  assert.equal(lists.kind, 'Invalid');
  assert.equal(lists.message, 'lists of lists are not supported');
  assert.equal(smpError(meta({}), { metadata: { '$deleteFromPrimitiveList': ['x'] } }).message, 'invalid patch format of primitive list');
});

/** kube's de-duplication as written in Go (O(n²)), the reference for the tracked version. */
function kubeDeduplicate(s: unknown[]): unknown[] {
  const out = [...s];
  let length = out.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (out[i] === out[j]) {
        out[j] = out[length];
        out.length = length;
        length--;
        j--;
      }
    }
  }
  return out;
}

void test('scalar de-duplication leaves what kube\'s in-place loop leaves, in its order', () => {
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  for (let round = 0; round < 2000; round++) {
    const list = Array.from({ length: random(30) }, () => `v${random(1 + random(12))}`);
    assert.deepEqual(deduplicateScalars(list), kubeDeduplicate(list), JSON.stringify(list));
  }
  const some = Array.from({ length: 20_000 }, (_, i) => `f${(i * 7919) % 100}`);
  assert.deepEqual(deduplicateScalars(some), kubeDeduplicate(some));
  // 200,000 finalizers with duplicates: kube's loop is 10^10 comparisons (minutes); the bound
  // leaves room for a loaded machine.
  const many = Array.from({ length: 200_000 }, (_, i) => `f${i % 100_000}`);
  const start = performance.now();
  assert.equal(deduplicateScalars(many).length, 100_000);
  assert.ok(performance.now() - start < 10_000, `${performance.now() - start} ms`);
});

void test('merging keyed lists of thousands of items is not quadratic', () => {
  const refs = (n: number, name: string) => Array.from({ length: n }, (_, i) => ({ uid: `u${i}`, name }));
  const original = meta({ ownerReferences: refs(5000, 'old') });
  const reversed = refs(5000, 'new').reverse();
  const start = performance.now();
  const out = (smp(original, { metadata: { ownerReferences: reversed } })['metadata'] as Obj)['ownerReferences'] as Obj[];
  const elapsed = performance.now() - start;
  // Items of the patch come in the patch's order.
  assert.deepEqual(out.slice(0, 2), [{ uid: 'u4999', name: 'new' }, { uid: 'u4998', name: 'new' }]);
  assert.equal(out.length, 5000);
  // Was minutes (a linear scan inside an insertion sort); the bound leaves room for a loaded machine.
  assert.ok(elapsed < 10_000, `${elapsed} ms`);
});
