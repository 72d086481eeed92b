/**
 * @kubernetes/client-node informers (ListWatch: list, then watch from the list's
 * resourceVersion; on a 410 re-list) keep an exact mirror of 1,000 ConfigMaps under churn.
 *
 * client-node re-watches when a watch ends: the server's `timeoutSeconds`, a cut connection,
 * or the client's own abort. Its Watch is meant to abort every request after 30 s
 * (`AbortSignal.timeout(30000)`), but 1.4.0 overwrites that signal, so no timeout applies and
 * the client offers no option for one. `ShortWatch` below restores the intended client-side
 * abort with a shorter period (and asks every other watch for a short server `timeoutSeconds`)
 * so the test re-watches many times in seconds. A second informer is a plain `makeInformer`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, ListWatch, makeInformer, Watch, type Informer, type ObjectCache, type V1ConfigMap } from '@kubernetes/client-node';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { churnConfigMaps, seedConfigMaps } from './harness/churn.js';
import { compactEtcd } from './harness/etcd-history.js';
import { startKapiServer } from '@kapi/apiserver/testing';
import { ensureNamespace, RestClient } from './harness/rest.js';
import { backendOf, cutsAndReplicaRestart, startTcpProxy, type TcpProxy } from './harness/tcp-proxy.js';

const ns = 'e2e-client-node-informer';
let cluster: TestCluster;
let proxy: TcpProxy;
let clients: RestClient[] = [];
const stoppers: (() => Promise<void>)[] = [];
let finished = false;

before(async () => {
  cluster = await startCluster({ replicas: 2 });
  clients = cluster.servers.map((s) => new RestClient(s.url, { maxSockets: 16 }));
  await ensureNamespace(clients[0]!, ns);
  proxy = await startTcpProxy(cluster.servers.map((s) => backendOf(s.url)));
});
after(async () => {
  finished = true;
  for (const stop of stoppers) await stop();
  for (const c of clients) c.close();
  await proxy?.close();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function kubeConfig(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kapi', server, skipTLSVerify: true }],
    users: [{ name: 'kapi', token: 'kapi-local' }],
    contexts: [{ name: 'kapi', cluster: 'kapi', user: 'kapi' }],
    currentContext: 'kapi',
  });
  return kc;
}

type WatchCallback = (phase: string, apiObj: { metadata?: { resourceVersion?: string; name?: string } }, watchObj?: unknown) => void;

/** client-node's Watch with the client-side abort it intends, shortened; checks every stream's order. */
class ShortWatch extends Watch {
  watches = 0;
  aborts = 0;
  readonly violations: string[] = [];

  constructor(
    config: KubeConfig,
    private readonly abortAfterMs: number,
    private readonly timeoutSeconds: number,
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: WatchCallback,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const n = ++this.watches;
    const params = n % 2 === 0 ? { ...queryParams, timeoutSeconds: this.timeoutSeconds } : queryParams;
    const from = String(queryParams.resourceVersion ?? '');
    let last = /^\d+$/.test(from) ? BigInt(from) : 0n;
    const checked: WatchCallback = (phase, obj, watchObj) => {
      const rv = obj.metadata?.resourceVersion;
      if (phase !== 'ERROR' && rv !== undefined && /^\d+$/.test(rv)) {
        const value = BigInt(rv);
        if (value < last || (value === last && phase !== 'BOOKMARK')) {
          if (this.violations.length < 20) this.violations.push(`watch ${n} from ${from}: ${phase} ${obj.metadata?.name} at ${rv} after ${last}`);
        }
        if (value > last) last = value;
      }
      callback(phase, obj, watchObj);
    };
    const controller = await super.watch(path, params, checked, done);
    setTimeout(() => {
      if (!controller.signal.aborted) {
        this.aborts++;
        controller.abort();
      }
    }, this.abortAfterMs).unref();
    return controller;
  }
}

/** Restarts an informer after an error, as client-node's documentation recommends. */
function restartOnError(informer: Informer<V1ConfigMap>, counter: { errors: number; samples: string[] }): void {
  informer.on('error', (err: unknown) => {
    counter.errors++;
    if (counter.samples.length < 5) counter.samples.push(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    setTimeout(() => {
      if (!finished) void informer.start();
    }, 100).unref();
  });
}

function snapshot(cache: ObjectCache<V1ConfigMap>, namespace = ns): Map<string, string> {
  return new Map(cache.list(namespace).map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
}

function diff(want: Map<string, string>, got: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [name, rv] of want) {
    if (!got.has(name)) out.push(`missing ${name}@${rv}`);
    else if (got.get(name) !== rv) out.push(`stale ${name}@${got.get(name)} (want ${rv})`);
  }
  for (const [name, rv] of got) if (!want.has(name)) out.push(`extra ${name}@${rv}`);
  return out.sort();
}

/** Polls until `cache` equals `want` or `timeoutMs` passes; returns the last difference. */
async function converge(cache: ObjectCache<V1ConfigMap>, want: Map<string, string>, timeoutMs: number, namespace = ns): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = diff(want, snapshot(cache, namespace));
    if (d.length === 0 || Date.now() > deadline) return d;
    await sleep(100);
  }
}

void test('client-node informers mirror 1,000 ConfigMaps exactly through churn, re-watches, cut connections and a replica restart', async (t) => {
  const seeded = await seedConfigMaps(clients, ns, 'seed', 1000);
  const kc = kubeConfig(`https://127.0.0.1:${proxy.port}`);
  const api = kc.makeApiClient(CoreV1Api);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  let lists = 0;
  const listFn = () => {
    lists++;
    return api.listNamespacedConfigMap({ namespace: ns });
  };

  const shortWatch = new ShortWatch(kc, 1000, 2);
  const short = new ListWatch<V1ConfigMap>(path, shortWatch, listFn, false);
  const plain = makeInformer<V1ConfigMap>(kc, path, listFn);
  const shortErrors = { errors: 0, samples: [] as string[] };
  const plainErrors = { errors: 0, samples: [] as string[] };
  restartOnError(short, shortErrors);
  restartOnError(plain, plainErrors);
  let connects = 0;
  short.on('connect', () => connects++);
  stoppers.push(() => short.stop(), () => plain.stop());
  await Promise.all([short.start(), plain.start()]);
  // The seeded ConfigMaps (kube-root-ca.crt, the root CA publisher's, is there too).
  const seededOnly = (items: readonly V1ConfigMap[]) => items.filter((c) => c.metadata?.name !== 'kube-root-ca.crt');
  assert.equal(seededOnly(short.list(ns)).length, 1000);
  assert.equal(seededOnly(plain.list(ns)).length, 1000);

  const churn = churnConfigMaps({ clients: [clients[0]!], namespace: ns, existing: seeded, prefix: 'churn', writers: 4, durationMs: 12_000, pauseMs: 2 });
  const faults = cutsAndReplicaRestart(proxy, cluster.servers[1]!, 4);
  const [churned, killed] = await Promise.all([churn, faults]);
  assert.deepEqual(churned.errors, []);
  assert.ok(churned.writes.length > 100, `only ${churned.writes.length} writes`);

  const fresh = await clients[0]!.expect<{ metadata: { resourceVersion: string }; items: V1ConfigMap[] }>(200, 'GET', path);
  const want = new Map(fresh.items.map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
  assert.equal(want.size, churned.live.size);
  const [shortDiff, plainDiff] = await Promise.all([converge(short, want, 30_000), converge(plain, want, 30_000)]);
  t.diagnostic(
    `writes ${churned.writes.length}, connections killed ${killed}, lists by both informers ${lists}; short informer: watches ${shortWatch.watches}, client aborts ${shortWatch.aborts}, ` +
      `connects ${connects}, errors ${shortErrors.errors} ${JSON.stringify(shortErrors.samples)}; plain informer errors ${plainErrors.errors} ${JSON.stringify(plainErrors.samples)}`,
  );
  assert.deepEqual(shortWatch.violations, [], 'watch events out of resourceVersion order');
  assert.deepEqual(shortDiff, [], 'ShortWatch informer differs from a fresh list');
  assert.deepEqual(plainDiff, [], 'makeInformer informer differs from a fresh list');
  assert.ok(shortWatch.watches >= 6, `the short informer re-watched only ${shortWatch.watches - 1} times`);
});

void test('a client-node informer whose resourceVersion was compacted while it was cut off gets 410, re-lists and mirrors exactly', async (t) => {
  // No watch cache: a watch from a compacted revision is answered by etcd with an ERROR 410 Expired event.
  const server = await startKapiServer({ etcdServers: cluster.etcd.endpoints, extraArgs: ['--watch-cache=false'] });
  stoppers.push(() => server.stop());
  const direct = new RestClient(server.url);
  stoppers.push(() => Promise.resolve(direct.close()));
  const expiredNs = 'e2e-client-node-expired';
  await ensureNamespace(direct, expiredNs);
  const seeded = await seedConfigMaps([direct], expiredNs, 'seed', 200);
  const cut = await startTcpProxy([backendOf(server.url)]);
  stoppers.push(() => cut.close());
  const kc = kubeConfig(`https://127.0.0.1:${cut.port}`);
  const api = kc.makeApiClient(CoreV1Api);
  let lists = 0;
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${expiredNs}/configmaps`, () => {
    lists++;
    return api.listNamespacedConfigMap({ namespace: expiredNs });
  });
  const errors = { errors: 0, samples: [] as string[] };
  restartOnError(informer, errors);
  stoppers.push(() => informer.stop());
  await informer.start();
  assert.equal(informer.list(expiredNs).filter((c) => c.metadata?.name !== 'kube-root-ca.crt').length, 200);

  await cut.pause();
  const churned = await churnConfigMaps({ clients: [direct], namespace: expiredNs, existing: seeded, prefix: 'churn', writers: 2, durationMs: 1500 });
  assert.deepEqual(churned.errors, []);
  const compacted = await compactEtcd(cluster.etcd.endpoints);
  await cut.resume();

  const fresh = await direct.expect<{ items: V1ConfigMap[] }>(200, 'GET', `/api/v1/namespaces/${expiredNs}/configmaps`);
  const want = new Map(fresh.items.map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
  const d = await converge(informer, want, 30_000, expiredNs);
  t.diagnostic(`writes while cut off ${churned.writes.length}, compacted at ${compacted}; lists ${lists}, errors ${errors.errors} ${JSON.stringify(errors.samples)}`);
  assert.deepEqual(d, [], 'informer differs from a fresh list');
  assert.ok(lists >= 2, 'the informer re-listed after the 410');
});
