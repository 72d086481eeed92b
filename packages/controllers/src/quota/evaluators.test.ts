/** kube's quota evaluators: what one pod, service or claim is charged, and which quota scopes a pod falls in. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kapi/machinery';
import { evaluatorFor, objectCountName, quotaMatches } from './evaluators.js';
import { resourceListJson } from './resource-list.js';

const obj = (value: Record<string, unknown>) => ({ metadata: { name: 'x', namespace: 'ns' }, ...value }) as KubeObject;
const usage = (resource: string, value: Record<string, unknown>) => resourceListJson(evaluatorFor({ group: '', resource }).usage(obj(value)));

void describe('quota evaluators', () => {
  void it('pods: app containers summed, at least the largest init container, overhead added; finished pods only count', () => {
    const pod = {
      spec: {
        initContainers: [{ name: 'init', resources: { requests: { cpu: '2' } } }],
        containers: [{ name: 'a', resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1' } } }, { name: 'b', resources: { requests: { cpu: '500m', 'example.com/gpu': '1' } } }],
        overhead: { cpu: '100m' },
      },
    };
    assert.deepEqual(usage('pods', pod), {
      'count/pods': '1', cpu: '2100m', 'limits.cpu': '1100m', memory: '1Gi', pods: '1', 'requests.cpu': '2100m', 'requests.example.com/gpu': '1', 'requests.memory': '1Gi',
    });
    assert.deepEqual(usage('pods', { ...pod, status: { phase: 'Succeeded' } }), { 'count/pods': '1' });
  });

  void it('services: node ports and load balancers by type', () => {
    const ports = [{ port: 80 }, { port: 81, nodePort: 30001 }];
    assert.deepEqual(usage('services', { spec: { type: 'ClusterIP', ports } }), { 'count/services': '1', services: '1' });
    assert.deepEqual(usage('services', { spec: { type: 'LoadBalancer', ports } }), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' });
    assert.deepEqual(usage('services', { spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports } }), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
  });

  void it('claims: overall and per storage class', () => {
    assert.deepEqual(usage('persistentvolumeclaims', { spec: { storageClassName: 'fast', resources: { requests: { storage: '10Gi' } } } }), {
      'count/persistentvolumeclaims': '1', 'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'fast.storageclass.storage.k8s.io/requests.storage': '10Gi',
      persistentvolumeclaims: '1', 'requests.storage': '10Gi',
    });
  });

  void it('object counts, with the legacy names', () => {
    assert.deepEqual(usage('configmaps', {}), { configmaps: '1', 'count/configmaps': '1' });
    assert.equal(objectCountName({ group: 'example.com', resource: 'widgets' }), 'count/widgets.example.com');
  });

  void it('pod scopes: a quota applies only to the pods in all its scopes; other kinds are in none', () => {
    const quota = (scopes: string[], scopeSelector?: unknown) => obj({ spec: { scopes, ...(scopeSelector !== undefined ? { scopeSelector } : {}) } });
    const pods = evaluatorFor({ group: '', resource: 'pods' });
    const bestEffort = obj({ spec: { containers: [{ name: 'c' }] } });
    const terminating = obj({ spec: { activeDeadlineSeconds: 10, priorityClassName: 'high', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } });
    assert.equal(quotaMatches(pods, quota(['BestEffort']), bestEffort, ['pods']), true);
    assert.equal(quotaMatches(pods, quota(['BestEffort']), terminating, ['pods']), false);
    assert.equal(quotaMatches(pods, quota(['Terminating', 'NotBestEffort']), terminating, ['pods']), true);
    assert.equal(quotaMatches(pods, quota([], { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] }), terminating, ['pods']), true);
    assert.equal(quotaMatches(pods, quota([], { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] }), bestEffort, ['pods']), false);
    assert.equal(quotaMatches(pods, quota([]), bestEffort, ['secrets']), false, 'no resource of the quota is a pod\'s');
    assert.equal(quotaMatches(evaluatorFor({ group: '', resource: 'secrets' }), quota(['BestEffort']), obj({}), ['secrets']), false);
  });
});
