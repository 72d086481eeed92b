/**
 * Three kapi-apiserver processes on one etcd: the namespace controller runs only in the
 * replica holding the kube-system/kapi-controller-manager Lease. The leader is killed
 * (SIGKILL, no release) while it empties a namespace; another replica takes the lease once
 * it expires (4 s here, through kube-controller-manager's --leader-elect-* flags) and
 * finishes. Every object is deleted exactly once (one DELETED event each on a watch through a
 * surviving replica) and nothing is left.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { RestClient, ensureNamespace, forEachConcurrently, type KubeList } from './harness/rest.js';
import { openWatch } from './harness/watch-stream.js';

let cluster: TestCluster;

before(async () => {
  cluster = await startCluster({
    replicas: 3,
    server: { extraArgs: ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms'] },
  });
});
after(async () => {
  await cluster?.stop();
});

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void test('killing the leader mid-way through a namespace deletion: another replica finishes it, each object deleted once', async () => {
  const clients = cluster.servers.map((s) => new RestClient(s.url));
  const holder = async (client: RestClient): Promise<string | undefined> => {
    const res = await client.request<{ spec?: { holderIdentity?: string } }>('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager');
    const h = res.status === 200 ? res.body.spec?.holderIdentity : undefined;
    return h !== undefined && h !== '' ? h : undefined;
  };
  const first = await eventually('a leader', () => holder(clients[0]!), 30_000);
  const leaderIndex = cluster.servers.findIndex((s) => first.includes(`_${s.pid()}_`));
  assert.ok(leaderIndex >= 0, `the holder ${first} is one of the replicas`);
  const survivorIndex = (leaderIndex + 1) % 3;
  const survivor = clients[survivorIndex]!;

  const ns = 'e2e-handover';
  await ensureNamespace(survivor, ns);
  const COUNT = 1500;
  await forEachConcurrently(COUNT, 16, async (i) => {
    const res = await survivor.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` } });
    assert.equal(res.status, 201, res.text);
  });
  const listed = await survivor.request<KubeList>('GET', `/api/v1/namespaces/${ns}/configmaps`);
  const deletions = new Map<string, number>();
  const watch = openWatch(cluster.servers[survivorIndex]!.url, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`, (event) => {
    // (kube-root-ca.crt, the root CA publisher's, goes with the namespace too.)
    if (event.type === 'DELETED' && event.object.metadata.name !== 'kube-root-ca.crt') deletions.set(event.object.metadata.name, (deletions.get(event.object.metadata.name) ?? 0) + 1);
  });

  assert.equal((await survivor.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
  // Kill the leader once it has started emptying the namespace.
  await eventually('the leader to start deleting', async () => (deletions.size > 0 ? true : undefined), 30_000);
  await cluster.servers[leaderIndex]!.kill('SIGKILL');
  const deletedBeforeKill = deletions.size;

  await eventually('the namespace to disappear', async () => ((await survivor.request('GET', `/api/v1/namespaces/${ns}`)).status === 404 ? true : undefined), 90_000);
  const next = await eventually('a new leader', async () => {
    const h = await holder(survivor);
    return h !== undefined && h !== first ? h : undefined;
  }, 30_000);
  assert.notEqual(next, first);
  const lease = await survivor.request<{ spec?: { leaseDurationSeconds?: number } }>('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager');
  assert.equal(lease.body.spec?.leaseDurationSeconds, 4, 'the lease carries --leader-elect-lease-duration');
  await eventually('every DELETED event', async () => (deletions.size === COUNT ? true : undefined), 10_000);
  watch.kill();
  process.stderr.write(`# ${deletedBeforeKill} of ${COUNT} deleted before the leader was killed\n`);
  assert.ok(deletedBeforeKill < COUNT, 'the leader was killed mid-way');
  assert.deepEqual([...deletions.values()].filter((n) => n !== 1), [], 'each object deleted exactly once');
  const left = await survivor.request<KubeList>('GET', `/api/v1/namespaces/${ns}/configmaps`);
  assert.deepEqual(left.body.items, []);
});

void test('killing the leader while owners go: the next leader collects every dependent, each deleted once', async () => {
  const alive = cluster.servers.map((s) => ({ s })).filter(({ s }) => s.running());
  const clients = alive.map(({ s }) => new RestClient(s.url));
  const leaderHolder = async (): Promise<string | undefined> => {
    const res = await clients[0]!.request<{ spec?: { holderIdentity?: string } }>('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager');
    const h = res.status === 200 ? res.body.spec?.holderIdentity : undefined;
    return h !== undefined && h !== '' ? h : undefined;
  };
  const first = await eventually('a leader', leaderHolder, 30_000);
  const leader = alive.find(({ s }) => first.includes(`_${s.pid()}_`));
  assert.ok(leader, `the holder ${first} is a live replica`);
  const survivorEntry = alive.find((a) => a !== leader)!;
  const survivor = new RestClient(survivorEntry.s.url);

  const ns = 'e2e-gc-handover';
  await ensureNamespace(survivor, ns);
  const PAIRS = 200;
  await forEachConcurrently(PAIRS, 16, async (i) => {
    const owner = await survivor.request<{ metadata: { uid: string } }>('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `owner-${i}` } });
    assert.equal(owner.status, 201, owner.text);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${i}`, uid: owner.body.metadata.uid };
    const dep = await survivor.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: `dep-${i}`, ownerReferences: [ref] } });
    assert.equal(dep.status, 201, dep.text);
  });
  const listed = await survivor.request<KubeList>('GET', `/api/v1/namespaces/${ns}/secrets`);
  const deletions = new Map<string, number>();
  const watch = openWatch(survivorEntry.s.url, `/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`, (event) => {
    // (kube-root-ca.crt, the root CA publisher's, goes with the namespace too.)
    if (event.type === 'DELETED' && event.object.metadata.name !== 'kube-root-ca.crt') deletions.set(event.object.metadata.name, (deletions.get(event.object.metadata.name) ?? 0) + 1);
  });
  // Half the owners go while the leader collects, then it dies; the rest go under no leader.
  await forEachConcurrently(PAIRS / 2, 8, async (i) => {
    assert.equal((await survivor.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner-${i}`)).status, 200);
  });
  await leader.s.kill('SIGKILL');
  await forEachConcurrently(PAIRS / 2, 8, async (i) => {
    assert.equal((await survivor.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner-${PAIRS / 2 + i}`)).status, 200);
  });
  const collectedBeforeTakeover = deletions.size;
  await eventually('every dependent to be collected', async () => (deletions.size === PAIRS ? true : undefined), 60_000);
  watch.kill();
  process.stderr.write(`# ${collectedBeforeTakeover} of ${PAIRS} dependents collected before another replica took the lease\n`);
  assert.ok(collectedBeforeTakeover < PAIRS, 'dependents were left for the next leader');
  assert.deepEqual([...deletions.values()].filter((n) => n !== 1), [], 'each dependent deleted exactly once');
  const left = await survivor.request<KubeList>('GET', `/api/v1/namespaces/${ns}/secrets`);
  assert.deepEqual(left.body.items, []);
});
