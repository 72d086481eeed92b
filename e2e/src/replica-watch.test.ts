/**
 * Two replicas on one etcd behave as one server for watches and reads: writers on both,
 * watchers on both whose connections are destroyed mid-stream and that resume from their last
 * seen resourceVersion on the other replica; every watcher must see every acknowledged write
 * exactly once, in resourceVersion order (the reference is etcd's own history of the keys). A write acknowledged by one replica is visible on
 * the other to NotOlderThan reads at its resourceVersion and to most-recent reads.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { churnConfigMaps, type AcknowledgedWrite } from './harness/churn.js';
import { etcdHistory } from './harness/etcd-history.js';
import { ensureNamespace, RestClient, type KubeList, type KubeObject } from './harness/rest.js';
import { openWatch, type WatchEnd } from './harness/watch-stream.js';

const ns = 'e2e-replica-watch';
let cluster: TestCluster;
let clients: RestClient[] = [];

before(async () => {
  cluster = await startCluster({ replicas: 2 });
  clients = cluster.servers.map((s) => new RestClient(s.url, { maxSockets: 16 }));
  await ensureNamespace(clients[0]!, ns);
});
after(async () => {
  for (const c of clients) c.close();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const collection = `/api/v1/namespaces/${ns}/configmaps`;
const key = (w: Pick<AcknowledgedWrite, 'type' | 'name' | 'resourceVersion'>) => `${w.type} ${w.name}@${w.resourceVersion}`;

interface WatcherReport {
  id: number;
  seen: AcknowledgedWrite[];
  streams: number;
  kills: number;
  bookmarks: number;
  problems: string[];
  ends: Pick<WatchEnd, 'status' | 'reason'>[];
}

/**
 * Watches the namespace from `fromRV`, starting on replica `firstReplica`. Each stream is
 * killed after a random 50–300 ms or a random 5–40 events, then resumed from the last seen
 * resourceVersion (events and bookmarks) on the other replica. Stops once it has seen
 * `stopAt()` (when defined), or at `deadline`.
 */
async function runWatcher(id: number, firstReplica: number, fromRV: string, stopAt: () => bigint | undefined, deadline: number): Promise<WatcherReport> {
  const report: WatcherReport = { id, seen: [], streams: 0, kills: 0, bookmarks: 0, problems: [], ends: [] };
  let last = BigInt(fromRV);
  let replica = firstReplica;
  const reached = () => {
    const target = stopAt();
    return target !== undefined && last >= target;
  };
  while (!reached()) {
    if (Date.now() > deadline) {
      report.problems.push(`deadline: last seen ${last}, want ${String(stopAt())}`);
      break;
    }
    report.streams++;
    const killAfterEvents = 5 + Math.floor(Math.random() * 35);
    let eventsThisStream = 0;
    const stream = openWatch(cluster.servers[replica]!.url, `${collection}?watch=1&allowWatchBookmarks=true&resourceVersion=${last}`, (event) => {
      const rvText = event.object?.metadata?.resourceVersion ?? '';
      if (event.type === 'ERROR') {
        report.problems.push(`ERROR event on replica ${replica} from ${last}: ${JSON.stringify(event.object)}`);
        return;
      }
      if (!/^\d+$/.test(rvText)) {
        report.problems.push(`${event.type} without a resourceVersion: ${JSON.stringify(event.object).slice(0, 200)}`);
        return;
      }
      const rv = BigInt(rvText);
      if (event.type === 'BOOKMARK') {
        report.bookmarks++;
        if (rv < last) report.problems.push(`bookmark ${rv} after ${last}`);
        else last = rv;
        return;
      }
      if (rv <= last) report.problems.push(`${event.type} ${event.object.metadata.name}@${rv} not after ${last} (replica ${replica})`);
      last = rv > last ? rv : last;
      report.seen.push({ type: event.type, name: event.object.metadata.name, resourceVersion: rvText });
      if (++eventsThisStream >= killAfterEvents) stream.kill();
      if (reached()) stream.kill();
    });
    const timer = setTimeout(() => stream.kill(), 50 + Math.random() * 250);
    const end = await stream.done;
    clearTimeout(timer);
    report.ends.push({ status: end.status, reason: end.reason });
    if (end.reason === 'killed') report.kills++;
    if (end.badLines.length > 0) report.problems.push(`lines that are not one JSON event: ${JSON.stringify(end.badLines.slice(0, 3))}`);
    if (end.status !== 200 && end.reason !== 'killed') {
      report.problems.push(`watch on replica ${replica} from ${last}: HTTP ${end.status} ${end.body ?? end.error?.message ?? ''}`.slice(0, 400));
      if (end.status !== 0) break;
      await sleep(50);
    } else if (end.status === 200 && !(end.contentType ?? '').startsWith('application/json')) {
      report.problems.push(`watch Content-Type ${end.contentType}`);
    }
    replica = 1 - replica;
  }
  return report;
}

void test('watchers on both replicas, killed mid-stream and resumed on the other, see every write exactly once and in order', async (t) => {
  const start = await clients[0]!.expect(201, 'POST', collection, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'start' }, data: { a: '1' } });
  const fromRV = start.metadata.resourceVersion;
  const target: { finalRV?: bigint } = {};
  const deadline = Date.now() + 60_000;
  const watchers = Array.from({ length: 4 }, (_, i) => runWatcher(i, i % 2, fromRV, () => target.finalRV, deadline));
  // If an assertion below fails, let the watchers stop at once instead of at the deadline.
  t.after(() => (target.finalRV ??= -1n));

  const churn = await churnConfigMaps({ clients, namespace: ns, existing: [], prefix: 'w', writers: 4, durationMs: 3000, pauseMs: 3 });
  assert.deepEqual(churn.errors, []);
  const final = await clients[1]!.expect(201, 'POST', collection, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'final' }, data: { a: '1' } });
  target.finalRV = BigInt(final.metadata.resourceVersion);
  // The ground truth is etcd's own history of the namespace's keys; every acknowledged write
  // must be in it (deletes answer a Status without a resourceVersion: matched by name).
  const expected = await etcdHistory(cluster.etcd.endpoints, `/registry/configmaps/${ns}/`, BigInt(fromRV), target.finalRV);
  const acknowledged = [...churn.writes, { type: 'ADDED' as const, name: 'final', resourceVersion: final.metadata.resourceVersion }];
  const byType = (l: AcknowledgedWrite[]) => JSON.stringify(l.reduce<Record<string, number>>((m, w) => ((m[w.type] = (m[w.type] ?? 0) + 1), m), {}));
  assert.equal(expected.length, acknowledged.length, `etcd history ${byType(expected)} and acknowledged writes ${byType(acknowledged)} differ in number`);
  const history = new Set(expected.map(key));
  for (const w of acknowledged) {
    if (w.resourceVersion !== '') assert.ok(history.has(key(w)), `acknowledged ${key(w)} is not in etcd's history`);
    else assert.ok(expected.some((e) => e.type === 'DELETED' && e.name === w.name), `acknowledged delete of ${w.name} is not in etcd's history`);
  }

  const reports = await Promise.all(watchers);
  for (const r of reports) {
    t.diagnostic(`watcher ${r.id}: ${r.seen.length} events over ${r.streams} streams, ${r.kills} killed, ${r.bookmarks} bookmarks`);
    assert.deepEqual(r.problems, [], `watcher ${r.id}`);
    const seen = r.seen.map(key);
    assert.equal(new Set(seen).size, seen.length, `watcher ${r.id} saw an event twice`);
    assert.deepEqual(seen, expected.map(key), `watcher ${r.id} did not see exactly etcd's history, in order`);
    assert.ok(r.kills >= 3, `watcher ${r.id} was killed only ${r.kills} times`);
  }
});

void test('a write acknowledged by one replica is visible on the other to NotOlderThan reads at its resourceVersion and to most-recent reads', async () => {
  for (let i = 0; i < 30; i++) {
    const [writer, reader] = i % 2 === 0 ? [clients[0]!, clients[1]!] : [clients[1]!, clients[0]!];
    const name = `ryw-${i}`;
    const created = await writer.expect(201, 'POST', collection, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '0' } });
    const rv = created.metadata.resourceVersion;

    const notOlder = await reader.expect<KubeList>(200, 'GET', `${collection}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.ok(BigInt(notOlder.metadata.resourceVersion) >= BigInt(rv), `list RV ${notOlder.metadata.resourceVersion} < ${rv}`);
    assert.equal(notOlder.items.find((o) => o.metadata.name === name)?.metadata.resourceVersion, rv, `NotOlderThan=${rv} list misses ${name}`);

    const mostRecent = await reader.expect<KubeList>(200, 'GET', collection);
    assert.equal(mostRecent.items.find((o) => o.metadata.name === name)?.metadata.resourceVersion, rv, `most-recent list misses ${name}@${rv}`);

    const got = await reader.expect<KubeObject>(200, 'GET', `${collection}/${name}?resourceVersion=${rv}`);
    assert.equal(got.metadata.resourceVersion, rv);

    const patched = await writer.expect<KubeObject>(200, 'PATCH', `${collection}/${name}`, { data: { v: '1' } }, 'application/merge-patch+json');
    const fresh = await reader.expect<KubeObject>(200, 'GET', `${collection}/${name}`);
    assert.equal(fresh.metadata.resourceVersion, patched.metadata.resourceVersion, `most-recent get of ${name} is stale`);
    assert.deepEqual(fresh.data, { v: '1' });
  }
});
