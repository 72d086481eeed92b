import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

const conditions = (obj: KubeObject) => ((obj['status'] as { conditions?: Condition[] } | undefined)?.conditions);
const spec = (extra: Record<string, unknown> = {}) => ({ group: 'diff.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, ...extra });

void describe('apiservices: the create marks a local APIService Available, as kube-aggregator\'s strategy does', () => {
  let fx: Fixture;
  let registry: Registry;
  const cluster = { namespace: '', userAgent: 'test-client' };
  const apiservices = () => resource(registry, 'apiservices', 'apiregistration.k8s.io');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('a local APIService is created Available (Local), the status untracked by managedFields, and stays so on GET', async () => {
    const created = await apiservices().creater.create(
      cluster,
      // A status the client sends is dropped first.
      { metadata: { name: 'v1.diff.example.com' }, spec: spec(), status: { conditions: [{ type: 'Available', status: 'False', reason: 'Mine' }] } },
      {},
    );
    const [condition, ...rest] = conditions(created) ?? [];
    assert.deepEqual(rest, []);
    assert.deepEqual(
      { ...condition, lastTransitionTime: undefined },
      { type: 'Available', status: 'True', lastTransitionTime: undefined, reason: 'Local', message: 'Local APIServices are always available' },
    );
    assert.equal(condition?.lastTransitionTime, created.metadata.creationTimestamp);
    const entries = (created.metadata.managedFields ?? []) as { manager: string; fieldsV1: Record<string, unknown> }[];
    assert.deepEqual(entries.map((e) => [e.manager, Object.keys(e.fieldsV1)]), [['test-client', ['f:spec']]]);
    const got = await apiservices().getter.get(cluster, 'v1.diff.example.com', {});
    assert.deepEqual(conditions(got), conditions(created));
  });

  void it('an update through the main resource keeps the status; a remote APIService starts without one', async () => {
    const current = await apiservices().getter.get(cluster, 'v1.diff.example.com', {});
    const { object } = await apiservices().updater.update(cluster, 'v1.diff.example.com', { ...current, spec: spec({ versionPriority: 20 }), status: {} }, {});
    assert.deepEqual(conditions(object), conditions(current));
    const remote = await apiservices().creater.create(
      cluster,
      { metadata: { name: 'v1.remote.example.com' }, spec: spec({ group: 'remote.example.com', service: { namespace: 'ns', name: 'svc' } }) },
      {},
    );
    assert.equal(conditions(remote), undefined);
  });
});
