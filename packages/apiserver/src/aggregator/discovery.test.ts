/**
 * The remote groups' order and shape in discovery, as kube-apiserver 1.32 answered for the
 * same APIServices (three of priority 100, none reachable): legacy `/apis` orders them by
 * groupPriorityMinimum, then APIService name; aggregated `/apis` by priority, then group
 * name, each version `Stale` with no resources until its backend was read.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBackendAgents, clusterIpServiceResolver } from '../proxy/index.js';
import type { ApiServiceIndex, ApiServiceObject } from './apiservices.js';
import { createRemoteDiscovery } from './discovery.js';

function apiService(group: string, version: string, priority: number, versionPriority = 100, service = true): ApiServiceObject {
  return {
    metadata: { name: `${version}.${group}`, resourceVersion: '1' },
    spec: { group, version, groupPriorityMinimum: priority, versionPriority, ...(service ? { service: { namespace: 'm', name: 's', port: 443 } } : {}) },
  } as ApiServiceObject;
}

/** The index over fixed objects (the informer's in-memory copy, without an informer). */
function fixedIndex(objects: ApiServiceObject[]): ApiServiceIndex {
  return {
    get: (name) => objects.find((o) => o.metadata.name === name),
    all: () => [...objects],
    remote: (group, version) => objects.find((o) => o.spec?.group === group && o.spec.version === version && o.spec.service !== undefined),
    onChange: () => () => undefined,
    synced: () => true,
    stop: () => Promise.resolve(),
  };
}

void describe('aggregator discovery: remote groups', () => {
  const index = fixedIndex([
    apiService('metrics.k8s.io', 'v1beta1', 100),
    apiService('nosvc.example.com', 'v1', 100),
    apiService('badport.example.com', 'v1', 100),
    apiService('high.example.com', 'v1alpha1', 2000, 5),
    apiService('high.example.com', 'v1', 2000, 50),
    apiService('apps', 'v1', 17800, 15, false),
    apiService('local.example.com', 'v1', 5000),
  ]);
  const discovery = createRemoteDiscovery(index, { resolver: clusterIpServiceResolver({ get: () => undefined }), agents: createBackendAgents(undefined) }, (g) => g === 'local.example.com', () => undefined);

  void it('lists legacy groups by priority, then APIService name; versions by versionPriority; local groups and local APIServices left out', () => {
    assert.deepEqual(discovery.legacyGroups().map((g) => [g.name, g.versions.map((v) => v.version)]), [
      ['high.example.com', ['v1', 'v1alpha1']],
      ['badport.example.com', ['v1']],
      ['nosvc.example.com', ['v1']],
      ['metrics.k8s.io', ['v1beta1']],
    ]);
    assert.deepEqual(discovery.group('metrics.k8s.io'), { name: 'metrics.k8s.io', versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }] });
    assert.equal(discovery.group('apps'), undefined);
  });

  void it('lists aggregated groups by priority, then group name, Stale until read', () => {
    const items = discovery.aggregatedItems();
    assert.deepEqual(items.map((i) => (i['metadata'] as { name: string }).name), ['high.example.com', 'badport.example.com', 'metrics.k8s.io', 'nosvc.example.com']);
    assert.deepEqual(items[2], { metadata: { name: 'metrics.k8s.io', creationTimestamp: null }, versions: [{ version: 'v1beta1', freshness: 'Stale' }] });
    assert.equal(discovery.openapiDocuments().size, 0);
  });
});
