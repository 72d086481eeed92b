/**
 * The priority-and-fairness config consumer's Dangling condition over a registry on the watch
 * cache (real etcd): True (NotFound) for a FlowSchema naming a missing level, False (Found)
 * once the level exists and True again when it goes, each written once through /status by
 * server-side apply as kube's field manager; a FlowSchema already right is not written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import { resource, startCachedRegistry, type CachedRegistry } from '@kapi/registry/testing';
import { startControllers, type RunningControllers } from './controller-manager.js';
import { CONFIG_CONSUMER_FIELD_MANAGER, flowcontrolConfigConsumer } from './flowcontrol-config-consumer.js';

const GROUP = 'flowcontrol.apiserver.k8s.io';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return assert.fail(`timed out waiting for ${what}`);
}

void describe('priority-and-fairness config consumer: the Dangling condition of FlowSchemas', () => {
  let fixture: CachedRegistry;
  let registry: Registry;
  let controllers: RunningControllers;
  const cluster = { namespace: '', userAgent: 'test-client' };
  const schemas = () => resource(registry, 'flowschemas', GROUP);
  const levels = () => resource(registry, 'prioritylevelconfigurations', GROUP);
  const schema = (name: string, level: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'FlowSchema', metadata: { name }, spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: 5000 } });
  const dangling = (obj: KubeObject) => ((obj['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter((c) => c.type === 'Dangling');
  /** The FlowSchema once its Dangling condition has `status`. */
  const withDangling = (name: string, status: string) =>
    until(`${name} Dangling=${status}`, async () => {
      const obj = await schemas().getter.get(cluster, name, {});
      return dangling(obj)[0]?.status === status ? obj : undefined;
    });

  before(async () => {
    fixture = await startCachedRegistry('fc-consumer-test');
    registry = fixture.registry;
    const consumer = flowcontrolConfigConsumer(registry, (err) => assert.fail(String(err)))!;
    controllers = startControllers(registry, [
      { name: 'priority-and-fairness-config-consumer', owner: 'kube-apiserver', leaderElected: false, synced: () => consumer.synced(), run: (signal) => consumer.run(signal), stop: () => consumer.stop() },
    ], { leaderElection: false });
  });
  after(async () => {
    await controllers.stop();
    await fixture.close();
  });

  void it('is True (NotFound) for a missing level, with an Apply entry of its own on /status', async () => {
    await schemas().creater.create(cluster, schema('fs-missing', 'nope'), {});
    const obj = await withDangling('fs-missing', 'True');
    const [condition, ...others] = dangling(obj);
    assert.deepEqual(others, []);
    assert.deepEqual({ ...condition, lastTransitionTime: undefined }, {
      type: 'Dangling',
      status: 'True',
      lastTransitionTime: undefined,
      reason: 'NotFound',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "nope" but there is no such object',
    });
    assert.match(condition!.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const entries = (obj.metadata.managedFields ?? []) as { manager: string; operation: string; subresource?: string; fieldsV1: unknown }[];
    assert.deepEqual(entries.map((e) => [e.manager, e.operation, e.subresource ?? '']), [[CONFIG_CONSUMER_FIELD_MANAGER, 'Apply', 'status'], ['test-client', 'Update', '']]);
    assert.deepEqual(entries[0]!.fieldsV1, {
      'f:status': { 'f:conditions': { 'k:{"type":"Dangling"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } },
    });
  });

  void it('turns False (Found) when the level is created and True when it is deleted; an unchanged schema is not written again', async () => {
    await levels().creater.create(cluster, { apiVersion: `${GROUP}/v1`, kind: 'PriorityLevelConfiguration', metadata: { name: 'nope' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } }, {});
    const found = await withDangling('fs-missing', 'False');
    assert.deepEqual(dangling(found).map((c) => [c.reason, c.message]), [['Found', 'This FlowSchema references the PriorityLevelConfiguration object named "nope" and it exists']]);
    // A spec change of the schema leaves the condition (and the resourceVersion the change made) alone.
    const changed = await schemas().updater.update(cluster, 'fs-missing', { ...found, spec: { ...(found['spec'] as object), matchingPrecedence: 6000 } }, {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await schemas().getter.get(cluster, 'fs-missing', {})).metadata.resourceVersion, changed.object.metadata.resourceVersion);
    await levels().deleter.delete(cluster, 'nope', {});
    await withDangling('fs-missing', 'True');
  });

  void it('gives a FlowSchema created with its level present Found', async () => {
    await levels().creater.create(cluster, { apiVersion: `${GROUP}/v1`, kind: 'PriorityLevelConfiguration', metadata: { name: 'there' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } }, {});
    await schemas().creater.create(cluster, schema('fs-there', 'there'), {});
    await withDangling('fs-there', 'False');
  });
});
