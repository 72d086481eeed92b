import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { validateAgainstSchema } from '@kapi/machinery';
import { versionConversion } from '../store-conversion.js';
import { builtinDefinitions, definitions } from './index.js';
import { coreEventToEventsApi } from '../groups/events/events.js';

const meta = {
  name: 'x',
  namespace: 'default',
  uid: '5f2b1c1e-0000-4000-8000-000000000001',
  resourceVersion: '12',
  creationTimestamp: '2024-01-01T00:00:00Z',
  labels: { app: 'a' },
  annotations: { note: 'kept' },
  managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }],
};

/** Stored (storage-form) samples per resource, as rich as the kind allows; every kind also gets a bare one. */
const samples: Record<string, KubeObject[]> = {
  '/events': [
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: meta,
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec.containers{c}' },
      reason: 'Started',
      message: 'Started container c',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:01:00Z',
      count: 3,
      type: 'Normal',
      eventTime: '2024-01-01T00:00:00.000001Z',
      series: { count: 2, lastObservedTime: '2024-01-01T00:01:00.000002Z' },
      action: 'Start',
      related: { kind: 'Node', name: 'node-1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
    },
  ],
  'coordination.k8s.io/leases': [
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: meta,
      spec: {
        holderIdentity: 'me',
        leaseDurationSeconds: 15,
        acquireTime: '2024-01-01T00:00:00.000000Z',
        renewTime: '2024-01-01T00:00:10.000000Z',
        leaseTransitions: 2,
        strategy: 'OldestEmulationVersion',
        preferredHolder: 'you',
      },
    },
  ],
};

function storedSamples(group: string, plural: string, storageApiVersion: string, kind: string): KubeObject[] {
  // events.k8s.io Events are stored as core Events.
  const own = samples[group === 'events.k8s.io' ? '/events' : `${group}/${plural}`] ?? [];
  return [{ apiVersion: storageApiVersion, kind, metadata: { name: 'bare', namespace: 'default' } }, ...own];
}

void describe('built-in conversions', () => {
  for (const definition of builtinDefinitions) {
    for (const version of definition.versions.filter((v) => v.served)) {
      const conversion = versionConversion(definition, version);
      const label = `${definition.plural}.${definition.group === '' ? 'core' : definition.group}/${version.name}`;
      void it(`${label}: storage → ${version.name} → storage is lossless and the served form fits its schema`, () => {
        for (const stored of storedSamples(definition.group, definition.plural, conversion.storageApiVersion, definition.kind)) {
          const snapshot = structuredClone(stored);
          const served = conversion.toServed(stored);
          assert.deepEqual(stored, snapshot, 'the stored object is not mutated');
          assert.equal(served.apiVersion, conversion.servedApiVersion);
          assert.equal(served.kind, definition.kind);
          const ignoreRequired = definition.enforceSchemaRequired === false;
          assert.deepEqual(validateAgainstSchema(served, version.schema, '', { definitions, ignoreRequired }), [], `${label} form fits its schema`);
          assert.deepEqual(conversion.toStorage(structuredClone(served)), stored);
        }
      });
      void it(`${label}: ${version.name} → storage → ${version.name} is lossless`, () => {
        for (const stored of storedSamples(definition.group, definition.plural, conversion.storageApiVersion, definition.kind)) {
          const served = conversion.toServed(stored);
          const again = conversion.toServed(conversion.toStorage(structuredClone(served)));
          assert.deepEqual(again, served);
        }
      });
    }
  }

  void it('events.k8s.io names the core fields as kube\'s conversion does, in the Go struct order', () => {
    const served = coreEventToEventsApi(samples['/events']![0]!);
    assert.deepEqual(Object.keys(served), [
      'apiVersion',
      'kind',
      'metadata',
      'eventTime',
      'series',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
      'regarding',
      'related',
      'note',
      'type',
      'deprecatedSource',
      'deprecatedFirstTimestamp',
      'deprecatedLastTimestamp',
      'deprecatedCount',
    ]);
    assert.equal(served['note'], 'Started container c');
    assert.equal(served['reportingController'], 'kubelet');
    assert.deepEqual(served['deprecatedSource'], { component: 'kubelet', host: 'node-1' });
    assert.equal(served['deprecatedCount'], 3);
    assert.equal((served['regarding'] as { name: string }).name, 'p');
  });

  void it('every built-in has exactly one storage version and every served version a schema under its GVK', () => {
    for (const definition of builtinDefinitions) {
      assert.equal(definition.versions.filter((v) => v.storage).length, 1, definition.plural);
      for (const version of definition.versions) {
        const gvk = version.schema['x-kubernetes-group-version-kind']?.[0];
        assert.deepEqual(gvk, { group: definition.group, version: version.name, kind: definition.kind });
      }
    }
  });
});
