/**
 * Overload: 2,000 concurrent requests against --max-requests-inflight=50. Every answer is a
 * 2xx or a 429 with Retry-After; /livez probes made throughout answer 200 within their 10 s
 * timeout; after a forced GC the heap is back at its baseline.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { connectInspector, http, isResult, spawnServer, type HttpOutcome, type Inspector, type ServerProcess } from './process.js';

const ns = '/api/v1/namespaces/default/configmaps';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

void describe('overload against --max-requests-inflight=50', () => {
  let etcd: TestEtcd;
  let server: ServerProcess;
  let inspector: Inspector;
  before(async () => {
    etcd = await startEtcd();
    server = await spawnServer(etcd.endpoints, ['--max-requests-inflight=50'], { NODE_OPTIONS: '--inspect=127.0.0.1:0' });
    inspector = await connectInspector(() => server.output());
  });
  after(async () => {
    inspector?.close();
    await server?.cleanup();
    await etcd.stop();
  });

  void it('answers only 2xx and 429, keeps /livez answering, and returns to its memory baseline', async (t) => {
    // 100 ConfigMaps of ~300 bytes: a list is ~35 KB.
    const seedAgent = new Agent({ keepAlive: true, maxSockets: 16 });
    for (let i = 0; i < 100; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => http(`${server.url}${ns}`, { method: 'POST', agent: seedAgent, body: { metadata: { name: `cm-${i + j}` }, data: { v: 'x'.repeat(256) } } })));
      assert.ok(batch.every((r) => isResult(r) && r.status === 201), JSON.stringify(batch.find((r) => !isResult(r) || r.status !== 201)));
    }
    seedAgent.destroy();
    // Warm up, then the baseline after a full GC.
    for (let i = 0; i < 20; i++) await http(`${server.url}${ns}`);
    await inspector.collectGarbage();
    const baseline = await inspector.memoryUsage();

    // /livez probes, every 250 ms, each with a 10 s timeout, for the whole load.
    const probes: HttpOutcome[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const started = Date.now();
        probes.push(await http(`${server.url}/livez`, { timeoutMs: 10_000 }));
        await sleep(Math.max(0, 250 - (Date.now() - started)));
      }
    })();

    // 2,000 requests at once, each on its own connection: lists and single GETs.
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        http(i % 4 === 3 ? `${server.url}${ns}/cm-${i % 100}` : `${server.url}${ns}`, { agent, timeoutMs: 60_000 }),
      ),
    );
    const loadMs = Date.now() - started;
    await sleep(500);
    probing = false;
    await prober;
    agent.destroy();

    const byStatus = new Map<string, number>();
    for (const r of results) {
      const key = isResult(r) ? String(r.status) : `error ${r.error}`;
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
    }
    const unexpected = results.filter((r) => !isResult(r) || !((r.status >= 200 && r.status < 300) || r.status === 429));
    assert.deepEqual(unexpected.slice(0, 3), [], `statuses: ${JSON.stringify([...byStatus])}`);
    const refused = results.filter((r): r is Extract<HttpOutcome, { status: number }> => isResult(r) && r.status === 429);
    assert.ok(refused.length > 0, 'the limit was never reached');
    assert.ok(refused.every((r) => r.headers['retry-after'] === '1' && r.body === 'Too many requests, please try again later.\n'));
    assert.ok(probes.length >= 2, `only ${probes.length} probes`);
    const failedProbes = probes.filter((p) => !isResult(p) || p.status !== 200);
    assert.deepEqual(failedProbes, []);
    const slowestProbe = Math.max(...probes.map((p) => p.ms));
    assert.ok(slowestProbe < 10_000);

    // The server counted the refusals as kube does.
    const metrics = await http(`${server.url}/metrics`);
    assert.ok(isResult(metrics));
    const counted = /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"\} (\d+)$/m.exec(metrics.body);
    assert.ok(counted !== null && Number(counted[1]) > 0, '429s counted in apiserver_request_total');

    // Memory: back to the baseline after a full GC (nothing per request is retained).
    await sleep(500);
    await inspector.collectGarbage();
    const afterLoad = await inspector.memoryUsage();
    const allowed = baseline.heapUsed * 1.1 + 8 * 1024 * 1024;
    t.diagnostic(
      `2000 requests in ${loadMs} ms: ${JSON.stringify(Object.fromEntries(byStatus))}; ${probes.length} livez probes, slowest ${slowestProbe} ms; ` +
        `heapUsed baseline ${(baseline.heapUsed / 1048576).toFixed(1)} MiB, after ${(afterLoad.heapUsed / 1048576).toFixed(1)} MiB; rss after ${(afterLoad.rss / 1048576).toFixed(0)} MiB`,
    );
    assert.ok(afterLoad.heapUsed <= allowed, `heapUsed ${afterLoad.heapUsed} > ${allowed} (baseline ${baseline.heapUsed})`);
  });
});
