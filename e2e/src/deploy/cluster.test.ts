/**
 * `make cluster` end to end: deploy/cluster.sh brings up three etcd members, three kapi
 * replicas and kapi-lb on a free block of ports; kubectl and plain HTTPS clients work through
 * the balancer; replicas and etcd members are killed, restarted and partitioned; `down`
 * leaves nothing running.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Kubectl } from '../harness/kubectl.js';
import { openWatch, type WatchEnd } from '../harness/watch-stream.js';
import { httpRequestJson } from './http.js';
import { alive, commandLine, freePortBlock, LocalCluster, portFree, type ClusterInfo } from './local-cluster.js';
import { loadTopology, type Topology } from './repo.js';

interface Obj {
  metadata: { name: string; resourceVersion: string; uid: string };
  data?: Record<string, string>;
}

let topology: Topology;
let cluster: LocalCluster;
let info: ClusterInfo;
let kubectl: Kubectl;
let ca: string;
/** The kubeconfig's client certificate (system:masters): the cluster runs with RBAC. */
let admin: { cert: string; key: string };
let torn = false;
const ns = 'e2e-local-cluster';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const b64 = (s: string) => Buffer.from(s).toString('base64');

before(async () => {
  topology = await loadTopology();
  // Another run may take a port between the check and the bind: try another block then.
  for (let attempt = 1; ; attempt++) {
    cluster = new LocalCluster(await freePortBlock(topology.localPortCount));
    const started = Date.now();
    const up = await cluster.run(['up']);
    if (up.code === 0) {
      process.stderr.write(`# local cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s (base port ${cluster.basePort})\n`);
      break;
    }
    await cluster.run(['down', '--purge']);
    if (attempt >= 3 || !/is in use/.test(up.stderr)) throw new Error(`deploy/cluster.sh up failed:\n${up.stderr}\n${up.stdout}`);
  }
  info = await cluster.info();
  ca = cluster.ca(info);
  admin = { cert: readFileSync(info.clientCertificate, 'utf8'), key: readFileSync(info.clientKey, 'utf8') };
  kubectl = new Kubectl({ kubeconfig: info.kubeconfig, cacheDir: join(cluster.dir, 'kube-cache'), timeoutMs: 30_000 });
});

after(async () => {
  if (!torn && cluster) await cluster.run(['down', '--purge']);
});

/** `kind: v1 ConfigMap` through the balancer's URL with the shared CA: create, read back. */
async function createConfigMapOverHttp(name: string, data: Record<string, string>): Promise<Obj> {
  const res = await httpRequestJson('POST', `${info.server}/api/v1/namespaces/${ns}/configmaps`, {
    ca,
    ...admin,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
  });
  assert.equal(res.status, 201, res.body);
  return res.json as Obj;
}

/** POST requests counted by replica `url`'s apiserver_request_total for configmaps. */
async function configMapCreates(url: string): Promise<number> {
  const res = await httpRequestJson('GET', `${url}/metrics`, admin);
  assert.equal(res.status, 200);
  let total = 0;
  for (const line of res.body.split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('verb="POST"') && line.includes('resource="configmaps"')) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

/** Runs `count` reads and writes through the balancer; returns the failures' messages. */
async function workload(label: string, count: number): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const name = `${label}-${i}`;
      const created = await httpRequestJson('POST', `${info.server}/api/v1/namespaces/${ns}/configmaps`, {
        ca,
        ...admin,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } },
      });
      if (created.status !== 201) failures.push(`create ${name}: ${created.status} ${created.body.slice(0, 200)}`);
      const got = await httpRequestJson('GET', `${info.server}/api/v1/namespaces/${ns}/configmaps/${name}`, { ca, ...admin });
      if (got.status !== 200) failures.push(`get ${name}: ${got.status} ${got.body.slice(0, 200)}`);
    } catch (err) {
      failures.push(`${label}-${i}: ${(err as Error).message}`);
    }
  }
  return failures;
}

/** etcd's client port wants a certificate of its CA (the cluster's etcd-certs/, deploy/etcd-certs.mjs): kapi's client certificate. */
function etcdClientTls(): { ca: string; cert: string; key: string } {
  const dir = join(info.dir, 'etcd-certs');
  return { ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), cert: readFileSync(join(dir, 'client.crt'), 'utf8'), key: readFileSync(join(dir, 'client.key'), 'utf8') };
}

/** A request to etcd's JSON gateway of one member, over mutual TLS. */
function etcdRequest(method: string, url: string, options: { body?: unknown; timeoutMs?: number } = {}): ReturnType<typeof httpRequestJson> {
  return httpRequestJson(method, url, { ...options, ...etcdClientTls() });
}

/** etcd's JSON gateway: /v3/maintenance/status of one member. */
async function memberStatus(clientURL: string): Promise<{ leader: string; memberId: string; raftIndex: number }> {
  const res = await etcdRequest('POST', `${clientURL}/v3/maintenance/status`, { body: {}, timeoutMs: 3000 });
  assert.equal(res.status, 200, res.body);
  const s = res.json as { header: { member_id: string }; leader: string; raftIndex: string };
  return { leader: s.leader, memberId: s.header.member_id, raftIndex: Number(s.raftIndex) };
}

/** A member that is not the leader. */
async function follower(): Promise<string> {
  for (const m of topology.etcdMembers) {
    const s = await memberStatus(info.processes[m]!.url!);
    if (s.leader !== s.memberId) return m;
  }
  throw new Error('no follower found');
}

void test('make cluster: every process runs the command deploy/topology.mjs defines; kubectl works through the balancer', async () => {
  const layout = topology.localLayout({ dir: info.dir, basePort: cluster.basePort });
  const expected = new Map(topology.clusterCommands(layout).map((c) => [c.name, c.args]));
  assert.deepEqual(
    Object.keys(info.processes).sort(),
    [...topology.etcdMembers, ...topology.kapiReplicas, topology.balancer, topology.peerGate].sort(),
  );
  for (const [name, proc] of Object.entries(info.processes)) {
    assert.ok(proc.pid !== null && alive(proc.pid), `${name} is not running`);
    const argv = commandLine(proc.pid);
    const args = expected.get(name);
    if (args) assert.deepEqual(argv.slice(-args.length), args, `${name} runs ${argv.join(' ')}`);
  }

  const kubeconfig = parseYaml(readFileSync(info.kubeconfig, 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
  assert.equal(kubeconfig.clusters[0]!.cluster['server'], `https://127.0.0.1:${cluster.basePort}`);
  assert.equal(kubeconfig.clusters[0]!.cluster['certificate-authority'], join(info.certDir, 'apiserver.crt'));

  const names = (await kubectl.ok(['get', 'ns', '-o', 'name'])).trim().split('\n');
  for (const n of ['namespace/default', 'namespace/kube-system']) assert.ok(names.includes(n), names.join(','));
});

void test('CRUD through the balancer with kubectl and HTTPS; every replica takes connections and presents the shared certificate', async () => {
  await kubectl.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'via-kubectl', namespace: ns }, data: { a: '1' } };
  assert.equal(await kubectl.ok(['create', '-f', '-'], JSON.stringify(cm)), 'configmap/via-kubectl created\n');
  const read = await kubectl.json<Obj>(['get', 'configmap', 'via-kubectl', '-n', ns]);
  assert.deepEqual(read.data, { a: '1' });
  await kubectl.ok(['replace', '-f', '-'], JSON.stringify({ ...cm, metadata: { ...cm.metadata, resourceVersion: read.metadata.resourceVersion }, data: { a: '2' } }));
  assert.deepEqual((await kubectl.json<Obj>(['get', 'configmap', 'via-kubectl', '-n', ns])).data, { a: '2' });
  assert.equal(await kubectl.ok(['delete', 'configmap', 'via-kubectl', '-n', ns]), 'configmap "via-kubectl" deleted\n');
  const gone = await kubectl.run(['get', 'configmap', 'via-kubectl', '-n', ns]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /NotFound/);

  // Each HTTPS request is a new connection: round-robin spreads them over the three replicas
  // and every one verifies against the one CA in the kubeconfig.
  const countsBefore = await Promise.all(topology.kapiReplicas.map((r) => configMapCreates(info.processes[r]!.url!)));
  const created: Obj[] = [];
  for (let i = 0; i < 9; i++) created.push(await createConfigMapOverHttp(`http-${i}`, { i: String(i) }));
  const afterCounts = await Promise.all(topology.kapiReplicas.map((r) => configMapCreates(info.processes[r]!.url!)));
  const served = afterCounts.map((n, i) => n - countsBefore[i]!);
  assert.equal(served.reduce((a, b) => a + b, 0), 9, `creates per replica: ${served.join(',')}`);
  assert.ok(served.every((n) => n >= 1), `every replica served a create through the balancer: ${served.join(',')}`);

  const list = await httpRequestJson('GET', `${info.server}/api/v1/namespaces/${ns}/configmaps`, { ca, ...admin });
  assert.equal(list.status, 200);
  // (every namespace also holds kube-root-ca.crt, published by the root CA controller)
  const items = (list.json as { items: Obj[] }).items.map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort();
  assert.deepEqual(items, created.map((o) => o.metadata.name).sort());
  const del = await httpRequestJson('DELETE', `${info.server}/api/v1/namespaces/${ns}/configmaps/http-0`, { ca, ...admin });
  assert.equal(del.status, 200, del.body);
  // The replicas run with client certificates and RBAC: without the admin certificate a request is system:anonymous.
  const anonymous = await httpRequestJson('GET', `${info.server}/api/v1/namespaces/${ns}/configmaps`, { ca });
  assert.equal(anonymous.status, 403, anonymous.body);
  assert.equal((anonymous.json as { message: string }).message, `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`);
});

void test('service account tokens: kubectl create token works through the balancer, every replica accepts the token, kube-root-ca.crt is published', async () => {
  const token = (await kubectl.ok(['create', 'token', 'default', '-n', 'default', '--duration=10m'])).trim();
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iss: string; sub: string; aud: string[] };
  assert.deepEqual([claims.iss, claims.sub, claims.aud], [topology.serviceAccountIssuer, 'system:serviceaccount:default:default', [topology.serviceAccountIssuer]]);
  // Each replica verifies the token with the same key (kubeadm's sa.pub).
  for (const r of topology.kapiReplicas) {
    const review = await httpRequestJson('POST', `${info.processes[r]!.url!}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { ca, headers: { authorization: `Bearer ${token}` }, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(review.status, 201, `${r}: ${review.body}`);
    assert.equal((review.json as { status: { userInfo: { username: string } } }).status.userInfo.username, 'system:serviceaccount:default:default', r);
  }
  const rootCa = await kubectl.json<Obj & { data: Record<string, string> }>(['get', 'configmap', 'kube-root-ca.crt', '-n', 'kube-public']);
  assert.match(rootCa.data['ca.crt'] ?? '', /^-----BEGIN CERTIFICATE-----/);
});

void test('etcd serves clients and peers over mutual TLS only', async () => {
  for (const m of topology.etcdMembers) {
    const url = info.processes[m]!.url!;
    assert.match(url, /^https:/);
    assert.equal((await etcdRequest('POST', `${url}/v3/maintenance/status`, { body: {} })).status, 200, m);
    // Without a client certificate the TLS handshake is refused; plain HTTP gets no answer.
    await assert.rejects(httpRequestJson('POST', `${url}/v3/maintenance/status`, { body: {}, ca: etcdClientTls().ca, timeoutMs: 3000 }), /certificate/);
    await assert.rejects(httpRequestJson('POST', `${url.replace('https:', 'http:')}/v3/maintenance/status`, { body: {}, timeoutMs: 3000 }));
    const args = info.processes[m]!.argv;
    for (const flag of ['--client-cert-auth=true', '--peer-client-cert-auth=true']) assert.ok(args.includes(flag), `${m}: ${flag}`);
  }
  for (const r of topology.kapiReplicas) assert.ok(info.processes[r]!.argv.some((a) => a.startsWith('--etcd-certfile=')), r);
});

void test('kill -9 of a replica costs no request through the balancer; restart brings it back', async () => {
  const killed = topology.kapiReplicas[1]!;
  await cluster.ok(['kill', killed]);
  assert.equal((await cluster.info()).processes[killed]!.pid, null);
  // Right after the kill the balancer still believes the replica healthy: connections that
  // reach the dead port move to the next replica before any byte is exchanged.
  const failures = await workload('after-replica-kill', 9);
  assert.deepEqual(failures, []);
  assert.equal(await kubectl.ok(['get', 'ns', ns, '-o', 'name']), `namespace/${ns}\n`);
  await cluster.ok(['restart', killed]);
  const pid = (await cluster.info()).processes[killed]!.pid;
  assert.ok(pid !== null && alive(pid));
  assert.equal((await httpRequestJson('GET', `${info.processes[killed]!.url!}/readyz`)).body, 'ok');
});

void test(
  'kill -9 of an etcd member: requests through the balancer still succeed',
  async () => {
    const member = await follower();
    await cluster.ok(['kill', member]);
    try {
      await sleep(500);
      const failures = await workload('after-etcd-kill', 10);
      assert.equal(failures.length, 0, `${failures.length} of 20 requests failed with ${member} down; the first: ${failures[0]?.slice(0, 160)}`);
    } finally {
      await cluster.ok(['restart', member]);
    }
  },
);

void test('after an etcd member is killed and restarted, the cluster serves every request again', async () => {
  const member = await follower();
  await cluster.ok(['kill', member]);
  assert.equal((await cluster.info()).processes[member]!.pid, null);
  await cluster.ok(['restart', member]);
  // The replicas reconnect to the restarted member (gRPC backoff is at most a second).
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await Promise.all(topology.kapiReplicas.map(async (r) => (await httpRequestJson('GET', `${info.processes[r]!.url!}/readyz`)).status === 200));
    if (ready.every(Boolean)) break;
    assert.ok(Date.now() < deadline, `replicas not ready 20 s after ${member} restarted: ${ready.join(',')}`);
    await sleep(200);
  }
  assert.deepEqual(await workload('after-etcd-restart', 9), []);
});

/**
 * Opens a watch on the test namespace's ConfigMaps through every replica, each from its own
 * cache's revision (a resourceVersion=0 list answers from the cache), so nothing but the
 * cache's own etcd watch decides what it delivers. Records when each name was ADDED per replica, and
 * how a watch ended if the server ended it.
 */
async function watchEveryReplica(): Promise<{ seen: Map<string, Map<string, number>>; ended: Map<string, WatchEnd>; close(): void }> {
  const seen = new Map<string, Map<string, number>>(topology.kapiReplicas.map((r) => [r, new Map<string, number>()]));
  const ended = new Map<string, WatchEnd>();
  const watches = await Promise.all(
    topology.kapiReplicas.map(async (replica) => {
      const base = info.processes[replica]!.url!;
      const cached = await httpRequestJson('GET', `${base}/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`, { ca, ...admin });
      assert.equal(cached.status, 200, cached.body);
      const from = (cached.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const watch = openWatch<Obj>(base, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${from}`, (event) => {
        if (event.type === 'ADDED') seen.get(replica)!.set(event.object.metadata.name, Date.now());
      }, {}, admin);
      void watch.done.then((end) => {
        if (end.reason !== 'killed') ended.set(replica, end);
      });
      return watch;
    }),
  );
  return { seen, ended, close: () => watches.forEach((w) => w.kill()) };
}

void test('partition: each etcd member in turn is cut off by the peer gate; it falls behind and cannot serve linearizable reads, every replica keeps serving reads, writes and its open watches; heal lets it catch up', async () => {
  // Every member in turn, so that each replica's ConfigMap cache has its etcd watch on the
  // cut-off member once (a cache's etcd watch only moves when its member fails it).
  const first = await follower();
  const order = [first, ...topology.etcdMembers.filter((m) => m !== first)];
  const url = (m: string) => info.processes[m]!.url!;
  // Opened before any partition: a watch must survive its replica's cache moving its etcd
  // watch off a member that lost its leader. (Before that was fixed, the cache's etcd watch
  // was cancelled with `no leader` about three election timeouts into the partition, the
  // cache re-listed and ended every watch it served.)
  const watches = await watchEveryReplica();
  try {
    for (const [round, member] of order.entries()) {
      const others = topology.etcdMembers.filter((m) => m !== member);
      await cluster.ok(['partition', member]);
      const partitionedAt = Date.now();
      let majorityIndex = 0;
      try {
        const status = await httpRequestJson('GET', `${info.processes[topology.peerGate]!.url!}/status`);
        assert.deepEqual((status.json as { partitioned: string[] }).partitioned, [member]);
        if (round === 0) {
          for (let i = 0; i < 5; i++) {
            const put = await etcdRequest('POST', `${url(others[i % 2]!)}/v3/kv/put`, { body: { key: b64(`/partition-test/k${i}`), value: b64('v') } });
            assert.equal(put.status, 200, put.body);
          }
          const majority = await memberStatus(url(others[0]!));
          const cut = await memberStatus(url(member));
          assert.ok(cut.raftIndex < majority.raftIndex, `partitioned ${member} at raft index ${cut.raftIndex}, the majority at ${majority.raftIndex}`);
          // A linearizable read needs the leader, which the partitioned member cannot reach.
          await assert.rejects(etcdRequest('POST', `${url(member)}/v3/kv/range`, { body: { key: b64('/partition-test/k0') }, timeoutMs: 1500 }));
          const stale = await etcdRequest('POST', `${url(member)}/v3/kv/range`, { body: { key: b64('/partition-test/k4'), serializable: true } });
          assert.equal((stale.json as { count?: string }).count, undefined, 'the partitioned member has not seen the writes');
        }

        // Once the cut-off member knows it has no leader (a read already waiting on it when it
        // finds out fails with `leader changed`, with kube as with kapi), etcd calls, which require
        // a leader, are refused there at once and retried on the majority: writes and consistent
        // reads through any replica succeed instead of waiting out the 10 s etcd deadline.
        const leaderless = Date.now() + 15_000;
        let cutId: string;
        for (;;) {
          const cut = await memberStatus(url(member));
          cutId = cut.memberId;
          if (['', '0', undefined].includes(cut.leader)) break;
          assert.ok(Date.now() < leaderless, `${member} still reports a leader 15 s into its partition`);
          await sleep(200);
        }
        const leaderlessAt = Date.now();
        // When the cut-off member was the leader, the others still follow it for up to two
        // election timeouts, then elect a new one; a write that reaches them meanwhile times
        // out (`request timed out[, possibly due to previous leader failure]`), with kube as with
        // kapi. Write once they follow a new leader.
        for (;;) {
          const views = await Promise.all(others.map(async (m) => (await memberStatus(url(m))).leader));
          if (views.every((l) => !['', '0', undefined, cutId].includes(l) && l === views[0])) break;
          assert.ok(Date.now() < leaderless, `no leader among ${others.join(', ')} 15 s into the partition of ${member}`);
          await sleep(200);
        }
        const name = `during-partition-${member}`;
        const created = await httpRequestJson('POST', `${info.server}/api/v1/namespaces/${ns}/configmaps`, {
          ca,
          ...admin,
          timeoutMs: 20_000,
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { at: 'partition' } },
        });
        assert.equal(created.status, 201, created.body);
        const createdAt = Date.now();
        if (round === 0) {
          const failed: string[] = [];
          for (let i = 0; i < 30; i++) {
            const got = await httpRequestJson('GET', `${info.server}/api/v1/namespaces/${ns}/configmaps/${name}`, { ca, ...admin, timeoutMs: 20_000 }).catch((err: Error) => ({ status: 0, body: err.message }));
            if (got.status !== 200) failed.push(`${got.status} ${got.body.slice(0, 200)}`);
          }
          assert.deepEqual(failed, [], 'consistent reads through the balancer while a member is partitioned');
        }

        // Every replica's cache keeps following etcd: one whose etcd watch was on the cut-off
        // member moves it to the majority (resuming after its last revision), so the watch
        // through every replica sees the write, and none of them was ended.
        const watchDeadline = Date.now() + 20_000;
        for (;;) {
          assert.deepEqual(
            [...watches.ended].map(([r, end]) => `${r}: ended (${end.reason}, status ${end.status}${end.error ? `, ${end.error.message}` : ''})`),
            [],
            `a watch through a replica ended while ${member} was partitioned`,
          );
          const missing = [...watches.seen].filter(([, names]) => !names.has(name)).map(([r]) => r);
          if (missing.length === 0) break;
          assert.ok(Date.now() < watchDeadline, `no ADDED ${name} through ${missing.join(', ')} within 20 s while ${member} was partitioned`);
          await sleep(100);
        }
        const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
        const seenAt = [...watches.seen].map(([r, names]) => `${r} ${s(names.get(name)! - partitionedAt)}`).join(', ');
        process.stderr.write(
          `# partition ${member}: no leader there after ${s(leaderlessAt - partitionedAt)}; write acknowledged after ${s(createdAt - partitionedAt)}, ` +
            `seen through ${seenAt}\n`,
        );
        majorityIndex = (await memberStatus(url(others[0]!))).raftIndex;
      } finally {
        await cluster.ok(['heal']);
      }
      const deadline = Date.now() + 20_000;
      for (;;) {
        const s = await memberStatus(url(member)).catch(() => undefined);
        if (s !== undefined && !['', '0', undefined].includes(s.leader) && s.raftIndex >= majorityIndex) break;
        assert.ok(Date.now() < deadline, `${member} did not catch up within 20 s of healing`);
        await sleep(200);
      }
      if (round === 0) {
        const range = await etcdRequest('POST', `${url(member)}/v3/kv/range`, { body: { key: b64('/partition-test/k4'), serializable: true } });
        assert.equal((range.json as { count?: string }).count, '1', `${member} has the writes made while it was cut off`);
      }
    }
    assert.deepEqual([...watches.ended.keys()], [], 'watches ended after the partitions');
  } finally {
    watches.close();
  }
});

void test('make cluster-down stops every process and frees every port', async () => {
  const pids = Object.values((await cluster.info()).processes).map((p) => p.pid);
  assert.ok(pids.every((p) => p !== null));
  await cluster.ok(['down', '--purge']);
  torn = true;
  for (const pid of pids) assert.ok(!alive(pid!), `pid ${pid} still running`);
  for (let p = cluster.basePort; p < cluster.basePort + topology.localPortCount; p++) assert.ok(await portFree(p), `port ${p} still bound`);
  assert.ok(!existsSync(info.dir), `${info.dir} still exists`);
});
