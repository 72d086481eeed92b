import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { CRD_PATH, widgetCrd } from './crd-testing.js';
import { startApiServer, type RunningServer } from './main.js';
import { eventually } from './testing/fixture.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

const FAST = { leaderElection: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 }, namespaceResyncMs: 100 };

async function request(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Obj }> {
  const res = await fetch(url + path, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // A path no route serves yet (a CRD's, before it is registered) answers kube's text/plain 404.
  const json = text !== '' && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : { metadata: {}, text };
  return { status: res.status, json: json as Obj };
}


async function fill(url: string, ns: string, count: number): Promise<void> {
  assert.equal((await request(url, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  for (let i = 0; i < count; i++) {
    assert.equal((await request(url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { i: String(i) } })).status, 201);
    assert.equal((await request(url, 'POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: `s-${i}` }, stringData: { i: String(i) } })).status, 201);
  }
  assert.equal((await request(url, 'POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { metadata: { name: 'l' }, spec: {} })).status, 201);
}

async function holder(url: string): Promise<string> {
  const lease = await request(url, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager');
  return lease.status === 200 ? String((lease.json['spec'] as Record<string, unknown>)['holderIdentity'] ?? '') : '';
}

void describe('namespace deletion by the leader-elected namespace controller', () => {
  let etcd: TestEtcd;
  const prefix = uniquePrefix();
  const servers: RunningServer[] = [];
  const start = async () => {
    const server = await startApiServer({ etcdServers: etcd.endpoints, etcdPrefix: prefix, securePort: null, insecurePort: 0, logger: silentLogger, controllers: FAST });
    servers.push(server);
    return server;
  };

  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const s of servers) await s.close();
    await etcd.stop();
  });

  void it('DELETE of a namespace empties it, then it disappears; the contents are gone', async () => {
    const a = await start();
    const url = a.insecureUrl!;
    await fill(url, 'doomed', 10);
    const del = await request(url, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(del.status, 200);
    assert.equal((del.json['status'] as Record<string, unknown>)['phase'], 'Terminating');
    await eventually('the namespace to disappear', async () => (await request(url, 'GET', '/api/v1/namespaces/doomed')).status === 404);
    for (const path of ['/api/v1/namespaces/doomed/configmaps', '/api/v1/namespaces/doomed/secrets', '/apis/coordination.k8s.io/v1/namespaces/doomed/leases']) {
      const list = await request(url, 'GET', path);
      assert.deepEqual(list.json['items'], [], path);
    }
    // The name can be used again.
    assert.equal((await request(url, 'POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
  });

  void it('content with a finalizer holds the namespace, with kube conditions, until the finalizer goes', async () => {
    const url = servers[0]!.insecureUrl!;
    assert.equal((await request(url, 'POST', '/api/v1/namespaces', { metadata: { name: 'held' } })).status, 201);
    assert.equal((await request(url, 'POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'pinned', finalizers: ['example.com/pin'] } })).status, 201);
    assert.equal((await request(url, 'DELETE', '/api/v1/namespaces/held')).status, 200);
    let conditions: Array<Record<string, unknown>> = [];
    await eventually('the conditions to report the remaining content', async () => {
      const ns = await request(url, 'GET', '/api/v1/namespaces/held');
      conditions = ((ns.json['status'] as Record<string, unknown>)['conditions'] ?? []) as Array<Record<string, unknown>>;
      return conditions.some((c) => c['type'] === 'NamespaceContentRemaining' && c['status'] === 'True');
    });
    const byType = new Map(conditions.map((c) => [c['type'], c]));
    assert.equal(byType.get('NamespaceContentRemaining')!['message'], 'Some resources are remaining: configmaps. has 1 resource instances');
    assert.equal(byType.get('NamespaceFinalizersRemaining')!['message'], 'Some content in the namespace has finalizers remaining: example.com/pin in 1 resource instances');
    const pinned = await request(url, 'GET', '/api/v1/namespaces/held/configmaps/pinned');
    assert.ok(pinned.json.metadata['deletionTimestamp'], 'the controller deleted it (pending its finalizer)');
    const refused = await request(url, 'POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'late' } });
    assert.equal(refused.status, 403);
    const removed = await request(url, 'PUT', '/api/v1/namespaces/held/configmaps/pinned', { ...pinned.json, metadata: { ...pinned.json.metadata, finalizers: [] } });
    assert.equal(removed.status, 200);
    await eventually('the namespace to disappear', async () => (await request(url, 'GET', '/api/v1/namespaces/held')).status === 404);
  });

  void it('custom resources registered at run time are emptied with their namespace', async () => {
    const url = servers[0]!.insecureUrl!;
    assert.equal((await request(url, 'POST', CRD_PATH, widgetCrd())).status, 201);
    await eventually('widgets to be served', async () => (await request(url, 'GET', '/apis/example.com/v1/widgets')).status === 200);
    assert.equal((await request(url, 'POST', '/api/v1/namespaces', { metadata: { name: 'with-crs' } })).status, 201);
    for (let i = 0; i < 5; i++) {
      const res = await request(url, 'POST', '/apis/example.com/v1/namespaces/with-crs/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w-${i}` }, spec: {} });
      assert.equal(res.status, 201);
    }
    assert.equal((await request(url, 'POST', '/apis/example.com/v1/namespaces/with-crs/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'pinned', finalizers: ['example.com/pin'] }, spec: {} })).status, 201);
    assert.equal((await request(url, 'DELETE', '/api/v1/namespaces/with-crs')).status, 200);
    await eventually('the custom resources to be reported', async () => {
      const ns = await request(url, 'GET', '/api/v1/namespaces/with-crs');
      const conditions = ((ns.json['status'] as Record<string, unknown>)['conditions'] ?? []) as Array<Record<string, unknown>>;
      return conditions.some((c) => c['type'] === 'NamespaceContentRemaining' && c['message'] === 'Some resources are remaining: widgets.example.com has 1 resource instances');
    });
    const left = await request(url, 'GET', '/apis/example.com/v1/namespaces/with-crs/widgets');
    assert.deepEqual((left.json['items'] as Obj[]).map((w) => w.metadata['name']), ['pinned']);
    const pinned = await request(url, 'GET', '/apis/example.com/v1/namespaces/with-crs/widgets/pinned');
    const unpinned = await request(url, 'PUT', '/apis/example.com/v1/namespaces/with-crs/widgets/pinned', { ...pinned.json, metadata: { ...pinned.json.metadata, finalizers: [] } });
    assert.equal(unpinned.status, 200);
    await eventually('the namespace to disappear', async () => (await request(url, 'GET', '/api/v1/namespaces/with-crs')).status === 404);
  });

  void it('two replicas: the first holds the lease; when it stops, the second takes over and finishes a deletion', async () => {
    const a = servers[0]!;
    const aUrl = a.insecureUrl!;
    const first = await holder(aUrl);
    assert.notEqual(first, '', 'the only replica leads');
    const b = await start();
    const bUrl = b.insecureUrl!;
    // A deletion in progress: a pinned object holds the namespace.
    assert.equal((await request(bUrl, 'POST', '/api/v1/namespaces', { metadata: { name: 'handover' } })).status, 201);
    assert.equal((await request(bUrl, 'POST', '/api/v1/namespaces/handover/configmaps', { metadata: { name: 'pin', finalizers: ['example.com/pin'] } })).status, 201);
    assert.equal((await request(bUrl, 'POST', '/api/v1/namespaces/handover/configmaps', { metadata: { name: 'free' } })).status, 201);
    assert.equal((await request(bUrl, 'DELETE', '/api/v1/namespaces/handover')).status, 200);
    await eventually('the free object to be deleted', async () => (await request(bUrl, 'GET', '/api/v1/namespaces/handover/configmaps/free')).status === 404);
    assert.equal(await holder(bUrl), first, 'the first replica still leads while it renews');

    await a.close();
    servers.splice(servers.indexOf(a), 1);
    await eventually('the second replica to take the lease', async () => {
      const h = await holder(bUrl);
      return h !== '' && h !== first;
    });
    const pin = await request(bUrl, 'GET', '/api/v1/namespaces/handover/configmaps/pin');
    assert.equal((await request(bUrl, 'PUT', '/api/v1/namespaces/handover/configmaps/pin', { ...pin.json, metadata: { ...pin.json.metadata, finalizers: [] } })).status, 200);
    await eventually('the namespace to disappear under the new leader', async () => (await request(bUrl, 'GET', '/api/v1/namespaces/handover')).status === 404);
  });
});
