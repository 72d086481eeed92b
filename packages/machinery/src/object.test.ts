import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy } from './object.js';

void test('deepCopy copies JSON values deeply, as structuredClone does', () => {
  const value = { a: 1, b: 'x', c: null, d: true, e: [1, { f: [2, 3] }], g: { h: { i: 'j' } }, k: undefined };
  const copy = deepCopy(value);
  assert.deepEqual(copy, structuredClone(value));
  assert.deepEqual(Object.keys(copy), Object.keys(value));
  assert.notEqual(copy, value);
  assert.notEqual(copy.e, value.e);
  assert.notEqual(copy.e[1], value.e[1]);
  assert.notEqual(copy.g.h, value.g.h);
  copy.g.h.i = 'changed';
  (copy.e[1] as { f: number[] }).f.push(4);
  assert.equal(value.g.h.i, 'j');
  assert.deepEqual(value.e[1], { f: [2, 3] });
});

void test('deepCopy keeps a __proto__ key as data, array holes as holes, and clones other objects with structuredClone', () => {
  const parsed = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
  const copy = deepCopy(parsed);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ['__proto__', 'x']);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true });

  // eslint-disable-next-line no-sparse-arrays
  const holes = [1, , 3];
  const copied = deepCopy(holes);
  assert.equal(copied.length, 3);
  assert.equal(1 in copied, false);

  const date = new Date(0);
  const withDate = deepCopy({ when: date, bytes: new Uint8Array([1, 2]) });
  assert.ok(withDate.when instanceof Date);
  assert.notEqual(withDate.when, date);
  assert.equal(withDate.when.getTime(), 0);
  assert.deepEqual([...withDate.bytes], [1, 2]);

  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: 1 } });
  assert.deepEqual(deepCopy(nullProto), { a: { b: 1 } });

  assert.throws(() => deepCopy({ f: () => 1 }), { name: 'DataCloneError' });
});
