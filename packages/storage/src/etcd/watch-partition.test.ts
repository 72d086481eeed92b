/**
 * Watches and change feeds when the etcd member serving them is cut off from the majority
 * (a real three-member cluster; the member's raft traffic is dropped by the test cluster's
 * peer gates, clients still reach it). Such a member has no leader and receives no new
 * revisions, so its watch streams go silent; they must move to a member with a leader and
 * resume after the last revision delivered, without a gap, a repeat, or an error that makes
 * the consumer (the watch cache) re-list.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import type { Change, WatchEvent } from '../interface.js';
import { isStorageError, type StorageError } from '../errors.js';
import { startEtcdCluster, uniquePrefix, type EtcdClusterMember, type TestEtcdCluster } from '../testing/index.js';
import { createEtcdStorage, type EtcdStorage } from './etcd-storage.js';
import { openWatchStream, useOwnWatchClient } from './watch-stream.js';
import { createEtcdUnaryClient, type EtcdUnaryClient } from './grpc/unary-client.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: {} });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Open watch streams per member, from etcd's own gauge. */
async function watchStreams(cluster: TestEtcdCluster): Promise<number[]> {
  return Promise.all(
    cluster.members.map(async (m) => {
      const text = await (await fetch(`${m.endpoint}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('etcd_debugging_mvcc_watch_stream_total '));
      return Number(line?.split(' ')[1] ?? NaN);
    }),
  );
}

/** The member serving the only open watch stream of the cluster. */
async function streamMember(cluster: TestEtcdCluster): Promise<EtcdClusterMember> {
  let counts: number[] = [];
  await until('exactly one watch stream in the cluster', async () => {
    counts = await watchStreams(cluster);
    return counts.reduce((a, b) => a + b, 0) === 1;
  });
  return cluster.members[counts.indexOf(1)]!;
}

/**
 * Writes `names` under `prefix`, each through whichever member the client picks (calls fail
 * over). A write that times out (a spurious election on a loaded machine) may or may not have
 * been applied: it is looked up, and made again only if it was not.
 */
async function writeAll(storage: EtcdStorage, prefix: string, names: string[]): Promise<number[]> {
  const revisions: number[] = [];
  for (const name of names) {
    const key = `${prefix}/${name}`;
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await storage.create(key, cm(name));
        revisions.push(Number(created.metadata.resourceVersion));
        break;
      } catch (err) {
        if (attempt >= 5 || !isStorageError(err, 'Unreachable')) throw err;
        const existing = await storage.get(key, { ignoreNotFound: true }).catch(() => undefined);
        if (existing !== undefined) {
          revisions.push(Number(existing.metadata.resourceVersion));
          break;
        }
      }
    }
  }
  return revisions;
}

void describe('watches on a partitioned etcd member', { concurrency: false }, () => {
  let cluster: TestEtcdCluster;

  before(async () => {
    // Short raft timeouts (etcd's defaults are 100/1000 ms): a cut-off member knows it has no
    // leader within about a second, without spurious elections on a loaded machine.
    cluster = await startEtcdCluster({ members: 3, heartbeatMs: 80, electionMs: 800 });
  });

  after(async () => {
    await cluster?.stop();
  });

  // Each test starts with all three members following one leader (an earlier test may have failed mid-partition).
  beforeEach(async () => {
    cluster.heal();
    await cluster.waitLeader(15_000);
  });

  /**
   * Cuts `member` off, waits until it knows it has no leader and the others follow one (a
   * write during their election would time out); `heal` waits for one leader of all three.
   */
  async function partition(member: EtcdClusterMember): Promise<void> {
    cluster.partition(member);
    await cluster.waitLeaderless(member);
    await cluster.waitLeader(15_000);
  }
  async function heal(): Promise<void> {
    cluster.heal();
    await cluster.waitLeader(15_000);
  }

  void test('the test cluster: a partitioned member loses its leader and falls behind; healing lets it catch up', async () => {
    assert.equal(cluster.endpoints.length, 3);
    const leader = await cluster.waitLeader();
    const member = cluster.members.find((m) => m !== leader)!;
    const before = await cluster.status(member);
    assert.notEqual(before.leader, '0');
    await partition(member);
    const storage = createEtcdStorage({ endpoints: cluster.endpoints.filter((e) => e !== member.endpoint) });
    try {
      await writeAll(storage, uniquePrefix('/gate'), ['a', 'b']);
      const majority = await cluster.status(leader);
      assert.ok((await cluster.status(member)).raftIndex < majority.raftIndex);
      await heal();
      await until('the healed member catching up', async () => (await cluster.status(member)).raftIndex >= majority.raftIndex);
    } finally {
      await storage.close();
    }
  });

  void test('change feed: etcd cancels the stream on the leaderless member ("no leader"); the feed resumes on another member from its last revision, with no error, gap or repeat', async () => {
    // No leader check of our own: this is etcd's cancellation (the stream carries hasleader).
    const storage = createEtcdStorage({ endpoints: cluster.endpoints, watchLeaderCheckIntervalMs: 0 });
    const prefix = uniquePrefix('/feed-partition');
    const changes: Change[] = [];
    const errors: StorageError[] = [];
    try {
      const [start] = await writeAll(storage, prefix, ['before']);
      const feed = storage.feed(prefix, start!, {
        onChanges: (batch) => changes.push(...batch),
        onProgress: () => {},
        onError: (err) => errors.push(err as StorageError),
      });
      try {
        const member = await streamMember(cluster);
        const [first] = await writeAll(storage, prefix, ['first']);
        await until('the first change', () => changes.length === 1);
        await partition(member);
        const written = await writeAll(storage, prefix, ['p0', 'p1', 'p2', 'p3']);
        await until('the changes written during the partition', () => changes.length >= 5 || errors.length > 0);
        assert.deepEqual(errors.map((e) => `${e.code}: ${e.message}`), [], 'the feed reported an error (its consumer would re-list)');
        assert.deepEqual(
          changes.map((c) => [c.key.slice(prefix.length + 1), c.revision]),
          [['first', first], ...['p0', 'p1', 'p2', 'p3'].map((name, i) => [name, written[i]])],
        );
        const counts = await watchStreams(cluster);
        assert.equal(counts[cluster.members.indexOf(member)], 0, `the stream left ${member.name}: ${counts.join(',')}`);
        assert.equal(counts.reduce((a, b) => a + b, 0), 1);
        await heal();
        const [healed] = await writeAll(storage, prefix, ['healed']);
        await until('the change after healing', () => changes.length === 6);
        assert.equal(changes[5]!.revision, healed);
        assert.deepEqual(errors, []);
      } finally {
        feed.close();
      }
    } finally {
      cluster.heal();
      await storage.close();
    }
  });

  void test('leader check: streams without hasleader (never cancelled by etcd) move off a leaderless member; an uncached watch and a change feed go on without gap or repeat', async () => {
    // Watches through a client whose calls do not require a leader: etcd never cancels its
    // streams, so only the leader check can tell that the member serving them is cut off.
    // Writes go through a client that requires one (as kapi's), so they fail over.
    const client = new Etcd3({ hosts: cluster.endpoints, dialTimeout: 2000 });
    const watching = createEtcdStorage({ endpoints: cluster.endpoints, client, watchLeaderCheckIntervalMs: 200 });
    const writer = createEtcdStorage({ endpoints: cluster.endpoints });
    const prefix = uniquePrefix('/leader-check');
    const changes: Change[] = [];
    const errors: StorageError[] = [];
    const events: WatchEvent[] = [];
    const total = async () => (await watchStreams(cluster)).reduce((a, b) => a + b, 0);
    try {
      const [start] = await writeAll(writer, prefix, ['before']);
      const feed = watching.feed(prefix, start!, {
        onChanges: (batch) => changes.push(...batch),
        onProgress: () => {},
        onError: (err) => errors.push(err as StorageError),
      });
      const member = await streamMember(cluster);
      const index = cluster.members.indexOf(member);
      // The uncached watch on the same member (members are picked at random), so that one
      // partition cuts both off.
      let watch = await watching.watch(prefix, { resourceVersion: String(start) });
      for (let attempt = 1; ; attempt++) {
        await until('the watch stream', async () => (await total()) === 2);
        if ((await watchStreams(cluster))[index] === 2) break;
        assert.ok(attempt < 40, 'the watch never landed on the feed\'s member');
        watch.stop();
        await until('the watch stream to close', async () => (await total()) === 1);
        watch = await watching.watch(prefix, { resourceVersion: String(start) });
      }
      const reading = (async () => {
        for await (const event of watch) events.push(event);
      })();
      try {
        const [first] = await writeAll(writer, prefix, ['first']);
        await until('the first change', () => changes.length === 1 && events.length === 1);
        await partition(member);
        const written = await writeAll(writer, prefix, ['p0', 'p1', 'p2']);
        const expected = [['first', first], ...['p0', 'p1', 'p2'].map((name, i) => [name, written[i]])];
        await until('the changes written during the partition', () => (changes.length >= 4 && events.length >= 4) || errors.length > 0);
        assert.deepEqual(errors.map((e) => `${e.code}: ${e.message}`), []);
        assert.deepEqual(changes.map((c) => [c.key.slice(prefix.length + 1), c.revision]), expected);
        assert.deepEqual(
          events.map((e) => [e.type, (e.object as { metadata: { name: string } }).metadata.name, e.revision]),
          expected.map(([name, revision]) => ['ADDED', name, revision]),
        );
        const counts = await watchStreams(cluster);
        assert.equal(counts[index], 0, `both streams left ${member.name}: ${counts.join(',')}`);
        assert.equal(counts.reduce((a, b) => a + b, 0), 2);
      } finally {
        feed.close();
        watch.stop();
        await reading;
      }
    } finally {
      cluster.heal();
      await watching.close();
      await writer.close();
      client.close();
    }
    await heal();
  });

  // The two tests below drive openWatchStream on the etcd3 client's streams and on kapi's own (grpc/watch-call.ts).
  for (const watchClient of ['etcd3', 'http2'] as const) {
    const owns = new Map<Etcd3, EtcdUnaryClient>();
    const watchingClient = (): Etcd3 => {
      const client = new Etcd3({ hosts: cluster.endpoints, dialTimeout: 2000 });
      if (watchClient === 'http2') {
        const own = createEtcdUnaryClient(cluster.endpoints, { dialTimeoutMs: 2000 });
        owns.set(client, own);
        useOwnWatchClient(client, own);
      }
      return client;
    };
    const closeClient = (client: Etcd3): void => {
      client.close();
      owns.get(client)?.close();
      owns.delete(client);
    };

    void test(`openWatchStream (${watchClient}): names its member; with a leader check, a stream on a member that loses its leader ends with Unreachable`, async () => {
      const client = watchingClient();
      const prefix = uniquePrefix('/stream-member');
      const ended: StorageError[] = [];
      let created = false;
      const stream = openWatchStream(
        client,
        { key: Buffer.from(prefix), startRevision: 0, prevKv: false, progressNotify: false, leaderCheckIntervalMs: 100 },
        { onCreated: () => (created = true), onEvents: () => {}, onProgress: () => {}, onCompacted: () => {}, onError: (err) => ended.push(err) },
      );
      try {
        await until('the watch created', () => created);
        const member = cluster.memberAt(stream.member() ?? '');
        assert.ok(member, `stream.member() = ${stream.member()} is none of ${cluster.endpoints.join(', ')}`);
        assert.equal(member, await streamMember(cluster));
        await partition(member);
        await until('the stream to end', () => ended.length > 0);
        assert.equal(ended.length, 1);
        assert.equal(ended[0]!.code, 'Unreachable');
        assert.match(ended[0]!.message, /has no leader/);
      } finally {
        stream.close();
        cluster.heal();
        closeClient(client);
      }
      await heal();
    });

    void test(`openWatchStream (${watchClient}): a stream whose member never confirms the watch (a hung member) ends with Unreachable after the create timeout`, async () => {
      const leader = await cluster.waitLeader();
      const hung = cluster.members.find((m) => m !== leader)!;
      cluster.pause(hung);
      const streams: ReturnType<typeof openWatchStream>[] = [];
      const clients: Etcd3[] = [];
      try {
        // Members are picked at random: open streams (each on a fresh client, which knows no
        // leader yet) until one lands on the hung member.
        let ended: StorageError | undefined;
        let onHung: ReturnType<typeof openWatchStream> | undefined;
        for (let attempt = 1; onHung === undefined; attempt++) {
          assert.ok(attempt <= 40, `no stream landed on ${hung.name}`);
          const client = watchingClient();
          clients.push(client);
          let mine: StorageError | undefined;
          const stream = openWatchStream(
            client,
            { key: Buffer.from(uniquePrefix('/hung')), startRevision: 0, prevKv: false, progressNotify: false, leaderCheckIntervalMs: 100 },
            { onEvents: () => {}, onProgress: () => {}, onCompacted: () => {}, onError: (err) => (mine = err) },
          );
          streams.push(stream);
          await until('the stream to be opened', () => stream.member() !== undefined || mine !== undefined, 5000);
          if (cluster.memberAt(stream.member() ?? '') === hung) {
            onHung = stream;
            await until('the stream on the hung member to end', () => mine !== undefined, 10_000);
            ended = mine;
          }
        }
        assert.equal(ended?.code, 'Unreachable');
        assert.match(ended!.message, /did not confirm the watch within 3000 ms/);
      } finally {
        for (const stream of streams) stream.close();
        cluster.resume(hung);
        for (const client of clients) closeClient(client);
      }
    });
  }
});
