/**
 * kapi-apiserver --workers=2 on a real etcd: both workers serve one port, a watch on either
 * sees the writes made through the other, /metrics merges them, a killed worker is replaced
 * with nothing lost, and SIGTERM stops them all gracefully.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { startKapiServer, type KapiServer } from '../testing/kapi-server.js';
import { isWatchClient, openWatch, type WatchClient } from '../testing/watch-client.js';
import { mergeSnapshots, RetiredMetrics, type MetricsSnapshot } from './metrics.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const configmaps = '/api/v1/namespaces/default/configmaps';

interface Reply {
  status: number;
  worker: string;
  body: string;
}

/** One request on a fresh connection (so the primary hands it to the next worker). */
function send(url: string, method = 'GET', body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, worker: String(res.headers['x-kapi-worker']), body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Polls until every worker in `names` answered readyz 200 (on fresh connections). */
async function allReady(url: string, names: readonly string[], timeoutMs = 60_000): Promise<void> {
  const ready = new Set<string>();
  for (const deadline = Date.now() + timeoutMs; ready.size < names.length; await sleep(50)) {
    if (Date.now() > deadline) assert.fail(`workers ready: ${[...ready].join(',')}`);
    const reply = await send(`${url}/readyz`).catch(() => undefined);
    if (reply?.status === 200) ready.add(reply.worker);
  }
}

/** The pids of the server's workers (children of the primary). */
function workerPids(primary: number): number[] {
  try {
    return readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter((s) => s !== '').map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One scrape of /metrics: the worker that answered and apiserver_request_total of the ConfigMap creates answered 201. */
async function scrapeCreates(url: string): Promise<{ worker: string; creates: number }> {
  const reply = await send(`${url}/metrics`);
  assert.equal(reply.status, 200, reply.body);
  const line = reply.body.split('\n').find((l) => l.startsWith('apiserver_request_total{verb="POST"') && l.includes('resource="configmaps"') && l.includes('code="201"'));
  return { worker: reply.worker, creates: line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1)) };
}

async function createsCounted(url: string): Promise<number> {
  return (await scrapeCreates(url)).creates;
}

void describe('--workers=2', () => {
  let etcd: TestEtcd;
  let server: KapiServer;
  let url: string;
  before(async () => {
    etcd = await startEtcd();
    server = await startKapiServer({ etcdServers: etcd.endpoints, insecure: true, extraArgs: ['--workers=2'], startTimeoutMs: 90_000 });
    url = server.insecureUrl!;
    await allReady(url, ['0', '1']);
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  const watches: WatchClient[] = [];
  const created: string[] = [];
  let firstBatch = 0;

  /** Creates ConfigMaps on fresh connections until each worker has served `perWorker` of them. */
  const createThroughBoth = async (prefix: string, perWorker: number): Promise<void> => {
    const served = new Map<string, number>();
    for (let i = 0; [...served.values()].filter((n) => n >= perWorker).length < 2; i++) {
      assert.ok(i < 50, `creates served by ${JSON.stringify([...served])}`);
      const name = `${prefix}-${i}`;
      const reply = await send(`${url}${configmaps}`, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
      assert.equal(reply.status, 201, reply.body);
      served.set(reply.worker, (served.get(reply.worker) ?? 0) + 1);
      created.push(name);
    }
  };

  void it('serves one port from both workers; a watch on either sees the writes made through the other', async () => {
    // Watches on fresh connections alternate between the workers: keep one on each.
    const byWorker = new Map<string, WatchClient>();
    for (let i = 0; byWorker.size < 2; i++) {
      assert.ok(i < 20, 'no watch reached both workers');
      const watch = await openWatch(url, `${configmaps}?watch=true`);
      assert.ok(isWatchClient(watch));
      const worker = String(watch.headers['x-kapi-worker']);
      if (byWorker.has(worker)) watch.close();
      else byWorker.set(worker, watch);
    }
    watches.push(...byWorker.values());
    await createThroughBoth('first', 2);
    firstBatch = created.length;
    for (const watch of watches) {
      const events = await watch.take(created.length, 10_000);
      assert.deepEqual(events.map((e) => `${e.type} ${String(e.object.metadata?.name)}`), created.map((n) => `ADDED ${n}`));
    }
  });

  void it('merges the metrics of both workers in one /metrics, whichever worker is scraped', async () => {
    const scrapedBy = new Set<string>();
    for (let i = 0; scrapedBy.size < 2 && i < 20; i++) {
      const { worker, creates } = await scrapeCreates(url);
      scrapedBy.add(worker);
      assert.equal(creates, created.length);
    }
    assert.equal(scrapedBy.size, 2);
  });

  /** Asks /version with a fresh tag on fresh connections until both workers answered; then waits for each answer's request log line. */
  const bothLogRequests = async (tag: string): Promise<void> => {
    const answeredBy = new Map<string, string>();
    for (let i = 0; answeredBy.size < 2; i++) {
      assert.ok(i < 20, `probes answered by ${JSON.stringify([...answeredBy])}`);
      const uri = `/version?probe=${tag}-${i}`;
      const reply = await send(`${url}${uri}`);
      assert.equal(reply.status, 200, reply.body);
      if (!answeredBy.has(reply.worker)) answeredBy.set(reply.worker, uri);
    }
    for (const [worker, uri] of answeredBy) {
      for (const deadline = Date.now() + 5000; !server.output().includes(uri); await sleep(50)) {
        assert.ok(Date.now() < deadline, `worker ${worker} logged no HTTP line for ${uri}`);
      }
    }
  };

  void it('PUT /debug/flags/v sets the log verbosity of every worker, not only the one it reaches', async () => {
    const reply = await send(`${url}/debug/flags/v`, 'PUT', 3);
    assert.equal(reply.status, 200, reply.body);
    assert.equal(reply.body, 'successfully set klog.logging.verbosity to 3\n');
    // At -v=3 each worker logs kube's "HTTP" line per request (at 0, the flags' level, none).
    await bothLogRequests('raised');
  });

  void it('replaces a killed worker; nothing written is lost and the counters do not go down', async () => {
    const primary = server.pid()!;
    const before = workerPids(primary);
    assert.equal(before.length, 2);
    process.kill(before[0]!, 'SIGKILL');
    // The survivor serves meanwhile; the replacement takes the killed worker's place.
    for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
      const now = workerPids(primary);
      if (now.length === 2 && !now.includes(before[0]!)) break;
      assert.ok(Date.now() < deadline, `workers: ${now.join(',')}`);
    }
    await allReady(url, ['0', '1']);
    // The replacement starts at the verbosity the PUT set, not the flags'.
    await bothLogRequests('replaced');
    const counted = await createsCounted(url);
    assert.equal(counted, created.length, 'the killed worker\'s creates stay counted');
    await createThroughBoth('second', 1);
    const list = JSON.parse((await send(`${url}${configmaps}`)).body) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), [...created].sort());
    assert.equal(await createsCounted(url), created.length);
    // The watch on the surviving worker saw everything; the one on the killed worker was cut.
    const results = await Promise.allSettled(watches.map((w) => w.take(created.length - firstBatch, 10_000)));
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const survivor = watches[results.findIndex((r) => r.status === 'fulfilled')]!;
    assert.deepEqual(survivor.events.map((e) => String(e.object.metadata?.name)), created);
  });

  void it('stops every worker gracefully on SIGTERM', async () => {
    const primary = server.pid()!;
    const pids = workerPids(primary);
    const watch = await openWatch(url, `${configmaps}?watch=true`);
    assert.ok(isWatchClient(watch));
    await server.kill('SIGTERM');
    assert.deepEqual(pids.filter(alive), []);
    assert.deepEqual(await watch.ended, { clean: true });
    const output = server.output();
    assert.equal(output.match(/"shutdown complete"/g)?.length, 2, output);
    assert.match(output, /Received SIGTERM, shutting down 2 workers/);
  });
});

void describe('merged metrics', () => {
  const counter = (value: number): MetricsSnapshot[number] =>
    ({ name: 'apiserver_request_total', help: 'h', type: 'counter', aggregator: 'sum', values: [{ labels: { verb: 'GET' }, value }] }) as unknown as MetricsSnapshot[number];
  const gauge = (name: string, value: number): MetricsSnapshot[number] =>
    ({ name, help: 'h', type: 'gauge', aggregator: 'sum', values: [{ labels: { resource: 'pods' }, value }] }) as unknown as MetricsSnapshot[number];

  void it('sums counters and per-worker gauges, keeps the largest of facts every worker reads alike', async () => {
    const merged = await mergeSnapshots([
      [counter(3), gauge('apiserver_storage_objects', 10), gauge('apiserver_longrunning_requests', 2)],
      [counter(4), gauge('apiserver_storage_objects', 11), gauge('apiserver_longrunning_requests', 5)],
    ]).metrics();
    assert.match(merged, /^apiserver_request_total\{verb="GET"\} 7$/m);
    assert.match(merged, /^apiserver_storage_objects\{resource="pods"\} 11$/m);
    assert.match(merged, /^apiserver_longrunning_requests\{resource="pods"\} 7$/m);
  });

  void it('keeps a dead worker\'s counters in the sum, not its gauges', async () => {
    const retired = new RetiredMetrics();
    await retired.retire([counter(5), gauge('apiserver_longrunning_requests', 9)]);
    await retired.retire([counter(1)]);
    const merged = await mergeSnapshots([[counter(2), gauge('apiserver_longrunning_requests', 1)], retired.snapshot]).metrics();
    assert.match(merged, /^apiserver_request_total\{verb="GET"\} 8$/m);
    assert.match(merged, /^apiserver_longrunning_requests\{resource="pods"\} 1$/m);
  });
});
