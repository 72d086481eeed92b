/**
 * The merge semantics the built-in schemas give the patch and apply engines: keyed lists
 * (ServiceAccount secrets, ownerReferences, namespace conditions), atomic lists
 * (imagePullSecrets, namespace spec.finalizers), atomic maps (ObjectReference) and granular
 * maps (labels, data).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { applyConfiguration, schemaAtom, strategicMergePatch, trackUpdate, type FieldManagerScope } from '@kapi/machinery';
import { definitions, events, namespaces, serviceAccounts } from './index.js';

function scopeOf(definition: typeof serviceAccounts): FieldManagerScope {
  return { atom: schemaAtom(definition.versions[0]!.schema, definitions), group: definition.group, version: 'v1', kind: definition.kind, now: () => '2025-01-01T00:00:00Z' };
}

function fieldsOf(obj: KubeObject, manager: string): unknown {
  return (obj.metadata.managedFields as { manager: string; fieldsV1: unknown }[] | undefined)?.find((e) => e.manager === manager)?.fieldsV1;
}

const sa = (fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' }, ...fields });
const saSchema = serviceAccounts.versions[0]!.schema;

void test('ServiceAccount: secrets merge by name (SMP and SSA), imagePullSecrets are atomic', () => {
  const live = sa({ secrets: [{ name: 'a' }, { name: 'b' }], imagePullSecrets: [{ name: 'p' }] });
  const patched = strategicMergePatch(live, { secrets: [{ name: 'c' }, { name: 'a', $patch: 'delete' }], imagePullSecrets: [{ name: 'q' }] }, saSchema, definitions);
  assert.deepEqual(patched['secrets'], [{ name: 'c' }, { name: 'b' }]);
  assert.deepEqual(patched['imagePullSecrets'], [{ name: 'q' }]);

  const scope = scopeOf(serviceAccounts);
  const applied = applyConfiguration(scope, undefined, sa({ secrets: [{ name: 'a' }], imagePullSecrets: [{ name: 'p' }] }), 'ssa', false).object;
  // ObjectReference is an atomic map: the item is owned as a whole.
  assert.deepEqual(fieldsOf(applied, 'ssa'), { 'f:imagePullSecrets': {}, 'f:secrets': { 'k:{"name":"a"}': {} } });
  const other = applyConfiguration(scope, { ...applied, metadata: { ...applied.metadata, uid: 'u' } }, sa({ secrets: [{ name: 'b' }] }), 'other', false).object;
  assert.deepEqual(other['secrets'], [{ name: 'a' }, { name: 'b' }]);
  // Changing one atomic list item conflicts on the whole list.
  assert.throws(() => applyConfiguration(scope, other, sa({ imagePullSecrets: [{ name: 'p' }, { name: 'x' }] }), 'other', false), /conflict with "ssa": \.imagePullSecrets/);
});

void test('Namespace: conditions merge by type, spec.finalizers is atomic, status is never owned through the main resource', () => {
  const schema = namespaces.versions[0]!.schema;
  const live = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active', conditions: [{ type: 'A', status: 'True' }] } };
  const patched = strategicMergePatch(live, { spec: { finalizers: ['x'] }, status: { conditions: [{ type: 'B', status: 'False' }] } }, schema, definitions);
  assert.deepEqual(patched['spec'], { finalizers: ['x'] });
  assert.deepEqual((patched['status'] as Record<string, unknown>)['conditions'], [{ type: 'B', status: 'False' }, { type: 'A', status: 'True' }]);
  const obj = structuredClone(live) as KubeObject;
  trackUpdate({ ...scopeOf(namespaces), resetFields: undefined }, undefined, obj, 'creator');
  assert.deepEqual(fieldsOf(obj, 'creator'), {
    'f:spec': { '.': {}, 'f:finalizers': {} },
    'f:status': { '.': {}, 'f:conditions': { '.': {}, 'k:{"type":"A"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} },
  });
});

void test('Event: involvedObject is an atomic map; labels and annotations are granular', () => {
  const scope = scopeOf(events);
  const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns', labels: { a: '1' } }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R' };
  const applied = applyConfiguration(scope, undefined, event, 'ssa', false).object;
  assert.deepEqual(fieldsOf(applied, 'ssa'), { 'f:involvedObject': {}, 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:reason': {} });
  // Another manager changing one field of the atomic map conflicts on the whole map.
  assert.throws(() => applyConfiguration(scope, applied, { ...event, involvedObject: { kind: 'Pod', name: 'q' } }, 'other', false), /conflict with "ssa": \.involvedObject$/);
  // A new label from another manager does not.
  const labelled = applyConfiguration(scope, applied, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns', labels: { b: '2' } } }, 'other', false).object;
  assert.deepEqual(labelled.metadata.labels, { a: '1', b: '2' });
});
