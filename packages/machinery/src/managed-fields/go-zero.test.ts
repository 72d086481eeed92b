import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../object.js';
import { trackUpdate, type FieldManagerScope } from './field-manager.js';
import { goZeroSkeleton, withGoZeroStructs } from './go-zero.js';
import { DEDUCED } from './schema-type.js';

const LEASE = 'k8s.io.api.coordination.v1.Lease';
const CRD = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition';

void test('the skeleton holds the non-pointer structs of the Go type, inline members merged, no pointers, lists or scalars', () => {
  assert.deepEqual(goZeroSkeleton(LEASE), { metadata: {}, spec: {} });
  // CustomResourceDefinitionSpec.names and Status.acceptedNames are values; conversion is a pointer.
  assert.deepEqual(goZeroSkeleton(CRD), { metadata: {}, spec: { names: {} }, status: { acceptedNames: {} } });
  const deployment = goZeroSkeleton('k8s.io.api.apps.v1.Deployment') as { spec: { template: { spec: Record<string, unknown> } } };
  assert.deepEqual(Object.keys(deployment.spec.template), ['metadata', 'spec']);
  assert.equal('selector' in deployment.spec, false, 'a *LabelSelector is a pointer');
  assert.deepEqual(goZeroSkeleton('no.such.Message'), {});
});

void test('filling adds what is missing and shares the rest; nothing to add returns the value itself', () => {
  const lease = { metadata: { name: 'l' } };
  const filled = withGoZeroStructs(lease, goZeroSkeleton(LEASE)) as Record<string, unknown>;
  assert.deepEqual(filled, { metadata: { name: 'l' }, spec: {} });
  assert.equal(filled['metadata'], lease.metadata);
  assert.deepEqual(lease, { metadata: { name: 'l' } }, 'not mutated');
  const full = { metadata: {}, spec: { holderIdentity: 'x' } };
  assert.equal(withGoZeroStructs(full, goZeroSkeleton(LEASE)), full);
  assert.equal(withGoZeroStructs(full, undefined), full);
});

/** A create's managedFields entry, compared with the kind's zero value or with nothing. */
function created(message: string | undefined, body: Record<string, unknown>): unknown {
  const scope: FieldManagerScope = { atom: DEDUCED, group: 'g', version: 'v1', kind: 'K', now: () => '2025-01-01T00:00:00Z', ...(message !== undefined ? { zero: goZeroSkeleton(message) } : {}) };
  const obj = structuredClone(body) as KubeObject;
  trackUpdate(scope, undefined, obj, 'm');
  return (obj.metadata.managedFields as { fieldsV1: unknown }[])[0]!.fieldsV1;
}

void test('a create records no ".": {} for the structs Go always has (a Lease\'s spec, a CRD\'s spec and names), as kube-apiserver 1.32 (issue 23)', () => {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me' } };
  assert.deepEqual(created(LEASE, lease), { 'f:spec': { 'f:holderIdentity': {} } });
  // Without the zero value (custom resources: plain JSON) the struct is new.
  assert.deepEqual(created(undefined, lease), { 'f:spec': { '.': {}, 'f:holderIdentity': {} } });
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.com' }, spec: { group: 'example.com', names: { plural: 'ws', kind: 'W' }, conversion: { strategy: 'None' } } };
  assert.deepEqual(created(CRD, crd), { 'f:spec': { 'f:conversion': { '.': {}, 'f:strategy': {} }, 'f:group': {}, 'f:names': { 'f:kind': {}, 'f:plural': {} } } });
  // An empty struct the client wrote is the zero value: not a change, so not owned.
  assert.deepEqual(created(LEASE, { ...lease, spec: {}, metadata: { name: 'l', labels: { a: 'b' } } }), { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
});
