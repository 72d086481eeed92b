import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REQUEST_DURATION_BUCKETS } from './metrics.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

async function waitFor(predicate: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

void describe('health and metrics', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('answers ok on healthz, livez and readyz, verbose and per check', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/readyz/etcd', '/livez/ping']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'ok', path);
    }
    const verbose = await t.request('GET', '/readyz?verbose');
    assert.equal(verbose.text, '[+]ping ok\n[+]etcd ok\n[+]poststarthook/start-system-namespaces-controller ok\n[+]shutdown ok\nreadyz check passed\n');
  });

  void it('counts requests with kube labels and buckets', async () => {
    await t.request('GET', '/api/v1/namespaces/default/configmaps');
    await t.request('GET', '/api/v1/namespaces/default');
    await t.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: { metadata: { name: 'm' } } });
    await t.request('GET', '/api/v1/configmaps');
    await t.request('GET', '/api/v1/namespaces/default/configmaps/missing');
    const res = await t.request('GET', '/metrics');
    assert.equal(res.status, 200);
    const text = res.text;
    assert.match(text, /# TYPE apiserver_request_total counter/);
    assert.ok(text.includes('apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"} 1'), text);
    assert.ok(text.includes('apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="resource",component="apiserver",code="200"} 1'));
    assert.ok(text.includes('apiserver_request_total{verb="POST",dry_run="All",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="201"} 1'));
    assert.ok(text.includes('apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="cluster",component="apiserver",code="200"} 1'));
    assert.ok(text.includes('apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="404"} 1'));
    const buckets = [...text.matchAll(/apiserver_request_duration_seconds_bucket\{le="([^"]+)",verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"\}/g)].map((m) => m[1]);
    assert.deepEqual(buckets, [...REQUEST_DURATION_BUCKETS.map(String), '+Inf']);
    assert.match(text, /process_cpu_user_seconds_total/);
    assert.doesNotMatch(text, /resource="foos"/);
  });

  void it('fails readyz while etcd is down and recovers after', async () => {
    await t.etcd.kill();
    try {
      await waitFor(async () => (await t.request('GET', '/readyz')).status === 500);
      const res = await t.request('GET', '/readyz');
      assert.equal(res.status, 500);
      assert.match(res.text, /^\[\+\]ping ok\n\[-\]etcd failed: reason withheld\n/);
      assert.match(res.text, /readyz check failed\n$/);
      const single = await t.request('GET', '/readyz/etcd');
      assert.equal(single.status, 500);
      assert.match(single.text, /^internal server error: /);
      assert.equal((await t.request('GET', '/livez')).status, 200);
      const excluded = await t.request('GET', '/readyz?exclude=etcd');
      assert.equal(excluded.status, 200);
      const write = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'down' } } });
      assert.ok(write.status >= 500 && write.json['kind'] === 'Status', write.text);
    } finally {
      await t.etcd.restart();
    }
    await waitFor(async () => (await t.request('GET', '/readyz')).status === 200);
  });
});
