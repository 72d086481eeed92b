import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeFieldValue, everythingFields, fieldSelectorFromSet, parseFieldSelector, unescapeFieldValue } from './fields.js';
import { isStatusError } from './status.js';

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (err) {
    assert.ok(isStatusError(err));
    assert.equal(err.code, 400);
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

void test('empty selector', () => {
  assert.equal(parseFieldSelector('').empty, true);
  assert.equal(parseFieldSelector(',').empty, true);
  assert.equal(everythingFields.matches({}), true);
  assert.equal(everythingFields.toString(), '');
});

void test('operators and AND', () => {
  const sel = parseFieldSelector('metadata.name=a,status.phase!=Failed');
  assert.deepEqual(sel.requirements, [
    { field: 'metadata.name', operator: '=', value: 'a' },
    { field: 'status.phase', operator: '!=', value: 'Failed' },
  ]);
  assert.equal(sel.matches({ 'metadata.name': 'a', 'status.phase': 'Running' }), true);
  assert.equal(sel.matches({ 'metadata.name': 'a', 'status.phase': 'Failed' }), false);
  assert.equal(sel.matches({ 'metadata.name': 'b' }), false);
  assert.equal(sel.exactMatch('metadata.name'), 'a');
  assert.equal(sel.exactMatch('status.phase'), undefined);
  assert.equal(parseFieldSelector('metadata.name==a').toString(), 'metadata.name=a');
});

void test('missing fields compare as empty', () => {
  assert.equal(parseFieldSelector('spec.nodeName=').matches({}), true);
  assert.equal(parseFieldSelector('spec.nodeName!=').matches({}), false);
});

void test('terms are sorted in toString', () => {
  assert.equal(parseFieldSelector('b=1,a=2').toString(), 'a=2,b=1');
});

void test('escapes', () => {
  const sel = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d');
  assert.equal(sel.exactMatch('metadata.name'), 'a,b=c\\d');
  assert.equal(sel.toString(), 'metadata.name=a\\,b\\=c\\\\d');
  assert.equal(escapeFieldValue('a,b=c\\'), 'a\\,b\\=c\\\\');
  assert.equal(unescapeFieldValue('plain'), 'plain');
});

void test('parse errors carry kube texts', () => {
  assert.equal(parseError('foo'), "invalid selector: 'foo'; can't understand 'foo'");
  assert.equal(parseError('a=b,foo'), "invalid selector: 'a=b,foo'; can't understand 'foo'");
  assert.equal(parseError('a=b\\x'), 'invalid field selector: invalid escape sequence: \\x');
  assert.equal(parseError('a=b\\'), 'invalid field selector: invalid escape sequence: \\');
  assert.equal(parseError('a=b=c'), 'invalid field selector: unescaped character in value: 61');
});

void test('fieldSelectorFromSet', () => {
  const sel = fieldSelectorFromSet({ 'metadata.namespace': 'ns', 'metadata.name': 'x' });
  assert.equal(sel.toString(), 'metadata.name=x,metadata.namespace=ns');
});
