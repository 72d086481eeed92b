#!/usr/bin/env node
// Regenerates packages/machinery/src/protobuf/testdata/go-golden.json: protobuf bytes and JSON
// produced by the Go types of k8s.io/api (v0.32) for sample objects, through the e2e/go-typed
// program (`kapi-typed golden`). Build it first: (cd e2e/go-typed && go build -o ../.cache/bin/kapi-typed ./cmd/kapi-typed).
// Usage: node scripts/generate-protobuf-golden.mjs [path/to/kapi-typed]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const binary = process.argv[2] ?? new URL('../e2e/.cache/bin/kapi-typed', import.meta.url).pathname;
const out = new URL('../packages/machinery/src/protobuf/testdata/go-golden.json', import.meta.url).pathname;

const meta = {
  name: 'golden', generateName: 'gold-', namespace: 'ns', uid: '5f0c2a8e-8a7d-4d0e-9a57-0d2f2b4f1e11', resourceVersion: '42', generation: 3,
  creationTimestamp: '2024-02-29T12:34:56Z', deletionTimestamp: '2030-01-01T00:00:00Z', deletionGracePeriodSeconds: 30,
  labels: { app: 'golden' }, annotations: { note: 'ünïcödé ✓' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u-1', controller: true, blockOwnerDeletion: false }],
  finalizers: ['example.com/f'],
  managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2024-02-29T12:34:56Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } }, subresource: 'status' }],
};
const objects = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: '1', empty: '' }, binaryData: { bin: 'AAEC/v8=' }, immutable: false },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, data: { key: '/wBrgA==' }, type: 'Opaque' },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' }, secrets: [{ name: 's' }], automountServiceAccountToken: true },
  { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', eventTime: '2024-01-01T00:00:00.000001Z', reportingComponent: 'c', reportingInstance: '' },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'ns' }, spec: { holderIdentity: '', leaseDurationSeconds: 0, renewTime: '2024-01-01T00:00:10.654321Z' } },
  { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'm', reason: 'NotFound', details: { name: 'x', kind: 'configmaps' }, code: 404 },
  { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7', remainingItemCount: 0 }, items: [{ metadata: { name: 'a' }, data: { k: 'v' } }, { metadata: { name: 'b' } }] },
];
const input = objects.map((object, i) => JSON.stringify({ id: String(i), op: 'encode', object })).join('\n') + '\n';
const result = spawnSync(binary, ['golden'], { input, encoding: 'utf8' });
if (result.status !== 0) throw new Error(`kapi-typed golden failed: ${result.stderr}`);
const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
const golden = lines.map((line, i) => {
  if (line.error) throw new Error(`object ${i}: ${line.error}`);
  return { kind: objects[i].kind, protobuf: line.protobuf, goJson: line.json };
});
writeFileSync(out, JSON.stringify({ generatedBy: 'scripts/generate-protobuf-golden.mjs with k8s.io/api v0.32.13', golden }, null, 1) + '\n');
console.log(`wrote ${golden.length} golden objects to ${out}`);
