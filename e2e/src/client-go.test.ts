/**
 * client-go's Reflector (a SharedIndexInformer over the dynamic client, JSON forced) keeps an
 * exact mirror of 1,000 ConfigMaps while other clients churn them, while its connections are
 * cut and while one of the two replicas it talks to is SIGKILLed and restarted. The Go program
 * lives in e2e/go/cmd/kapi-reflector; the first `go build` on a machine downloads the modules
 * and compiles client-go (about 1.5 min on 2 cores); later builds take a few seconds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { churnConfigMaps, seedConfigMaps } from './harness/churn.js';
import { compactEtcd } from './harness/etcd-history.js';
import { buildGoCommand, LineProcess } from './harness/go-program.js';
import { startKapiServer, writeKubeconfig } from '@kapi/apiserver/testing';
import { ensureNamespace, RestClient } from './harness/rest.js';
import { backendOf, cutsAndReplicaRestart, startTcpProxy, type TcpProxy } from './harness/tcp-proxy.js';

const ns = 'e2e-client-go';
let cluster: TestCluster;
let proxy: TcpProxy;
let binary: string;
let clients: RestClient[] = [];
let reflector: LineProcess | undefined;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  const [built, started] = await Promise.all([buildGoCommand('kapi-reflector'), startCluster({ replicas: 2 })]);
  cluster = started;
  binary = built.binary;
  process.stderr.write(`# go build ./cmd/kapi-reflector took ${built.seconds.toFixed(1)} s\n`);
  clients = cluster.servers.map((s) => new RestClient(s.url, { maxSockets: 16 }));
  await ensureNamespace(clients[0]!, ns);
  proxy = await startTcpProxy(cluster.servers.map((s) => backendOf(s.url)));
});
after(async () => {
  await reflector?.kill();
  for (const cleanup of cleanups) await cleanup();
  for (const c of clients) c.close();
  await proxy?.close();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

void test('a client-go informer mirrors 1,000 ConfigMaps exactly through churn, cut connections and a replica restart', async (t) => {
  const seeded = await seedConfigMaps(clients, ns, 'seed', 1000);
  const kubeconfig = join(cluster.dir, 'kubeconfig-proxy');
  writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${proxy.port}` });
  reflector = new LineProcess(binary, ['--kubeconfig', kubeconfig, '--namespace', ns, '--watch-timeout-seconds', '3', '--check-timeout', '30s']);
  const synced = await reflector.next('synced', 60_000);
  assert.equal(synced.count, 1000, JSON.stringify(synced));

  // Writers talk to replica 0 directly (the replica restarted below is 1, so no write is
  // ambiguous); the informer reaches both replicas through the proxy.
  const churn = churnConfigMaps({ clients: [clients[0]!], namespace: ns, existing: seeded, prefix: 'churn', writers: 4, durationMs: 12_000, pauseMs: 2 });
  const faults = cutsAndReplicaRestart(proxy, cluster.servers[1]!, 5);
  const [churned, killed] = await Promise.all([churn, faults]);
  assert.deepEqual(churned.errors, []);
  assert.ok(churned.writes.length > 100, `only ${churned.writes.length} writes`);

  reflector.send('check');
  const result = await reflector.next('result', 60_000);
  t.diagnostic(
    `writes ${churned.writes.length}, connections killed ${killed}; reflector: lists ${String(result.lists)}, watches ${String(result.watches)}, ` +
      `watch events ${String(result.watchEvents)}, bookmarks ${String(result.bookmarks)}, error events ${JSON.stringify(result.errorEvents)}, handler calls ${JSON.stringify(result.handlerCalls)}`,
  );
  assert.deepEqual(result.violations, [], 'watch streams out of order or not JSON');
  assert.deepEqual(result.diff, [], `mirror differs from a fresh list (stderr:\n${reflector.stderr().slice(-4000)})`);
  assert.equal(result.match, true);
  assert.equal(result.listCount, churned.live.size);
  assert.ok(Number(result.watches) >= 3, 'the reflector re-watched after its connections were cut');
  const exit = await waitForExit(reflector);
  assert.equal(exit?.code, 0);
});

void test('a client-go informer whose resourceVersion was compacted while it was cut off re-lists and mirrors exactly', async (t) => {
  // No watch cache: a watch from a compacted revision is answered by etcd with 410 Expired.
  const server = await startKapiServer({ etcdServers: cluster.etcd.endpoints, extraArgs: ['--watch-cache=false'] });
  cleanups.push(() => server.stop());
  const direct = new RestClient(server.url);
  cleanups.push(() => Promise.resolve(direct.close()));
  const expiredNs = 'e2e-client-go-expired';
  await ensureNamespace(direct, expiredNs);
  const seeded = await seedConfigMaps([direct], expiredNs, 'seed', 200);
  const cut = await startTcpProxy([backendOf(server.url)]);
  cleanups.push(() => cut.close());
  const kubeconfig = join(cluster.dir, 'kubeconfig-expired');
  writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${cut.port}` });
  const informer = new LineProcess(binary, ['--kubeconfig', kubeconfig, '--namespace', expiredNs, '--check-timeout', '30s']);
  cleanups.push(() => informer.kill());
  assert.equal((await informer.next('synced', 60_000)).count, 200);

  await cut.pause();
  const churned = await churnConfigMaps({ clients: [direct], namespace: expiredNs, existing: seeded, prefix: 'churn', writers: 2, durationMs: 1500 });
  assert.deepEqual(churned.errors, []);
  const compacted = await compactEtcd(cluster.etcd.endpoints);
  await cut.resume();

  informer.send('check');
  const result = await informer.next('result', 60_000);
  t.diagnostic(`writes while cut off ${churned.writes.length}, compacted at ${compacted}; lists ${String(result.lists)}, watches ${String(result.watches)}, error events ${JSON.stringify(result.errorEvents)}`);
  assert.deepEqual(result.violations, []);
  assert.deepEqual(result.diff, [], `mirror differs from a fresh list (stderr:\n${informer.stderr().slice(-4000)})`);
  assert.equal(result.listCount, churned.live.size);
  assert.ok(Number(result.lists) >= 2, 'the informer re-listed');
});

async function waitForExit(p: LineProcess): Promise<{ code: number | null } | undefined> {
  for (let i = 0; i < 100 && !p.exitStatus(); i++) await sleep(50);
  return p.exitStatus();
}
