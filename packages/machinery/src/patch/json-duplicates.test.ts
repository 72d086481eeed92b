import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateFields } from './json-duplicates.js';

void test('duplicate keys are reported with kube strict-decoding paths', () => {
  assert.deepEqual(findDuplicateFields('{"a":1,"b":{"c":1,"c":2},"a":3}'), ['b.c', 'a']);
  assert.deepEqual(findDuplicateFields('{"metadata":{"labels":{"x":"1","x":"2","x":"3"}},"items":[{"n":1},{"n":1,"n":2}]}'), ['metadata.labels.x', 'items[1].n']);
  assert.deepEqual(findDuplicateFields('[{"op":"add","op":"remove","path":"/a"}]'), ['[0].op']);
  assert.deepEqual(findDuplicateFields('{"a\\"b":1,"a\\u0022b":2,"s":"{\\"x\\":1,\\"x\\":2}"}'), ['a"b']);
  assert.deepEqual(findDuplicateFields('{"a":[1,[2,{"k":1,"k":1}]]}'), ['a[1][1].k']);
  assert.deepEqual(findDuplicateFields('{"a":1,"b":2}'), []);
  assert.deepEqual(findDuplicateFields('{"a":1,"a":'), ['a']);
});
