/** kube's printPod cases: READY, STATUS and RESTARTS from pod states; -o wide cells; image tags. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { podColumns, podSummary } from './pod-columns.js';
import { imageTag } from './pod-defaults.js';

const NOW = Date.parse('2024-01-01T01:00:00Z');

function pod(spec: Record<string, unknown>, status: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: '2024-01-01T00:00:00Z', ...metadata }, spec, status } as KubeObject;
}

const one = { containers: [{ name: 'c' }] };

void describe('pod columns', () => {
  void it('summarises phase and container states as kube does', () => {
    assert.deepEqual(podSummary(pod(one, { phase: 'Pending' }), NOW), { ready: '0/1', reason: 'Pending', restarts: '0' });
    assert.deepEqual(
      podSummary(pod(one, { phase: 'Running', containerStatuses: [{ name: 'c', ready: true, restartCount: 0, state: { running: {} } }] }), NOW),
      { ready: '1/1', reason: 'Running', restarts: '0' },
    );
    assert.deepEqual(
      podSummary(
        pod(one, {
          phase: 'Running',
          containerStatuses: [{ name: 'c', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-01-01T00:55:00Z' } } }],
        }),
        NOW,
      ),
      { ready: '0/1', reason: 'CrashLoopBackOff', restarts: '3 (5m ago)' },
    );
    assert.equal(podSummary(pod(one, { phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }), NOW).reason, 'Completed');
    assert.equal(podSummary(pod(one, { phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 2 } } }] }), NOW).reason, 'ExitCode:2');
    assert.equal(podSummary(pod(one, { phase: 'Running' }, { deletionTimestamp: '2024-01-01T01:00:30Z' }), NOW).reason, 'Terminating');
    assert.equal(podSummary(pod(one, { phase: 'Succeeded' }, { deletionTimestamp: '2024-01-01T01:00:30Z' }), NOW).reason, 'Succeeded');
    assert.equal(podSummary(pod({ ...one, schedulingGates: [{ name: 'g' }] }, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }), NOW).reason, 'SchedulingGated');
  });

  void it('reports init containers and counts sidecars', () => {
    const init = { ...one, initContainers: [{ name: 'i' }] };
    assert.equal(podSummary(pod(init, { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }] }), NOW).reason, 'Init:0/1');
    assert.equal(podSummary(pod(init, { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'ImagePullBackOff' } } }] }), NOW).reason, 'Init:ImagePullBackOff');
    assert.equal(podSummary(pod(init, { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 1 } } }] }), NOW).reason, 'Init:ExitCode:1');
    const sidecar = { ...one, initContainers: [{ name: 'i', restartPolicy: 'Always' }] };
    const summary = podSummary(
      pod(sidecar, {
        phase: 'Running',
        initContainerStatuses: [{ name: 'i', started: true, ready: true, restartCount: 1, state: { running: {} } }],
        containerStatuses: [{ name: 'c', ready: true, state: { running: {} } }],
        conditions: [{ type: 'Initialized', status: 'True' }],
      }),
      NOW,
    );
    assert.deepEqual(summary, { ready: '2/2', reason: 'Running', restarts: '1' });
  });

  void it('fills the wide columns with <none> when unset', () => {
    const cells = (obj: KubeObject) => podColumns.map((c) => c.cell(obj, NOW));
    assert.deepEqual(cells(pod(one, { phase: 'Pending' })), ['p', '0/1', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>']);
    const placed = pod({ ...one, nodeName: 'n1', readinessGates: [{ conditionType: 'x' }, { conditionType: 'y' }] }, { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }], nominatedNodeName: 'n2', conditions: [{ type: 'x', status: 'True' }] });
    assert.deepEqual(cells(placed).slice(5), ['10.0.0.1', 'n1', 'n2', '1/2']);
    assert.deepEqual(podColumns.map((c) => [c.definition.name, c.definition.priority]), [
      ['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1],
    ]);
  });

  void it('finds image tags as kube\'s ParseImageName does', () => {
    assert.equal(imageTag('nginx'), 'latest');
    assert.equal(imageTag('nginx:1.25'), '1.25');
    assert.equal(imageTag('localhost:5000/nginx'), 'latest');
    assert.equal(imageTag('localhost:5000/nginx:latest'), 'latest');
    assert.equal(imageTag('nginx@sha256:abc'), '');
    assert.equal(imageTag('nginx:1@sha256:abc'), '1');
  });
});
