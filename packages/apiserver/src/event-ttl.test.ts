/**
 * --event-ttl and --lease-reuse-duration-seconds end to end against real etcd: Events (core
 * and events.k8s.io) go under an etcd lease and vanish after the TTL, an update moves an Event
 * to a lease that outlives its new TTL, a burst shares one lease (TTL + 60 s, as kube-apiserver
 * 1.32 grants: 3660 s for the default hour), and other resources get no lease.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEtcdClient, createEtcdUnaryClient, type EtcdUnaryClient } from '@kapi/storage';
import { uniquePrefix } from '@kapi/storage/testing';
import { startApiServer, type RunningServer } from './main.js';
import { silentLogger } from './logger.js';
import { eventually, startTestServer, type TestServer } from './testing/fixture.js';

const T = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
  reason: 'Test',
  message: 'm',
});

void describe('--event-ttl', () => {
  // The default hour; a second server on the same etcd with a 2 s TTL.
  let t: TestServer;
  let short: RunningServer;
  let etcd: EtcdUnaryClient;
  const prefix = uniquePrefix('eventttl');
  const shortPrefix = uniquePrefix('eventttl-short');
  const leaseOf = async (key: string): Promise<string | undefined> => (await etcd.range({ key: Buffer.from(key) }, T)).kvs[0]?.lease;
  const grantedTtl = async (id: string): Promise<number> => {
    const client = createEtcdClient(t.etcd.endpoints);
    try {
      return Number((await client.leaseClient.leaseTimeToLive({ ID: id })).grantedTTL);
    } finally {
      client.close();
    }
  };
  const post = (url: string, path: string, body: unknown) =>
    fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  before(async () => {
    t = await startTestServer({ etcdPrefix: prefix });
    short = await startApiServer({ etcdServers: t.etcd.endpoints, etcdPrefix: shortPrefix, securePort: null, insecurePort: 0, logger: silentLogger, eventTtlMs: 2000 });
    etcd = createEtcdUnaryClient(t.etcd.endpoints);
  });
  after(async () => {
    etcd?.close();
    await short?.close();
    await t?.close();
  });

  void it('a burst of Events shares one lease granted for 3660 s (events.k8s.io Events another); ConfigMaps get none', async () => {
    for (const name of ['e1', 'e2', 'e3']) assert.equal((await t.request('POST', '/api/v1/namespaces/default/events', { body: coreEvent(name) })).status, 201);
    const created = await t.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e4' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'c/x', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'default' } },
    });
    assert.equal(created.status, 201, created.text);
    const leases = await Promise.all(['e1', 'e2', 'e3'].map((name) => leaseOf(`${prefix}/events/default/${name}`)));
    assert.notEqual(leases[0], undefined);
    assert.notEqual(leases[0], '0');
    assert.equal(new Set(leases).size, 1, `one lease: ${leases.join(', ')}`);
    assert.equal(await grantedTtl(leases[0]!), 3660);
    // kube-apiserver has one lease manager per resource's storage: events.k8s.io Events get their own lease.
    const other = await leaseOf(`${prefix}/events/default/e4`);
    assert.ok(other !== undefined && other !== '0' && other !== leases[0], `events.k8s.io lease ${other}`);
    assert.equal(await grantedTtl(other), 3660);

    assert.equal((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } })).status, 201);
    assert.equal(await leaseOf(`${prefix}/configmaps/default/c`), '0');
    // An update keeps the Event under a lease (the shared one still outlives a fresh hour + 0 s).
    const patched = await t.request('PATCH', '/api/v1/namespaces/default/events/e1', { body: { message: 'again' }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(await leaseOf(`${prefix}/events/default/e1`), leases[0]);
    // kube's etcd_lease_object_counts: one observation per grant (one per Event resource, and the master lease's).
    const metrics = (await t.request('GET', '/metrics')).text;
    assert.match(metrics, /^# HELP etcd_lease_object_counts \[ALPHA\] Number of objects attached to a single etcd lease\.$/m);
    const count = Number(/^etcd_lease_object_counts_count (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(count >= 2, `${count} grants observed`);
    assert.match(metrics, new RegExp(`^etcd_lease_object_counts_bucket\\{le="10"\\} ${count}$`, 'm'));
  });

  void it('with --event-ttl=2s an Event is gone from GET and etcd after 2 s; an update moved it to a new lease first', async () => {
    const url = short.insecureUrl!;
    assert.equal((await post(url, '/api/v1/namespaces/default/events', coreEvent('brief'))).status, 201);
    assert.equal((await post(url, '/api/v1/namespaces/default/events', coreEvent('updated'))).status, 201);
    const first = await leaseOf(`${shortPrefix}/events/default/updated`);
    assert.equal(await grantedTtl(first!), 2);
    await sleep(1000);
    const updated = await fetch(`${url}/api/v1/namespaces/default/events/updated`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ message: 'later' }) });
    assert.equal(updated.status, 200);
    const second = await leaseOf(`${shortPrefix}/events/default/updated`);
    assert.notEqual(second, first, 'the update put the Event under a lease that outlives its new TTL');
    assert.equal(await grantedTtl(second!), 2);
    await eventually('the Event to expire', async () => (await fetch(`${url}/api/v1/namespaces/default/events/brief`)).status === 404, 8000);
    assert.equal(await leaseOf(`${shortPrefix}/events/default/brief`), undefined);
    await eventually('the updated Event to expire', async () => (await fetch(`${url}/api/v1/namespaces/default/events/updated`)).status === 404, 8000);
    // The list (watch cache) lost both too.
    const list = (await (await fetch(`${url}/api/v1/namespaces/default/events`)).json()) as { items: unknown[] };
    assert.equal(list.items.length, 0);
  });
});
