import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.js';
import { formatFieldErrors } from './field-error.js';
import { invalid } from './status.js';
import { nameIsDNSLabel } from './validation.js';

const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_ERR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const lines = (meta: unknown, namespaced = true): string[] =>
  validateObjectMeta(meta, { namespaced }).map((e) => `${e.field}: ${e.message}`);

void test('valid metadata has no errors', () => {
  assert.deepEqual(lines({ name: 'a', namespace: 'default', labels: { app: 'web' }, annotations: { 'x/y': 'z' } }), []);
  assert.deepEqual(lines({ name: 'node-1' }, false), []);
});

void test('name is required and checked', () => {
  assert.deepEqual(lines({ namespace: 'default' }), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(lines({ name: 'Bad_Name', namespace: 'default' }), [`metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_ERR}`]);
  const err = invalid({ group: '', kind: 'ConfigMap' }, 'Bad_Name', validateObjectMeta({ name: 'Bad_Name', namespace: 'ns' }, { namespaced: true }));
  assert.equal(err.message, `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_ERR}`);
  assert.deepEqual(err.status.details?.causes, [
    { reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${SUBDOMAIN_ERR}`, field: 'metadata.name' },
  ]);
});

void test('generateName is checked as a prefix', () => {
  assert.deepEqual(lines({ generateName: 'web-', name: 'web-abcde', namespace: 'ns' }), []);
  assert.deepEqual(lines({ generateName: 'Web-', namespace: 'ns' }), [
    `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_ERR}`,
    'metadata.name: Required value: name or generateName is required',
  ]);
});

void test('custom name validator', () => {
  const errs = validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameValidator: nameIsDNSLabel });
  assert.equal(formatFieldErrors(errs), 'metadata.name: Invalid value: "a.b": must not contain dots');
});

void test('namespace rules', () => {
  assert.deepEqual(lines({ name: 'a' }), ['metadata.namespace: Required value']);
  assert.deepEqual(lines({ name: 'a', namespace: 'x' }, false), ['metadata.namespace: Forbidden: not allowed on this type']);
  assert.equal(lines({ name: 'a', namespace: 'Bad' })[0]?.startsWith('metadata.namespace: Invalid value: "Bad": a lowercase RFC 1123 label'), true);
});

void test('labels', () => {
  assert.deepEqual(lines({ name: 'a', namespace: 'n', labels: { 'Bad Key': 'v' } }), [`metadata.labels: Invalid value: "Bad Key": ${NAME_PART_ERR}`]);
  assert.equal(lines({ name: 'a', namespace: 'n', labels: { k: 'bad value' } })[0]?.startsWith('metadata.labels: Invalid value: "bad value": a valid label must be'), true);
});

void test('annotations', () => {
  assert.deepEqual(lines({ name: 'a', namespace: 'n', annotations: { 'Example.com/Key': 'v' } }), []);
  assert.deepEqual(lines({ name: 'a', namespace: 'n', annotations: { 'bad key': 'v' } }), [`metadata.annotations: Invalid value: "bad key": ${NAME_PART_ERR}`]);
  assert.deepEqual(lines({ name: 'a', namespace: 'n', annotations: { k: 'x'.repeat(262143) } }), []);
  assert.deepEqual(lines({ name: 'a', namespace: 'n', annotations: { k: 'x'.repeat(262144) } }), [
    'metadata.annotations: Too long: may not be more than 262144 bytes',
  ]);
});

void test('finalizers', () => {
  assert.deepEqual(lines({ name: 'a', namespace: 'n', finalizers: ['kubernetes.io/pvc-protection', 'foo'] }), []);
  assert.ok(lines({ name: 'a', namespace: 'n', finalizers: ['a/b/c'] })[0]?.startsWith('metadata.finalizers: Invalid value: "a/b/c": a qualified name must'));
  assert.deepEqual(lines({ name: 'a', namespace: 'n', finalizers: ['orphan', 'foregroundDeletion'] }), [
    'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
  ]);
});

void test('owner references', () => {
  assert.deepEqual(lines({ name: 'a', namespace: 'n', ownerReferences: [{}] }), [
    'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
  ]);
  const ok = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true };
  assert.deepEqual(lines({ name: 'a', namespace: 'n', ownerReferences: [ok] }), []);
  const two = lines({ name: 'a', namespace: 'n', ownerReferences: [ok, { ...ok, name: 'rs2' }] });
  assert.equal(two.length, 1);
  assert.match(two[0]!, /^metadata\.ownerReferences: Invalid value: \[.*\]: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/rs and ReplicaSet\/rs2$/);
  assert.match(
    lines({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] })[0]!,
    /: \/v1, Kind=Event is disallowed from being an owner$/,
  );
});

void test('non-object metadata does not crash', () => {
  assert.deepEqual(lines('nope'), ['metadata: Required value']);
  assert.deepEqual(lines({ name: 5, namespace: 'n', labels: 'x', annotations: [], finalizers: 'f', ownerReferences: {} }), [
    'metadata.name: Required value: name or generateName is required',
  ]);
});

void test('update: immutable fields', () => {
  const old = { name: 'a', namespace: 'n', uid: 'u1', resourceVersion: '5', creationTimestamp: '2024-01-02T03:04:05Z', generation: 2 };
  assert.deepEqual(validateObjectMetaUpdate({ ...old }, old), []);
  const errs = validateObjectMetaUpdate({ ...old, uid: 'x', name: 'b', creationTimestamp: '2025-01-01T00:00:00Z' }, old).map(
    (e) => `${e.field}: ${e.message}`,
  );
  assert.deepEqual(errs, [
    'metadata.name: Invalid value: "b": field is immutable',
    'metadata.uid: Invalid value: "x": field is immutable',
    'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
  ]);
  assert.deepEqual(
    validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old).map((e) => `${e.field}: ${e.message}`),
    ['metadata.resourceVersion: Invalid value: "": must be specified for an update'],
  );
  assert.deepEqual(
    validateObjectMetaUpdate({ ...old, generation: 1 }, old).map((e) => `${e.field}: ${e.message}`),
    ['metadata.generation: Invalid value: 1: must not be decremented'],
  );
  assert.deepEqual(
    validateObjectMetaUpdate({ ...old, deletionTimestamp: '2025-01-01T00:00:00Z' }, old).map((e) => `${e.field}: ${e.message}`),
    ['metadata.deletionTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable'],
  );
});

void test('update: no new finalizers while deleting', () => {
  const old = { name: 'a', namespace: 'n', uid: 'u', resourceVersion: '1', deletionTimestamp: 't', finalizers: ['a'] };
  assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: [] }, old), []);
  assert.deepEqual(
    validateObjectMetaUpdate({ ...old, finalizers: ['a', 'c', 'b'] }, old).map((e) => `${e.field}: ${e.message}`),
    ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "c"}'],
  );
});

void test('200,000 invalid labels are 200,000 errors, not a stack overflow (the list was spread into push)', () => {
  const labels: Record<string, string> = {};
  for (let i = 0; i < 200_000; i++) labels[`-${i}`] = '';
  const errs = validateObjectMeta({ name: 'x', namespace: 'ns', labels }, { namespaced: true, nameValidator: nameIsDNSLabel });
  assert.equal(errs.length, 200_000);
  assert.equal(errs[0]!.field, 'metadata.labels');
});
