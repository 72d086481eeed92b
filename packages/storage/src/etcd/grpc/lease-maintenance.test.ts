import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster, uniquePrefix } from '../../testing/index.js';
import { toStorageError } from '../errors.js';
import { ttlKeys } from '../ttl-keys.js';
import { createEtcdUnaryClient } from './unary-client.js';
import { besideEtcd3, failure } from './beside-etcd3.js';

const T = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

void describe('Compact, LeaseGrant and Status on the own client, beside the etcd3 client', { concurrency: false }, () => {
  const pair = besideEtcd3();

  void test('Status answers as the etcd3 client does, for the cluster and for one member', async () => {
    const [mine, etcd3] = [await pair.ours.status(T), await pair.theirs.maintenance.status()];
    assert.deepEqual(Object.keys(mine).sort(), Object.keys(etcd3).sort());
    for (const field of ['version', 'dbSize', 'leader', 'isLearner', 'errors'] as const) assert.deepEqual(mine[field], etcd3[field], field);
    assert.equal(mine.header.cluster_id, etcd3.header.cluster_id);
    assert.equal(mine.header.member_id, etcd3.header.member_id);
    assert.match(mine.version, /^3\.\d+\.\d+/);
    assert.ok(Number(mine.dbSize) > 0);
    assert.notEqual(mine.leader, '0');
    assert.deepEqual(pair.ours.hosts, [new URL(pair.etcd.endpoints[0]!).host]);
    const member = await pair.ours.memberStatus(pair.ours.hosts[0]!, T);
    assert.equal(member.header.member_id, mine.header.member_id);
    await assert.rejects(pair.ours.memberStatus('127.0.0.1:1', T), /not one of the etcd endpoints/);
  });

  void test('a lease granted by the own client has the ID etcd gave it (63-bit IDs kept exact), and its keys expire', async () => {
    const prefix = uniquePrefix();
    const lease = await pair.ours.leaseGrant({ TTL: 2 }, T);
    assert.equal(lease.TTL, '2');
    assert.equal(lease.error, '');
    assert.match(lease.ID, /^[1-9]\d*$/);
    const key = Buffer.from(`${prefix}/leased`);
    await pair.ours.put({ key, value: Buffer.from('v'), lease: lease.ID }, T);
    // etcd3 reads back the exact lease ID, and pair.etcd knows the lease by it.
    assert.equal((await pair.theirs.kv.range({ key })).kvs[0]!.lease, lease.ID);
    const live = await pair.theirs.leaseClient.leaseTimeToLive({ ID: lease.ID });
    assert.ok(Number(live.TTL) > 0 && Number(live.TTL) <= 2, live.TTL);
    // A lease asked for by ID: granted with exactly that ID; asked for again, refused as etcd3's call is.
    const wanted = '7587880000000000123';
    assert.equal((await pair.ours.leaseGrant({ TTL: 5, ID: wanted }, T)).ID, wanted);
    const [mine, etcd3] = [await failure(pair.ours.leaseGrant({ TTL: 5, ID: wanted }, T)), await failure(pair.theirs.leaseClient.leaseGrant({ TTL: 5, ID: wanted }))];
    assert.equal(mine.constructor, etcd3.constructor);
    assert.equal(mine.message, etcd3.message);
    assert.match(mine.message, /lease already exists/);
    await waitFor(async () => (await pair.theirs.kv.range({ key })).kvs.length === 0, 10_000);
  });

  void test('Compact compacts as the etcd3 call does, and fails as it does', async () => {
    const key = Buffer.from(`${uniquePrefix()}/c`);
    const first = await pair.ours.put({ key, value: Buffer.from('1') }, T);
    const second = await pair.ours.put({ key, value: Buffer.from('2') }, T);
    assert.deepEqual((await pair.theirs.kv.range({ key, revision: first.header.revision })).kvs[0]!.value.toString(), '1');
    const res = await pair.ours.compact({ revision: second.header.revision, physical: true }, T);
    assert.equal(res.header.revision, second.header.revision);
    assert.match((await failure(pair.theirs.kv.range({ key, revision: first.header.revision }))).message, /required revision has been compacted/);
    // Compacting at or below the compacted revision, or past the current one: etcd3's errors, classified alike.
    const current = (await pair.ours.range({ key }, T)).header.revision;
    for (const revision of [first.header.revision, String(Number(current) + 100)]) {
      const [mine, etcd3] = [await failure(pair.ours.compact({ revision }, T)), await failure(pair.theirs.kv.compact({ revision }))];
      assert.equal(mine.constructor, etcd3.constructor, revision);
      assert.equal(mine.message, etcd3.message, revision);
      assert.deepEqual(toStorageError(mine, 'k'), toStorageError(etcd3, 'k'));
    }
  });

  void test('ttlKeys on the own client: written under a lease, listed, removed, and expired', async () => {
    const prefix = `${uniquePrefix()}/masterleases/`;
    const keys = ttlKeys(pair.ours, prefix);
    await keys.put('10.0.0.1', { kind: 'Endpoints' }, 1);
    await keys.put('10.0.0.2', { kind: 'Endpoints' }, 60);
    assert.deepEqual((await keys.list()).map((k) => k.name).sort(), ['10.0.0.1', '10.0.0.2']);
    assert.deepEqual((await ttlKeys(pair.theirs, prefix).list()).map((k) => k.name).sort(), ['10.0.0.1', '10.0.0.2']);
    await keys.remove('10.0.0.2');
    await keys.remove('10.0.0.2');
    await waitFor(async () => (await keys.list()).length === 0, 10_000);
    await assert.rejects(keys.put('x', {}, 0), RangeError);
  });
});

void describe('Status on a cluster', { concurrency: false }, () => {
  void test('memberStatus asks the member named; a cut-off member says "no leader"; status goes to a member that answers', async () => {
    const cluster = await startEtcdCluster();
    const client = createEtcdUnaryClient(cluster.endpoints);
    try {
      await cluster.waitLeader(15_000);
      const statuses = await Promise.all(client.hosts.map((host) => client.memberStatus(host, T)));
      assert.equal(new Set(statuses.map((s) => s.header.member_id)).size, cluster.members.length);
      for (const [i, status] of statuses.entries()) assert.equal(status.header.member_id, (await cluster.status(cluster.members[i]!)).memberId);
      const cut = cluster.members[0]!;
      cluster.partition(cut);
      await cluster.waitLeaderless(cut);
      // The calls carry hasleader: the cut member refuses at once.
      assert.match((await failure(client.memberStatus(client.hosts[0]!, T))).message, /etcdserver: no leader/);
      await cluster.waitLeader(15_000);
      for (let i = 0; i < 5; i++) assert.notEqual((await client.status(T)).header.member_id, statuses[0]!.header.member_id);
    } finally {
      client.close();
      await cluster.stop();
    }
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('timed out');
    await sleep(200);
  }
}
