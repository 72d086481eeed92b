import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../object.js';
import { StatusError } from '../status.js';
import { FieldSet } from './field-set.js';
import { applyConfiguration, managerFromUserAgent, trackUpdate, type FieldManagerScope } from './field-manager.js';
import { fieldElement } from './path-element.js';
import { schemaAtom } from './schema-type.js';
import { testDefinitions, testSchema } from './test-schema.js';

let clock = 0;
const scope: FieldManagerScope = {
  atom: schemaAtom(testSchema, testDefinitions),
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, clock)).toISOString().replace('.000', ''),
};
const TYPE = { apiVersion: 'example.com/v1', kind: 'Widget' };

interface Entry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

function entries(obj: KubeObject): Entry[] {
  return (obj.metadata.managedFields ?? []) as Entry[];
}

function summary(obj: KubeObject): string[] {
  return entries(obj).map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}: ${JSON.stringify(e.fieldsV1)}`);
}

/** A create by `manager`, as the registry does it: track, then server fields. */
function create(body: Record<string, unknown>, manager: string): KubeObject {
  const obj = structuredClone({ ...TYPE, ...body }) as KubeObject;
  trackUpdate(scope, undefined, obj, manager);
  obj.metadata.uid = 'uid-1';
  obj.metadata.resourceVersion = '1';
  return obj;
}

function update(live: KubeObject, change: (o: KubeObject) => void, manager: string, s: FieldManagerScope = scope): KubeObject {
  const next = structuredClone(live);
  change(next);
  trackUpdate(s, live, next, manager);
  return next;
}

function apply(live: KubeObject | undefined, config: Record<string, unknown>, manager: string, force = false): KubeObject {
  const out = applyConfiguration(scope, live, { ...TYPE, ...config }, manager, force);
  if (live === undefined) out.object.metadata.uid = 'uid-1';
  return out.object;
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a conflict');
}

void test('the default manager is the User-Agent before its first "/"', () => {
  assert.equal(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.equal(managerFromUserAgent('OpenAPI-Generator/33.1.0/python'), 'OpenAPI-Generator');
  assert.equal(managerFromUserAgent('a\u0000b\u0007c/1'), 'abc');
  assert.equal(managerFromUserAgent('x'.repeat(300)), 'x'.repeat(128));
  assert.equal(managerFromUserAgent(undefined), '');
});

void test('a create records an Update entry with the fields the request set, metadata bookkeeping stripped', () => {
  clock = 1;
  const obj = create({ metadata: { name: 'w', labels: { x: 'y' } }, data: { a: '1' } }, 'kubectl-create');
  assert.deepEqual(entries(obj), [
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'example.com/v1',
      time: '2025-01-01T00:00:01Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
    },
  ]);
  const unknown = create({ metadata: { name: 'w' }, data: { a: '1' } }, '');
  assert.equal(entries(unknown)[0]!.manager, 'unknown');
  const nothing = create({ metadata: { name: 'w' } }, 'm');
  assert.equal(nothing.metadata.managedFields, undefined);
});

void test('updates move changed fields to the writer, drop removed ones, and merge repeated writes of one manager', () => {
  clock = 1;
  const created = create({ metadata: { name: 'w' }, data: { a: '1', b: '2' } }, 'creator');
  clock = 5;
  const edited = update(created, (o) => ((o['data'] as Record<string, string>)['a'] = 'changed'), 'editor');
  assert.deepEqual(summary(edited), ['creator/Update: {"f:data":{".":{},"f:b":{}}}', 'editor/Update: {"f:data":{"f:a":{}}}']);
  clock = 9;
  const again = update(edited, (o) => ((o['data'] as Record<string, string>)['c'] = '3'), 'editor');
  assert.deepEqual(summary(again), ['creator/Update: {"f:data":{".":{},"f:b":{}}}', 'editor/Update: {"f:data":{"f:a":{},"f:c":{}}}']);
  assert.equal(entries(again)[1]!.time, '2025-01-01T00:00:09Z');
  const removed = update(again, (o) => delete (o['data'] as Record<string, string>)['b'], 'remover');
  assert.deepEqual(summary(removed), ['creator/Update: {"f:data":{}}', 'editor/Update: {"f:data":{"f:a":{},"f:c":{}}}']);
  // A write that changes nothing keeps every entry and time.
  clock = 20;
  const noop = update(removed, () => {}, 'editor');
  assert.deepEqual(noop.metadata.managedFields, removed.metadata.managedFields);
});

void test('status written through the main resource is never owned when the path resets it', () => {
  const resetStatus: FieldManagerScope = { ...scope, resetFields: FieldSet.of([fieldElement('status')]) };
  const created = create({ metadata: { name: 'w' }, data: { a: '1' } }, 'creator');
  const next = update(created, (o) => (o['status'] = { phase: 'Running' }), 'writer', resetStatus);
  assert.deepEqual(summary(next), ['creator/Update: {"f:data":{".":{},"f:a":{}}}']);
  const statusScope: FieldManagerScope = { ...scope, subresource: 'status', resetFields: FieldSet.of([fieldElement('spec')]) };
  const viaStatus = update(created, (o) => (o['status'] = { phase: 'Running' }), 'kubelet', statusScope);
  assert.deepEqual(summary(viaStatus), ['creator/Update: {"f:data":{".":{},"f:a":{}}}', 'kubelet/Update/status: {"f:status":{".":{},"f:phase":{}}}']);
});

void test('request managedFields: valid ones replace the tracking, [] and [{}] reset it, invalid ones are ignored', () => {
  const created = create({ metadata: { name: 'w' }, data: { a: '1' } }, 'creator');
  for (const reset of [[], [{}]]) {
    const cleared = update(created, (o) => (o.metadata.managedFields = reset), 'clearer');
    assert.equal(cleared.metadata.managedFields, undefined);
    // Later writes to an untracked object stay untracked.
    const later = update(cleared, (o) => ((o['data'] as Record<string, string>)['b'] = '2'), 'writer');
    assert.equal(later.metadata.managedFields, undefined);
  }
  const invalid = update(created, (o) => (o.metadata.managedFields = [{ manager: 'x', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1' }]), 'writer');
  assert.deepEqual(summary(invalid), summary(created));
  const replaced = update(
    created,
    (o) => (o.metadata.managedFields = [{ manager: 'mine', operation: 'Apply', apiVersion: 'example.com/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }]),
    'writer',
  );
  assert.deepEqual(summary(replaced), ['mine/Apply: {"f:data":{"f:a":{}}}']);
});

void test('at most 10 Update entries: the oldest merge into ancient-changes', () => {
  let obj = create({ metadata: { name: 'w' }, data: { m0: 'x' } }, 'm0');
  for (let i = 1; i <= 11; i++) {
    clock = 100 + i;
    obj = update(obj, (o) => ((o['data'] as Record<string, string>)[`m${i}`] = 'x'), `m${i}`);
  }
  const managers = entries(obj).map((e) => e.manager);
  assert.equal(managers.length, 10);
  assert.ok(managers.includes('ancient-changes'), managers.join(','));
  assert.ok(!managers.includes('m0') && !managers.includes('m1') && !managers.includes('m2'), managers.join(','));
  const ancient = entries(obj).find((e) => e.manager === 'ancient-changes')!;
  assert.deepEqual(ancient.fieldsV1, { 'f:data': { '.': {}, 'f:m0': {}, 'f:m1': {}, 'f:m2': {} } });
});

void test('apply creates, owns exactly its configuration, and a repeated apply changes nothing', () => {
  clock = 1;
  const created = apply(undefined, { metadata: { name: 'w', labels: { app: 'a' } }, spec: { replicas: 2, tags: ['x'] } }, 'ssa');
  assert.deepEqual(summary(created), ['ssa/Apply: {"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:tags":{"v:\\"x\\"":{}}}}']);
  assert.equal(entries(created)[0]!.apiVersion, 'example.com/v1');
  clock = 50;
  const again = applyConfiguration(scope, created, { ...TYPE, metadata: { name: 'w', labels: { app: 'a' } }, spec: { replicas: 2, tags: ['x'] } }, 'ssa', false);
  assert.equal(again.changed, false);
  assert.deepEqual(again.object, created);
});

void test('apply conflicts with another manager unless forced; the message and causes follow kube', () => {
  clock = 1;
  const created = create({ metadata: { name: 'w' }, spec: { replicas: 1, paused: true } }, 'kubectl-create');
  const err = conflictOf(() => apply(created, { metadata: { name: 'w' }, spec: { replicas: 3 } }, 'ssa'));
  assert.equal(err.code, 409);
  assert.equal(err.status.reason, 'Conflict');
  assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "kubectl-create" using example.com/v1: .spec.replicas');
  assert.deepEqual(err.status.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using example.com/v1', field: '.spec.replicas' }] });

  const two = conflictOf(() => apply(created, { metadata: { name: 'w' }, spec: { replicas: 3, paused: false } }, 'ssa'));
  assert.equal(two.status.message, 'Apply failed with 2 conflicts: conflicts with "kubectl-create" using example.com/v1:\n- .spec.paused\n- .spec.replicas');

  const forced = apply(created, { metadata: { name: 'w' }, spec: { replicas: 3 } }, 'ssa', true);
  assert.equal((forced['spec'] as Record<string, unknown>)['replicas'], 3);
  assert.deepEqual(summary(forced), ['ssa/Apply: {"f:spec":{"f:replicas":{}}}', 'kubectl-create/Update: {"f:spec":{".":{},"f:paused":{}}}']);
});

void test('appliers that agree share ownership; a conflict between appliers names the Apply manager', () => {
  const a = apply(undefined, { metadata: { name: 'w' }, spec: { replicas: 2 } }, 'a');
  const shared = apply(a, { metadata: { name: 'w' }, spec: { replicas: 2 } }, 'b');
  assert.deepEqual(summary(shared).sort(), ['a/Apply: {"f:spec":{"f:replicas":{}}}', 'b/Apply: {"f:spec":{"f:replicas":{}}}']);
  const err = conflictOf(() => apply(shared, { metadata: { name: 'w' }, spec: { replicas: 5 } }, 'c'));
  assert.equal(err.status.message, 'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\nconflicts with "b":\n- .spec.replicas');
  // One co-owner dropping the field does not remove it.
  const dropped = apply(shared, { metadata: { name: 'w' } }, 'a');
  assert.equal((dropped['spec'] as Record<string, unknown>)['replicas'], 2);
  assert.deepEqual(summary(dropped), ['b/Apply: {"f:spec":{"f:replicas":{}}}']);
});

void test('fields dropped from an applied configuration are removed unless someone else owns them', () => {
  const first = apply(undefined, { metadata: { name: 'w', labels: { x: '1', y: '2' } }, spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '1' }] } }, 'ssa');
  const second = apply(first, { metadata: { name: 'w', labels: { x: '1' } }, spec: { containers: [{ name: 'a', image: '1' }] } }, 'ssa');
  assert.deepEqual(second.metadata.labels, { x: '1' });
  assert.deepEqual((second['spec'] as Record<string, unknown>)['containers'], [{ name: 'a', image: '1' }]);
  // A field another manager wrote stays.
  const edited = update(first, (o) => ((o.metadata.labels as Record<string, string>)['z'] = '3'), 'editor');
  const third = apply(edited, { metadata: { name: 'w' } }, 'ssa');
  assert.deepEqual(third.metadata.labels, { z: '3' });
  assert.equal(third['spec'], undefined);
});

void test('fields present before the first apply belong to before-first-apply', () => {
  const legacy = { ...TYPE, metadata: { name: 'w', uid: 'u', resourceVersion: '3' }, spec: { replicas: 1 } } as KubeObject;
  const err = conflictOf(() => apply(legacy, { metadata: { name: 'w' }, spec: { replicas: 2 } }, 'ssa'));
  assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using example.com/v1: .spec.replicas');
});

void test('apply rejects other kinds and versions, managedFields in the body, and unkeyable lists', () => {
  assert.throws(() => applyConfiguration(scope, undefined, { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'w' } }, 'm', false), /invalid object type: \/v1, Kind=Widget/);
  assert.throws(() => applyConfiguration(scope, undefined, { metadata: { name: 'w' } }, 'm', false), /invalid object type: \/, Kind=$/);
  assert.throws(() => applyConfiguration(scope, undefined, { ...TYPE, metadata: { name: 'w', managedFields: [] } }, 'm', false), /metadata.managedFields must be nil/);
  assert.throws(
    () => applyConfiguration(scope, undefined, { ...TYPE, metadata: { name: 'w', namespace: 'ns' }, spec: { containers: [{ image: 'x' }] } }, 'm', false),
    /failed to create typed patch object \(ns\/w; example.com\/v1, Kind=Widget\): .spec.containers: element 0: associative list with keys/,
  );
});

void test('kubectl: conflicts with unchanged last-applied fields are forced, and the annotation follows the applied config', () => {
  const lastApplied = JSON.stringify({ ...TYPE, metadata: { name: 'w' }, spec: { replicas: 1 } });
  const csa = create({ metadata: { name: 'w', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }, spec: { replicas: 1 } }, 'kubectl-client-side-apply');
  const migrated = apply(csa, { metadata: { name: 'w' }, spec: { replicas: 4 } }, 'kubectl');
  assert.equal((migrated['spec'] as Record<string, unknown>)['replicas'], 4);
  assert.equal(migrated.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'], '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":4}}\n');
  // Other managers still conflict.
  assert.equal(conflictOf(() => apply(csa, { metadata: { name: 'w' }, spec: { replicas: 4 } }, 'other')).code, 409);
});
