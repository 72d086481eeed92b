import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { applyJsonPatch, decodeJsonPatch } from './json-patch.js';

const status = (fn: () => unknown): StatusError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a StatusError');
};

/** A ConfigMap near the largest storable: 10,000 values of 100 bytes. */
function bigConfigMap(): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let i = 0; i < 10_000; i++) data[`key${i}`] = 'v'.repeat(100);
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data };
}

void test('move and copy check their source in place: 10,000 of each over a 1 MiB object take well under the old two minutes each', () => {
  const cm = bigConfigMap();
  const moves = Array.from({ length: 10_000 }, (_, i) => ({ op: 'move', from: `/data/key${i}`, path: `/data/moved${i}` }));
  const copies = Array.from({ length: 10_000 }, (_, i) => ({ op: 'copy', from: `/data/key${i}`, path: `/data/copy${i % 10}` }));
  for (const [name, ops] of Object.entries({ moves, copies })) {
    const start = performance.now();
    const out = applyJsonPatch(cm, decodeJsonPatch(ops)) as { data: Record<string, string> };
    const elapsed = performance.now() - start;
    // Was ~110 s each: fast-json-patch validated every move/copy on a deep copy of the whole document.
    assert.ok(elapsed < 10_000, `${name}: ${elapsed} ms`);
    assert.equal(out.data[name === 'moves' ? 'moved9999' : 'copy9'], 'v'.repeat(100));
  }
  assert.equal(Object.keys(cm['data'] as object).length, 10_000, 'the input is untouched');
});

void test('a move or copy from a missing path is kube\'s 422, as before', () => {
  const doc = { a: { b: [1, 2] }, 'c/d': 1, 'e~f': 2 };
  for (const from of ['/x', '/a/x', '/a/b/2', '/a/b/-', '/a/b/01', 'a']) {
    for (const op of ['move', 'copy']) {
      assert.equal(status(() => applyJsonPatch(doc, decodeJsonPatch([{ op, from, path: '/z' }]))).code, 422, `${op} from ${from}`);
    }
  }
  assert.deepEqual(applyJsonPatch(doc, decodeJsonPatch([{ op: 'copy', from: '/a/b/1', path: '/z' }])), { ...doc, z: 2 });
  assert.deepEqual(applyJsonPatch(doc, decodeJsonPatch([{ op: 'move', from: '/c~1d', path: '/z' }])), { a: { b: [1, 2] }, 'e~f': 2, z: 1 });
  assert.deepEqual(applyJsonPatch(doc, decodeJsonPatch([{ op: 'copy', from: '/e~0f', path: '/a/b/0' }])), { ...doc, a: { b: [2, 1, 2] } });
});

void test('the root ("") as kube\'s library takes it: test and an object or array replace apply; add, remove, move and copy are 422', () => {
  const doc = { metadata: { name: 'x' }, data: { a: '1' } };
  for (const ops of [
    [{ op: 'move', from: '', path: '/x' }],
    [{ op: 'add', path: '/data/b', value: '2' }, { op: 'move', from: '', path: '/data/self' }],
    [{ op: 'move', from: '/data', path: '' }],
    [{ op: 'copy', from: '', path: '/x' }],
    [{ op: 'copy', from: '/data', path: '' }],
    [{ op: 'add', path: '', value: {} }],
    [{ op: 'remove', path: '' }],
    [{ op: 'replace', path: '', value: 'text' }],
    [{ op: 'replace', path: '', value: null }],
    [{ op: 'test', path: '', value: { other: 1 } }],
  ]) {
    assert.equal(status(() => applyJsonPatch(doc, decodeJsonPatch(ops))).code, 422, JSON.stringify(ops));
  }
  assert.deepEqual(applyJsonPatch(doc, decodeJsonPatch([{ op: 'test', path: '', value: doc }, { op: 'replace', path: '', value: { a: 1 } }])), { a: 1 });
  // Moving a value below itself finds no destination once it is removed (kube's order), a copy takes a copy.
  assert.equal(status(() => applyJsonPatch(doc, decodeJsonPatch([{ op: 'move', from: '/data', path: '/data/x' }]))).code, 422);
  assert.deepEqual(applyJsonPatch(doc, decodeJsonPatch([{ op: 'copy', from: '/data', path: '/data/x' }])), { ...doc, data: { a: '1', x: { a: '1' } } });
});

void test('an unknown operation is kube\'s generic 422, not a 400 (kube-apiserver 1.32)', () => {
  const err = status(() => decodeJsonPatch([{ op: 'frobnicate', path: '/data/x' }]));
  assert.equal(err.code, 422);
  assert.equal(err.message, 'the server rejected our request due to an error in our request');
});
