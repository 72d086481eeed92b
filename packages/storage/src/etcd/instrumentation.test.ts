import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { startEtcd, uniquePrefix } from '../testing/index.js';
import { isStorageError } from '../errors.js';
import { createEtcdStorage } from './etcd-storage.js';
import { ETCD_REQUEST_DURATION_BUCKETS, rangeOperation, resourceResolver, txnOperation } from './instrumentation.js';
import { startStorageMetricsPoller } from './storage-metrics.js';

async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = await registry.getSingleMetric(name)?.get();
  const found = metric?.values.find((v) => Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val));
  return found?.value;
}

void test('operation names follow the request shape; keys resolve to the longest matching resource prefix', () => {
  assert.equal(rangeOperation({ key: Buffer.from('/a') }), 'get');
  assert.equal(rangeOperation({ key: Buffer.from('/a/'), range_end: Buffer.from('/a0') }), 'list');
  assert.equal(rangeOperation({ key: Buffer.from('/a/'), range_end: Buffer.from('/a0'), count_only: true }), 'count');
  const key = Buffer.from('/a');
  assert.equal(txnOperation({ compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }], success: [{ request_put: { key, value: Buffer.from('x') } }] }), 'create');
  assert.equal(txnOperation({ compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 7 }], success: [{ request_put: { key, value: Buffer.from('x') } }] }), 'update');
  assert.equal(txnOperation({ compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 7 }], success: [{ request_delete_range: { key } }] }), 'delete');
  assert.equal(txnOperation({ compare: [], success: [{ request_range: { key } }] }), 'txn');
  const resolve = resourceResolver([
    { prefix: '/r/leases', group: 'coordination.k8s.io', resource: 'leases' },
    { prefix: '/r/configmaps', group: '', resource: 'configmaps' },
  ]);
  assert.deepEqual({ ...resolve('/r/leases/ns/a') }, { prefix: '/r/leases', group: 'coordination.k8s.io', resource: 'leases' });
  assert.equal(resolve('/r/configmapsx/ns/a').resource, '');
  assert.equal(resolve('/r/configmaps').resource, 'configmaps');
  // Answers remembered per parent key stay right for nested prefixes and for keys equal to a prefix.
  const nested = resourceResolver([
    { prefix: '/r/services', group: '', resource: 'outer' },
    { prefix: '/r/services/specs', group: '', resource: 'services' },
    { prefix: '/r/services/endpoints/', group: '', resource: 'endpoints' },
  ]);
  for (let round = 0; round < 2; round++) {
    assert.equal(nested('/r/services/x').resource, 'outer');
    assert.equal(nested('/r/services/specs').resource, 'services');
    assert.equal(nested('/r/services/endpoints').resource, 'endpoints');
    assert.equal(nested('/r/services/specs/ns/a').resource, 'services');
    assert.equal(nested('/r/services/specs/ns/b').resource, 'services');
    assert.equal(nested('/r/services/endpoints/ns/a').resource, 'endpoints');
    assert.equal(nested('/r/servicesx/a').resource, '');
    assert.equal(nested('/r/services/y').resource, 'outer');
  }
});

void test('etcd calls are counted and timed per operation, group and resource; failures count as errors', async () => {
  const etcd = await startEtcd({ extraArgs: ['--max-request-bytes=4096'] });
  const registry = new Registry();
  const prefix = uniquePrefix();
  const resources = [
    { prefix: `${prefix}/configmaps`, group: '', resource: 'configmaps' },
    { prefix: `${prefix}/leases`, group: 'coordination.k8s.io', resource: 'leases' },
  ];
  const storage = createEtcdStorage({ endpoints: etcd.endpoints, metricsRegistry: registry, resources, requestTimeoutMs: 2000 });
  try {
    const cm = `${prefix}/configmaps/default/a`;
    await storage.create(cm, { metadata: { name: 'a', namespace: 'default' } });
    await storage.get(cm);
    await storage.list(`${prefix}/configmaps`);
    await storage.guaranteedUpdate(cm, (cur) => ({ ...cur!, data: { x: '1' } }));
    await storage.create(`${prefix}/leases/default/l`, { metadata: { name: 'l', namespace: 'default' } });
    await storage.count(`${prefix}/leases`);
    await storage.delete(cm);

    const cms = { group: '', resource: 'configmaps' };
    for (const operation of ['create', 'get', 'list', 'update', 'delete']) {
      assert.ok(((await sample(registry, 'etcd_requests_total', { ...cms, operation })) ?? 0) >= 1, operation);
    }
    assert.equal(await sample(registry, 'etcd_requests_total', { group: 'coordination.k8s.io', resource: 'leases', operation: 'create' }), 1);
    assert.equal(await sample(registry, 'etcd_requests_total', { group: 'coordination.k8s.io', resource: 'leases', operation: 'count' }), 1);
    assert.equal(await sample(registry, 'etcd_request_errors_total', { ...cms, operation: 'create' }), undefined);

    // Bucket boundaries are kube's.
    const text = await registry.metrics();
    const les = [...text.matchAll(/etcd_request_duration_seconds_bucket\{le="([^"]+)",operation="create",group="",resource="configmaps"\}/g)].map((m) => m[1]);
    assert.deepEqual(les, [...ETCD_REQUEST_DURATION_BUCKETS.map(String), '+Inf']);

    // etcd refuses a request over --max-request-bytes: a StorageError carrying etcd's text, counted as an error.
    await assert.rejects(
      storage.create(`${prefix}/configmaps/default/big`, { metadata: { name: 'big' }, data: { x: 'y'.repeat(8192) } }),
      (err: unknown) => isStorageError(err, 'RequestTooLarge') && err.message === 'etcdserver: request is too large',
    );
    assert.equal(await sample(registry, 'etcd_request_errors_total', { ...cms, operation: 'create' }), 1);

    // Unreachable etcd: errors counted too.
    await etcd.kill('SIGKILL');
    await assert.rejects(storage.get(cm), (err: unknown) => isStorageError(err, 'Unreachable'));
    assert.equal(await sample(registry, 'etcd_request_errors_total', { ...cms, operation: 'get' }), 1);
  } finally {
    await storage.close();
    await etcd.stop();
  }
});

void test('the poller reports object counts per resource (-1 when the count fails) and the database size', async () => {
  const etcd = await startEtcd();
  const registry = new Registry();
  const prefix = uniquePrefix();
  const resources = [
    { prefix: `${prefix}/configmaps`, group: '', resource: 'configmaps' },
    { prefix: `${prefix}/leases`, group: 'coordination.k8s.io', resource: 'leases' },
  ];
  const storage = createEtcdStorage({ endpoints: etcd.endpoints, requestTimeoutMs: 1000 });
  const poller = startStorageMetricsPoller({ registry, counter: storage, resources, client: storage.client, countPollPeriodMs: 60_000, dbPollIntervalMs: 60_000, requestTimeoutMs: 1000 });
  try {
    for (const name of ['a', 'b', 'c']) await storage.create(`${prefix}/configmaps/ns/${name}`, { metadata: { name } });
    await storage.create(`${prefix}/leases/ns/l`, { metadata: { name: 'l' } });
    await poller.pollNow();
    assert.equal(await sample(registry, 'apiserver_storage_objects', { resource: 'configmaps' }), 3);
    assert.equal(await sample(registry, 'apiserver_storage_objects', { resource: 'leases.coordination.k8s.io' }), 1);
    assert.equal(await sample(registry, 'apiserver_resource_objects', { group: 'coordination.k8s.io', resource: 'leases' }), 1);
    const size = await registry.getSingleMetric('apiserver_storage_size_bytes')?.get();
    assert.equal(size?.values.length, 1);
    assert.ok(size!.values[0]!.value > 0);
    assert.match(String(size!.values[0]!.labels['storage_cluster_id']), /^\d+$/);

    await etcd.kill('SIGKILL');
    await poller.pollNow();
    assert.equal(await sample(registry, 'apiserver_storage_objects', { resource: 'configmaps' }), -1);
    assert.equal(await sample(registry, 'apiserver_resource_objects', { group: '', resource: 'configmaps' }), -1);
  } finally {
    poller.stop();
    await storage.close();
    await etcd.stop();
  }
});
