/**
 * Go's presence rules for lists and maps (the catalogue's `presence` of container fields):
 * what a decoded object shows, the Go view managed fields compare, and which empty
 * collections a decoded request keeps. Expected values are kube-apiserver 1.32's answers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { wireMessage } from '@kapi/catalog';
import { goTypedView, omitEmptyGoCollections } from './go-typed-view.js';
import { decodeObject, encodeObjectGo } from './object-codec.js';

const roundTrip = (obj: Record<string, unknown>) => decodeObject(encodeObjectGo(obj), { apiVersion: String(obj['apiVersion']), kind: String(obj['kind']) }).object;

void describe('lists and maps without omitempty', () => {
  void it('are recorded as such in the wire facts', () => {
    const field = (message: string, json: string) => wireMessage(message)?.fields?.find((f) => f.json === json);
    assert.equal(field('k8s.io.api.rbac.v1.ClusterRole', 'rules')?.presence, 'required');
    assert.equal(field('k8s.io.api.storage.v1.CSINodeDriver', 'topologyKeys')?.presence, 'required');
    assert.equal(field('k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus', 'currentMetrics')?.presence, 'required');
    assert.equal(field('k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus', 'conditions')?.presence, 'omitempty');
    assert.equal(field('k8s.io.api.core.v1.ConfigMap', 'data')?.presence, 'omitempty');
  });

  void it('decode from storage as null, as Go writes a nil slice; omitempty ones stay absent', () => {
    const role = roundTrip({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } });
    assert.deepEqual(role['rules'], null);
    assert.equal('aggregationRule' in role, false);
    // An empty list is nil once stored: null again.
    assert.deepEqual(roundTrip({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [] })['rules'], null);
    const node = roundTrip({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'n' }, spec: { drivers: [{ name: 'd', nodeID: 'n' }] } });
    assert.deepEqual(node['spec'], { drivers: [{ name: 'd', nodeID: 'n', topologyKeys: null }] });
    const hpa = roundTrip({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { maxReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'd' } }, status: {} });
    assert.deepEqual(hpa['status'], { desiredReplicas: 0, currentMetrics: null });
    // Field order stays Go's: the null sits where the struct declares the field.
    const cm = roundTrip({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} });
    assert.equal('data' in cm, false);
  });
});

void describe('goTypedView', () => {
  const deployment = 'k8s.io.api.apps.v1.Deployment';

  void it('gives value structs their zero fields and leaves absent pointers and omitempty zeros out', () => {
    const view = goTypedView(deployment, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: {} }, spec: { paused: false } });
    assert.equal(view['apiVersion'], 'apps/v1');
    assert.deepEqual(view['metadata'], { name: 'd', creationTimestamp: null });
    const spec = view['spec'] as Record<string, unknown>;
    assert.equal('replicas' in spec, false, 'a nil pointer');
    assert.equal('paused' in spec, false, 'an omitempty false');
    assert.deepEqual(spec['strategy'], {}, 'a value struct, all omitempty');
    const template = spec['template'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(template['metadata'], { creationTimestamp: null });
    assert.equal(template['spec']!['containers'], null, 'a nil slice without omitempty');
    assert.deepEqual(view['status'], {});
  });

  void it('keeps an empty list without omitempty and drops one with it; list items get their own zero fields', () => {
    const view = goTypedView('k8s.io.api.storage.v1.CSINode', { metadata: { name: 'n', finalizers: [] }, spec: { drivers: [{ name: 'd', nodeID: 'n', allocatable: {} }] } });
    assert.deepEqual(view['spec'], { drivers: [{ name: 'd', nodeID: 'n', topologyKeys: null, allocatable: {} }] });
    assert.deepEqual(view['metadata'], { name: 'n', creationTimestamp: null });
    assert.deepEqual(goTypedView('k8s.io.api.rbac.v1.ClusterRole', { rules: [] })['rules'], []);
    // A required scalar of a list item is there with its zero value.
    const pod = goTypedView('k8s.io.api.core.v1.Pod', { status: { containerStatuses: [{ name: 'c' }] } });
    const status = (pod['status'] as { containerStatuses: Record<string, unknown>[] }).containerStatuses[0]!;
    assert.deepEqual(status, { name: 'c', state: {}, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' });
  });

  void it('keeps the inside of a RawExtension as it is', () => {
    const view = goTypedView('k8s.io.api.apps.v1.ControllerRevision', { data: { spec: { template: { metadata: { creationTimestamp: null } } } }, revision: 1 });
    assert.deepEqual(view['data'], { spec: { template: { metadata: { creationTimestamp: null } } } });
    assert.equal(goTypedView('k8s.io.api.apps.v1.ControllerRevision', { revision: 1 })['data'], null);
  });
});

void describe('omitEmptyGoCollections', () => {
  void it('drops empty omitempty lists and maps (nested too) and keeps the others', () => {
    const role: Record<string, unknown> = { metadata: { name: 'r', labels: {}, finalizers: [] }, rules: [] };
    omitEmptyGoCollections('k8s.io.api.rbac.v1.ClusterRole', role);
    assert.deepEqual(role, { metadata: { name: 'r' }, rules: [] });
    const node: Record<string, unknown> = { spec: { drivers: [{ name: 'd', topologyKeys: [], allocatable: {} }] } };
    omitEmptyGoCollections('k8s.io.api.storage.v1.CSINode', node);
    assert.deepEqual(node, { spec: { drivers: [{ name: 'd', topologyKeys: [], allocatable: {} }] } });
    const pod: Record<string, unknown> = { spec: { containers: [{ name: 'c', env: [], resources: { limits: {} } }], volumes: [] } };
    omitEmptyGoCollections('k8s.io.api.core.v1.Pod', pod);
    assert.deepEqual(pod, { spec: { containers: [{ name: 'c', resources: {} }] } });
  });
});
