import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { parseFieldSelector } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

function event(name: string, fields: Partial<KubeObject>): KubeObject {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name }, ...fields };
}

void describe('events', () => {
  let fx: Fixture;
  let registry: Registry;
  const ns = inNamespace('default');
  const events = () => resource(registry, 'events');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
    await events().creater.create(
      ns,
      event('pod-a.1', {
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a', apiVersion: 'v1', resourceVersion: '10', fieldPath: 'spec.containers{c}' },
        reason: 'Started',
        message: 'Started container',
        source: { component: 'kubelet', host: 'node-1' },
        type: 'Normal',
        count: 1,
        firstTimestamp: '2024-01-01T00:00:00Z',
        lastTimestamp: '2024-01-01T00:00:00Z',
      }),
      {},
    );
    await events().creater.create(
      ns,
      event('deploy-b.2', {
        involvedObject: { kind: 'Deployment', namespace: 'default', name: 'b' },
        reason: 'ScalingReplicaSet',
        reportingComponent: 'deployment-controller',
        reportingInstance: 'controller-1',
        action: 'Scale',
        eventTime: '2024-01-01T00:00:00.000001Z',
        type: 'Warning',
      }),
      {},
    );
  });
  after(async () => fx.close());

  const names = async (selector: string) =>
    (await events().lister.list(ns, { fieldSelector: parseFieldSelector(selector) })).items.map((i) => i.metadata.name);

  void it('selects by involvedObject fields', async () => {
    assert.deepEqual(await names('involvedObject.kind=Pod'), ['pod-a.1']);
    assert.deepEqual(await names('involvedObject.name=b,involvedObject.namespace=default'), ['deploy-b.2']);
    assert.deepEqual(await names('involvedObject.uid=uid-a'), ['pod-a.1']);
    assert.deepEqual(await names('involvedObject.apiVersion=v1'), ['pod-a.1']);
    assert.deepEqual(await names('involvedObject.resourceVersion=10'), ['pod-a.1']);
    assert.deepEqual(await names('involvedObject.fieldPath=spec.containers{c}'), ['pod-a.1']);
  });

  void it('selects by reason, type, reportingComponent and source (falling back to reportingComponent)', async () => {
    assert.deepEqual(await names('reason=ScalingReplicaSet'), ['deploy-b.2']);
    assert.deepEqual(await names('type=Normal'), ['pod-a.1']);
    assert.deepEqual(await names('reportingComponent=deployment-controller'), ['deploy-b.2']);
    assert.deepEqual(await names('source=kubelet'), ['pod-a.1']);
    assert.deepEqual(await names('source=deployment-controller'), ['deploy-b.2']);
    assert.deepEqual(await names('type!=Normal'), ['deploy-b.2']);
  });

  void it('rejects other field selectors', async () => {
    await rejectsWithStatus(events().lister.list(ns, { fieldSelector: parseFieldSelector('message=x') }), {
      code: 400,
      message: 'field label not supported: message',
    });
  });

  void it('involvedObject.namespace must match the event namespace', async () => {
    const status = await rejectsWithStatus(events().creater.create(ns, event('bad', { involvedObject: { kind: 'Pod', namespace: 'other', name: 'x' } }), {}), {
      code: 422,
    });
    assert.equal(status.message, 'Event "bad" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
  });

  void it('new-style events need reportingComponent, reportingInstance, action and reason (paths of kube\'s internal type)', async () => {
    const status = await rejectsWithStatus(
      events().creater.create(ns, event('new-style', { involvedObject: { kind: 'Pod', namespace: 'default', name: 'x' }, eventTime: '2024-01-01T00:00:00.000000Z' }), {}),
      { code: 422 },
    );
    // An empty qualified name fails twice (empty, and the pattern), as in kube.
    assert.deepEqual(
      status.details?.causes?.map((c) => `${c.field}: ${(c.message ?? "").slice(0, 40)}`),
      [
        'reportingController: Required value',
        'reportingController: Invalid value: "": name part must be non',
        'reportingController: Invalid value: "": name part must consis',
        'reportingInstance: Required value',
        'action: Required value',
        'reason: Required value',
      ],
    );
  });

  void it('PUT creates an event that does not exist', async () => {
    const { object, created } = await events().updater.update(
      ns,
      'put-created',
      event('put-created', { involvedObject: { kind: 'Pod', namespace: 'default', name: 'x' }, reason: 'R' }),
      {},
    );
    assert.equal(created, true);
    assert.ok(object.metadata.uid);
    const again = await events().updater.update(ns, 'put-created', { ...object, count: 2 }, {});
    assert.equal(again.created, false);
    assert.equal(again.object['count'], 2);
  });
});
