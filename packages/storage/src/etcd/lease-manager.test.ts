/**
 * Writes with a TTL (kube's --event-ttl path) against real etcd: the key goes under a shared
 * lease granted for the TTL plus the reuse margin, an update moves it to a current lease, a
 * write without a TTL has none, and etcd deletes the key once the lease runs out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Etcd3 } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import { startEtcd, uniquePrefix, type TestEtcd } from '../testing/index.js';
import { createEtcdClient } from './client.js';
import { createEtcdStorage, type EtcdStorage } from './etcd-storage.js';
import { createLeaseManager } from './lease-manager.js';
import { createEtcdUnaryClient, type EtcdUnaryClient } from './grpc/unary-client.js';
import { encodeTxnRequest } from './grpc/kv-messages.js';
import { conditionalPutSize } from './request-size.js';

const T = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (name: string, message = 'm'): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, message });

void describe('lease manager (clocked): kube 1.32\'s reuse rules', () => {
  void test('grants TTL + min(5% of TTL, reuse limit); reuses while the lease outlives the TTL and ends within TTL + margin', async () => {
    let clock = 0;
    const grants: number[] = [];
    const counted: number[] = [];
    const manager = (extra: { reuseDurationSeconds?: number } = {}) =>
      createLeaseManager(async (ttl) => {
        grants.push(ttl);
        return String(grants.length);
      }, { now: () => clock, onGrant: (count) => counted.push(count), ...extra });
    const leases = manager();
    assert.equal(await leases.leaseFor(3600), '1');
    assert.deepEqual(grants, [3660]);
    clock = 59_999;
    assert.equal(await leases.leaseFor(3600), '1');
    clock = 60_000;
    assert.equal(await leases.leaseFor(3600), '2');
    // A lease of an hour is not used for a 100 s TTL (it would end long after TTL + margin): 100 + 5.
    assert.equal(await leases.leaseFor(100), '3');
    assert.equal(grants[2], 105);
    clock = 64_000;
    assert.equal(await leases.leaseFor(100), '3');
    // kube's etcd_lease_object_counts: the writes counted against the previous lease, the granting one included.
    assert.deepEqual(counted, [1, 3, 2]);
    assert.equal(await manager({ reuseDurationSeconds: 2 }).leaseFor(3600), '4');
    assert.equal(grants[3], 3602);
    // 5% of 10 s truncates to 0: no reuse.
    const none = manager();
    assert.equal(await none.leaseFor(10), '5');
    assert.equal(await none.leaseFor(10), '6');
    assert.deepEqual(grants.slice(4), [10, 10]);
  });

  void test('at most 1000 writes per lease; concurrent writes wait for one grant', async () => {
    let granted = 0;
    const counted: number[] = [];
    const leases = createLeaseManager(async () => {
      await sleep(20);
      return String(++granted);
    }, { onGrant: (count) => counted.push(count) });
    const ids = await Promise.all(Array.from({ length: 1001 }, () => leases.leaseFor(3600)));
    assert.equal(ids.filter((id) => id === '1').length, 1000);
    assert.equal(ids[1000], '2');
    assert.equal(granted, 2);
    assert.deepEqual(counted, [1, 1001]);
  });

  void test('a failed grant fails its write and the next write grants again', async () => {
    let calls = 0;
    const leases = createLeaseManager(async () => {
      if (++calls === 1) throw new Error('etcd down');
      return '7';
    });
    await assert.rejects(leases.leaseFor(60), /etcd down/);
    assert.equal(await leases.leaseFor(60), '7');
  });
});

void test('the request size checked before a write counts the lease ID (a 19-digit ID takes 10 bytes)', () => {
  const key = Buffer.from('/registry/events/default/e');
  const value = Buffer.alloc(300);
  for (const lease of ['7', '929608626603677124']) {
    const txn = {
      compare: [{ key, target: 'Mod' as const, result: 'Equal' as const, mod_revision: 5 }],
      success: [{ request_put: { key, value, lease } }],
      failure: [{ request_range: { key } }],
    };
    assert.equal(conditionalPutSize(key.length, 5, value.length, lease), encodeTxnRequest(txn, 0).length, lease);
  }
  assert.equal(conditionalPutSize(key.length, 5, value.length, '929608626603677124') - conditionalPutSize(key.length, 5, value.length), 10);
});

void describe('writes with a TTL against etcd', { concurrency: false }, () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  let ours: EtcdUnaryClient;
  let theirs: Etcd3;
  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
    ours = createEtcdUnaryClient(etcd.endpoints);
    theirs = createEtcdClient(etcd.endpoints);
  });
  after(async () => {
    await storage.close();
    ours.close();
    theirs.close();
    await etcd.stop();
  });

  const leaseOfKey = async (key: string): Promise<string | undefined> => (await ours.range({ key: Buffer.from(key) }, T)).kvs[0]?.lease;
  const grantedTtl = async (id: string): Promise<number> => Number((await theirs.leaseClient.leaseTimeToLive({ ID: id })).grantedTTL);

  void test('create and update with a TTL share one lease of TTL + margin; without a TTL no lease', async () => {
    const prefix = `${uniquePrefix()}/events/default`;
    for (const name of ['a', 'b', 'c']) await storage.create(`${prefix}/${name}`, event(name), { ttlSeconds: 3600 });
    const ids = await Promise.all(['a', 'b', 'c'].map((name) => leaseOfKey(`${prefix}/${name}`)));
    assert.notEqual(ids[0], '0');
    assert.deepEqual(new Set(ids).size, 1, `one lease for the burst: ${ids.join(', ')}`);
    assert.equal(await grantedTtl(ids[0]!), 3660);

    // Another scope (kube: another resource's storage) has leases of its own.
    await storage.create(`${prefix}/other`, event('other'), { ttlSeconds: 3600, leaseScope: 'events.k8s.io/events' });
    const other = await leaseOfKey(`${prefix}/other`);
    assert.ok(other !== undefined && other !== '0' && other !== ids[0]);

    await storage.create(`${prefix}/plain`, event('plain'));
    assert.equal(await leaseOfKey(`${prefix}/plain`), '0');

    // An update without a TTL drops the lease (kube's writes without TTL do); one with a TTL sets it again.
    await storage.guaranteedUpdate(`${prefix}/a`, (current) => ({ ...current!, message: 'x' }));
    assert.equal(await leaseOfKey(`${prefix}/a`), '0');
    await storage.guaranteedUpdate(`${prefix}/a`, (current) => ({ ...current!, message: 'y' }), { ttlSeconds: 3600 });
    assert.equal(await leaseOfKey(`${prefix}/a`), ids[0]);
  });

  void test('a key written with a 2 s TTL is gone after the TTL; an update moves it to a fresh lease', async () => {
    const prefix = `${uniquePrefix()}/events/default`;
    const short = createEtcdStorage({ endpoints: etcd.endpoints });
    try {
      await short.create(`${prefix}/brief`, event('brief'), { ttlSeconds: 2 });
      await short.create(`${prefix}/kept`, event('kept'), { ttlSeconds: 2 });
      const first = await leaseOfKey(`${prefix}/kept`);
      assert.equal(await grantedTtl(first!), 2);
      await sleep(1200);
      await short.guaranteedUpdate(`${prefix}/kept`, (current) => ({ ...current!, message: 'again' }), { ttlSeconds: 4 });
      const second = await leaseOfKey(`${prefix}/kept`);
      assert.notEqual(second, first, 'the update took a lease that outlives its TTL');
      const deadline = Date.now() + 6000;
      while ((await short.get(`${prefix}/brief`, { ignoreNotFound: true })) !== undefined) {
        assert.ok(Date.now() < deadline, 'the key outlived its lease');
        await sleep(100);
      }
      // The refreshed key lives on under its new lease.
      assert.notEqual(await short.get(`${prefix}/kept`, { ignoreNotFound: true }), undefined);
    } finally {
      await short.close();
    }
  });
});
