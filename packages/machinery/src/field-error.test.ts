import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  formatBadValue,
  formatFieldErrors,
  goQuote,
} from './field-error.js';
import { invalid } from './status.js';

void test('bad values print as kube prints them', () => {
  assert.equal(formatBadValue('x'), '"x"');
  assert.equal(formatBadValue('a"b\\c\n\t\u0001é'), '"a\\"b\\\\c\\n\\t\\x01é"');
  assert.equal(formatBadValue(3), '3');
  assert.equal(formatBadValue(1.5), '1.5');
  assert.equal(formatBadValue(true), 'true');
  assert.equal(formatBadValue(null), 'null');
  assert.equal(formatBadValue(undefined), 'null');
  assert.equal(formatBadValue(['a', 1]), '["a",1]');
  assert.equal(formatBadValue({ a: 1 }), '{"a":1}');
  assert.equal(goQuote(''), '""');
});

void test('messages', () => {
  assert.deepEqual(fieldInvalid('metadata.name', 'Bad_Name', 'oops'), {
    type: 'FieldValueInvalid',
    field: 'metadata.name',
    message: 'Invalid value: "Bad_Name": oops',
  });
  assert.equal(fieldRequired('spec.x').message, 'Required value');
  assert.equal(fieldRequired('metadata.name', 'name or generateName is required').message, 'Required value: name or generateName is required');
  assert.equal(fieldForbidden('metadata.namespace', 'not allowed on this type').message, 'Forbidden: not allowed on this type');
  assert.equal(fieldNotSupported('f', 'x', ['a', 'b']).message, 'Unsupported value: "x": supported values: "a", "b"');
  assert.equal(fieldNotSupported('f', 'x', []).message, 'Unsupported value: "x"');
  assert.equal(fieldTooLong('metadata.annotations', 262144).message, 'Too long: may not be more than 262144 bytes');
  assert.equal(fieldTooMany('spec.items', 3, 2).message, 'Too many: 3: must have at most 2 items');
  assert.equal(fieldTooMany('spec.items', 3, 1).message, 'Too many: 3: must have at most 1 items');
  const typeInvalid = fieldTypeInvalid('spec.replicas', 'string', 'spec.replicas in body must be of type integer: "string"');
  assert.equal(typeInvalid.type, 'FieldValueTypeInvalid');
  assert.equal(typeInvalid.message, 'Invalid value: "string": spec.replicas in body must be of type integer: "string"');
  assert.equal(fieldDuplicate('spec.ports[1]', 80).message, 'Duplicate value: 80');
});

void test('aggregate formatting matches status.invalid', () => {
  const one = [fieldRequired('spec.x')];
  const two = [fieldRequired('spec.x'), fieldRequired('spec.y'), fieldRequired('spec.x')];
  assert.equal(formatFieldErrors(one), 'spec.x: Required value');
  assert.equal(formatFieldErrors(two), '[spec.x: Required value, spec.y: Required value]');
  assert.equal(invalid({ group: '', kind: 'ConfigMap' }, 'a', two).message, `ConfigMap "a" is invalid: ${formatFieldErrors(two)}`);
});
