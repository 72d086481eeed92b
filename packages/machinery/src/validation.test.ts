import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSSubdomain,
} from './validation.js';

const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_ERR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

void test('DNS-1123 subdomain', () => {
  assert.deepEqual(isDNS1123Subdomain('example.com'), []);
  assert.deepEqual(isDNS1123Subdomain('a'), []);
  assert.deepEqual(isDNS1123Subdomain('Bad_Name'), [SUBDOMAIN_ERR]);
  assert.deepEqual(isDNS1123Subdomain(''), [SUBDOMAIN_ERR]);
  assert.deepEqual(isDNS1123Subdomain('a.'), [SUBDOMAIN_ERR]);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(253)), []);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
});

void test('DNS-1123 label', () => {
  assert.deepEqual(isDNS1123Label('my-name'), []);
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('-a'), [LABEL_ERR]);
  assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

void test('DNS-1035 label', () => {
  assert.deepEqual(isDNS1035Label('abc-123'), []);
  assert.deepEqual(isDNS1035Label('1abc'), [DNS1035_ERR]);
});

void test('qualified name', () => {
  assert.deepEqual(isQualifiedName('app'), []);
  assert.deepEqual(isQualifiedName('example.com/My_Name.1'), []);
  assert.deepEqual(isQualifiedName('Bad Key'), [NAME_PART_ERR]);
  assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART_ERR]);
  assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('Example.com/a'), [`prefix part ${SUBDOMAIN_ERR}`]);
  assert.deepEqual(isQualifiedName('a/'), ['name part must be non-empty', NAME_PART_ERR]);
  assert.deepEqual(isQualifiedName('x'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
});

void test('label value', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('My_value-1.2'), []);
  assert.equal(isValidLabelValue('a b').length, 1);
  assert.deepEqual(isValidLabelValue('x'.repeat(64)), ['must be no more than 63 characters']);
  assert.equal(isValidLabelValue('-x'.repeat(40)).length, 2);
});

void test('generateName prefixes may end with a dash', () => {
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN_ERR]);
});

void test('path segment names', () => {
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isValidPathSegmentName('ok'), []);
});
