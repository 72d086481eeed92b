/**
 * Non-apply writes of built-in kinds compare the Go views of the objects (typedView, see
 * protobuf/go-typed-view.ts): the structs Go always has are never "added", so they get no
 * `".": {}` entry, as in kube-apiserver 1.32; without a view (custom resources) they do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../object.js';
import { goTypedView } from '../protobuf/go-typed-view.js';
import { trackUpdate, type FieldManagerScope } from './field-manager.js';
import { DEDUCED } from './schema-type.js';

const LEASE = 'k8s.io.api.coordination.v1.Lease';
const CRD = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition';

/** A create's managedFields entry, compared in the Go view of `message` or as plain JSON. */
function created(message: string | undefined, body: Record<string, unknown>): unknown {
  const scope: FieldManagerScope = {
    atom: DEDUCED,
    group: 'g',
    version: 'v1',
    kind: 'K',
    now: () => '2025-01-01T00:00:00Z',
    ...(message !== undefined ? { typedView: (obj: Record<string, unknown>) => goTypedView(message, obj) } : {}),
  };
  const obj = structuredClone(body) as KubeObject;
  trackUpdate(scope, undefined, obj, 'm');
  return (obj.metadata.managedFields as { fieldsV1: unknown }[] | undefined)?.[0]?.fieldsV1;
}

void test('a create records no ".": {} for the structs Go always has (a Lease\'s spec, a CRD\'s spec and names)', () => {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me' } };
  assert.deepEqual(created(LEASE, lease), { 'f:spec': { 'f:holderIdentity': {} } });
  // Without the view (custom resources: plain JSON) the struct is new.
  assert.deepEqual(created(undefined, lease), { 'f:spec': { '.': {}, 'f:holderIdentity': {} } });
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.com' }, spec: { group: 'example.com', names: { plural: 'ws', kind: 'W' }, conversion: { strategy: 'None' } } };
  assert.deepEqual(created(CRD, crd), { 'f:spec': { 'f:conversion': { '.': {}, 'f:strategy': {} }, 'f:group': {}, 'f:names': { 'f:kind': {}, 'f:plural': {} } } });
  // An empty struct the client wrote is the zero value: not a change, so not owned.
  assert.deepEqual(created(LEASE, { ...lease, spec: {}, metadata: { name: 'l', labels: { a: 'b' } } }), { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
});
