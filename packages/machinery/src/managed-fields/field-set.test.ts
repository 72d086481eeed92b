import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from './field-set.js';
import { fieldElement, keyElement } from './path-element.js';

void test('toFieldsV1 writes an element that is both member and child once, with "." first', () => {
  const item = keyElement([['name', 'a']]);
  const set = FieldSet.of([fieldElement('items'), item], [fieldElement('items'), item, fieldElement('name')], [fieldElement('kind')]);
  assert.deepEqual(set.toFieldsV1(), { 'f:items': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} } }, 'f:kind': {} });
  assert.ok(FieldSet.fromFieldsV1(set.toFieldsV1()).equals(set));
});

void test('toFieldsV1 of 20,000 list items that are members and children is linear (it searched the list for each item: seconds)', () => {
  const set = new FieldSet();
  for (let i = 0; i < 20_000; i++) {
    const item = keyElement([['name', `c${i}`]]);
    set.insert([fieldElement('items'), item]);
    set.insert([fieldElement('items'), item, fieldElement('name')]);
  }
  const start = process.cpuUsage();
  const fields = set.toFieldsV1();
  const { user, system } = process.cpuUsage(start);
  assert.equal(Object.keys(fields['f:items'] as object).length, 20_000);
  // About 0.2 s of CPU on a loaded 2-core machine; the quadratic search took 2.5 s.
  assert.ok((user + system) / 1000 < 1_200, `${(user + system) / 1000} ms of CPU`);
});
