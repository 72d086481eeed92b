import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRegistry, definitions, type RestResource } from '@kapi/registry';
import { createEtcdStorage, ETCD_REQUEST_DURATION_BUCKETS } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { pingCheck } from './health.js';
import { silentLogger } from './logger.js';
import {
  createApiMetrics,
  metricVerb,
  REQUEST_DURATION_BUCKETS,
  REQUEST_SLI_DURATION_BUCKETS,
  RESPONSE_SIZE_BUCKETS,
  WATCH_EVENT_SIZE_BUCKETS,
} from './metrics.js';
import { createRequestHandler } from './server.js';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

/** The `le` values of a histogram's series matching `labels` (in the text exposition). */
function buckets(text: string, name: string, labels: string): string[] {
  const pattern = new RegExp(`^${name}_bucket\\{le="([^"]+)",${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\} `, 'gm');
  return [...text.matchAll(pattern)].map((m) => m[1]!);
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const asStrings = (values: readonly number[]) => [...values.map(String), '+Inf'];

void describe('metrics after a scripted workload', () => {
  let t: TestServer;
  let text: string;
  let watchOpenText: string;
  before(async () => {
    t = await startTestServer({ etcdCountMetricPollPeriodMs: 200, etcdDbMetricPollIntervalMs: 200 });
    const ns = '/api/v1/namespaces/default';
    // A watch, open while the writes happen.
    const watch = await openWatch(t.url, `${ns}/configmaps?watch=true`);
    assert.ok(isWatchClient(watch));
    assert.equal((await t.request('POST', `${ns}/configmaps`, { body: { metadata: { name: 'm1' }, data: { a: 'x'.repeat(1500) } } })).status, 201);
    assert.equal((await t.request('POST', `${ns}/configmaps?dryRun=All`, { body: { metadata: { name: 'dry' } } })).status, 201);
    assert.equal((await t.request('GET', `${ns}/configmaps/m1`)).status, 200);
    assert.equal((await t.request('GET', `${ns}/configmaps/missing`)).status, 404);
    assert.equal((await t.request('GET', `${ns}/configmaps`)).status, 200);
    assert.equal((await t.request('GET', '/api/v1/configmaps')).status, 200);
    assert.equal((await t.request('PUT', `${ns}/configmaps/m1`, { body: { metadata: { name: 'm1' }, data: { a: 'y' } } })).status, 200);
    assert.equal((await t.request('PATCH', `${ns}/configmaps/m1`, { raw: '{"data":{"b":"z"}}', headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const apply = await t.request('PATCH', `${ns}/configmaps/m2?fieldManager=test`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm2' } }),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.ok([200, 201, 415].includes(apply.status), apply.text);
    assert.equal((await t.request('DELETE', `${ns}/configmaps/m1`)).status, 200);
    await watch.take(3, 5000);
    // Let the storage pollers and the cache catch up.
    await new Promise((r) => setTimeout(r, 500));
    watchOpenText = (await t.request('GET', '/metrics')).text;
    watch.close();
    await new Promise((r) => setTimeout(r, 200));
    const res = await t.request('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    text = res.text;
  });
  after(async () => {
    await t.close();
  });

  const cm = 'group="",version="v1",resource="configmaps"';

  void it('counts requests with kube verbs, scopes, dry_run and codes', () => {
    const series = (verb: string, dryRun: string, scope: string, code: number) =>
      `apiserver_request_total{verb="${verb}",dry_run="${dryRun}",${cm},subresource="",scope="${scope}",component="apiserver",code="${code}"}`;
    assert.equal(value(text, series('POST', '', 'resource', 201)), 1);
    assert.equal(value(text, series('POST', 'All', 'resource', 201)), 1);
    assert.equal(value(text, series('GET', '', 'resource', 200)), 1);
    assert.equal(value(text, series('GET', '', 'resource', 404)), 1);
    assert.equal(value(text, series('LIST', '', 'namespace', 200)), 1);
    assert.equal(value(text, series('LIST', '', 'cluster', 200)), 1);
    assert.equal(value(text, series('PUT', '', 'resource', 200)), 1);
    assert.equal(value(text, series('PATCH', '', 'resource', 200)), 1);
    assert.equal(value(text, series('DELETE', '', 'resource', 200)), 1);
    assert.equal(value(text, series('WATCH', '', 'namespace', 200)), 1);
    assert.match(text, /apiserver_request_total\{verb="APPLY",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="\d+"\} 1/);
    assert.equal(value(text, 'apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="/metrics",scope="",component="apiserver",code="200"}'), 1);
  });

  void it('observes latency with kube buckets (le 1, 5 and 30 for the SLO rules), SLI latency and response sizes', () => {
    const list = `verb="LIST",dry_run="",${cm},subresource="",scope="namespace",component="apiserver"`;
    assert.deepEqual(buckets(text, 'apiserver_request_duration_seconds', list), asStrings(REQUEST_DURATION_BUCKETS));
    const plain = `verb="LIST",${cm},subresource="",scope="namespace",component="apiserver"`;
    const sli = buckets(text, 'apiserver_request_sli_duration_seconds', plain);
    assert.deepEqual(sli, asStrings(REQUEST_SLI_DURATION_BUCKETS));
    for (const le of ['1', '5', '30']) assert.ok(sli.includes(le), le);
    assert.deepEqual(buckets(text, 'apiserver_response_sizes', plain), asStrings(RESPONSE_SIZE_BUCKETS));
    assert.deepEqual(RESPONSE_SIZE_BUCKETS, [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]);
    // The GET of m1 (about 1.6 kB) is in the 10 kB bucket, not the 1 kB one.
    const get = `verb="GET",${cm},subresource="",scope="resource",component="apiserver"`;
    assert.equal(value(text, `apiserver_response_sizes_bucket{le="1000",${get}}`), 1); // the 404
    assert.equal(value(text, `apiserver_response_sizes_bucket{le="10000",${get}}`), 2);
    // Only reads have response sizes.
    assert.doesNotMatch(text, /apiserver_response_sizes_bucket\{[^}]*verb="POST"/);
  });

  void it('reports watches: long-running gauge while open, events sent and their sizes', () => {
    const lr = `apiserver_longrunning_requests{verb="WATCH",${cm},subresource="",scope="namespace",component="apiserver"}`;
    assert.equal(value(watchOpenText, lr), 1);
    assert.equal(value(text, lr), 0);
    assert.ok((value(text, `apiserver_watch_events_total{${cm}}`) ?? 0) >= 3);
    assert.deepEqual(buckets(text, 'apiserver_watch_events_sizes', cm), asStrings(WATCH_EVENT_SIZE_BUCKETS));
    assert.ok((value(text, `apiserver_watch_events_sizes_bucket{le="2048",${cm}}`) ?? 0) >= 1);
  });

  void it('reports inflight use per request kind', () => {
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="readOnly"\} \d+$/m);
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="mutating"\} \d+$/m);
    assert.match(text, /# TYPE apiserver_current_inflight_requests gauge/);
  });

  void it('reports etcd requests, object counts, the database size and process metrics', () => {
    assert.ok((value(text, 'etcd_requests_total{operation="create",group="",resource="configmaps"}') ?? 0) >= 1);
    assert.ok((value(text, 'etcd_requests_total{operation="update",group="",resource="configmaps"}') ?? 0) >= 1);
    assert.ok((value(text, 'etcd_requests_total{operation="delete",group="",resource="configmaps"}') ?? 0) >= 1);
    assert.deepEqual(
      buckets(text, 'etcd_request_duration_seconds', 'operation="create",group="",resource="configmaps"'),
      asStrings(ETCD_REQUEST_DURATION_BUCKETS),
    );
    assert.match(text, /# TYPE etcd_request_errors_total counter/);
    // m2 (if apply is served) and the system namespaces; m1 was deleted.
    assert.ok((value(text, 'apiserver_storage_objects{resource="namespaces"}') ?? 0) >= 4);
    assert.ok((value(text, 'apiserver_resource_objects{group="",resource="namespaces"}') ?? 0) >= 4);
    // At most the namespace controller's leader Lease (kube-system/kapi-controller-manager).
    assert.match(text, /^apiserver_storage_objects\{resource="leases\.coordination\.k8s\.io"\} [01]$/m);
    assert.match(text, /^apiserver_storage_size_bytes\{storage_cluster_id="\d+"\} [1-9]\d*$/m);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'process_open_fds']) {
      assert.match(text, new RegExp(`^${name} `, 'm'), name);
    }
  });

  void it('has the watch cache metrics', () => {
    const labels = 'group="",resource="configmaps"';
    for (const name of ['apiserver_watch_cache_events_received_total', 'apiserver_watch_cache_events_dispatched_total', 'apiserver_watch_cache_initializations_total']) {
      assert.ok((value(text, `${name}{${labels}}`) ?? 0) >= 1, name);
    }
    assert.ok((value(text, `apiserver_watch_cache_resource_version{${labels}}`) ?? 0) > 0);
    assert.ok((value(text, `watch_cache_capacity{${labels}}`) ?? 0) >= 100);
    assert.match(text, /# TYPE apiserver_terminated_watchers_total counter/);
    assert.match(text, /apiserver_watch_cache_consistent_read_total\{group="",resource="configmaps",success="(true|false)",fallback="(true|false)"\} \d+/);
    assert.deepEqual(buckets(text, 'apiserver_watch_cache_initialization_duration_seconds', labels), asStrings([0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600]));
    assert.equal(value(text, `apiserver_watch_cache_initialization_duration_seconds_count{${labels}}`), 1);
    assert.deepEqual(buckets(text, 'apiserver_watch_cache_read_wait_seconds', labels), asStrings([0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3]));
    assert.ok((value(text, `apiserver_watch_cache_read_wait_seconds_count{${labels}}`) ?? 0) >= 1);
    // The system namespaces existed when the namespaces cache listed (or arrived as events).
    assert.match(text, /^apiserver_init_events_total\{group="",resource="namespaces"\} \d+$/m);
  });

  void it('has help and type lines for the STABLE families', () => {
    for (const name of ['apiserver_request_total', 'apiserver_request_duration_seconds', 'apiserver_response_sizes', 'apiserver_longrunning_requests', 'apiserver_current_inflight_requests', 'apiserver_requested_deprecated_apis', 'apiserver_storage_objects', 'apiserver_storage_size_bytes']) {
      assert.match(text, new RegExp(`^# HELP ${name} \\[STABLE\\] `, 'm'), name);
    }
  });
});

void describe('kube verb rules', () => {
  void it('maps methods to LIST/GET/WATCH/APPLY', () => {
    assert.equal(metricVerb('GET', 'namespace', false, undefined), 'LIST');
    assert.equal(metricVerb('GET', 'cluster', false, undefined), 'LIST');
    assert.equal(metricVerb('GET', 'resource', false, undefined), 'GET');
    assert.equal(metricVerb('HEAD', 'resource', false, undefined), 'GET');
    assert.equal(metricVerb('HEAD', 'namespace', false, undefined), 'LIST');
    assert.equal(metricVerb('GET', 'namespace', true, undefined), 'WATCH');
    assert.equal(metricVerb('PATCH', 'resource', false, 'application/apply-patch+yaml'), 'APPLY');
    assert.equal(metricVerb('PATCH', 'resource', false, 'application/merge-patch+json'), 'PATCH');
    assert.equal(metricVerb('OPTIONS', 'resource', false, undefined), 'other');
  });
});

void describe('requests to deprecated versions', () => {
  let etcd: TestEtcd;
  let server: Server;
  let url: string;
  let storage: ReturnType<typeof createEtcdStorage>;
  const metrics = createApiMetrics();
  before(async () => {
    etcd = await startEtcd();
    const prefix = uniquePrefix();
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
    const registry = createRegistry({ storage, prefix });
    // The same registry, with ConfigMap v1 flagged deprecated (no deprecated version is served yet).
    const deprecate = (r: RestResource): RestResource =>
      r.definition.plural !== 'configmaps'
        ? r
        : { ...r, definition: { ...r.definition, versions: r.definition.versions.map((v) => ({ ...v, deprecated: { removedRelease: '1.40' } })) } };
    const handler = createRequestHandler({
      registry: { resources: registry.resources.map(deprecate), lookup: (g, v, p) => { const r = registry.lookup(g, v, p); return r && deprecate(r); }, subscribe: registry.subscribe },
      definitions,
      metrics,
      health: { livez: [pingCheck], healthz: [pingCheck], readyz: [pingCheck] },
      requestTimeoutMs: 10_000,
      logger: silentLogger,
    });
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage.close();
    metrics.close();
    await etcd.stop();
  });

  void it('sets apiserver_requested_deprecated_apis for the version requested', async () => {
    const before = await metrics.registry.getSingleMetric('apiserver_requested_deprecated_apis')!.get();
    assert.equal(before.values.length, 0);
    assert.equal((await fetch(`${url}/api/v1/namespaces/default/configmaps`)).status, 200);
    assert.equal((await fetch(`${url}/api/v1/namespaces/default/secrets`)).status, 200);
    const text = await metrics.registry.metrics();
    assert.match(text, /^apiserver_requested_deprecated_apis\{group="",version="v1",resource="configmaps",subresource="",removed_release="1\.40"\} 1$/m);
    assert.doesNotMatch(text, /apiserver_requested_deprecated_apis\{[^}]*resource="secrets"/);
  });
});

void describe('apiserver_current_inflight_requests', () => {
  void it('reports the maximum in use during the last second, per request kind', async () => {
    const m = createApiMetrics();
    try {
      const read = async (kind: string) => {
        const metric = await m.registry.getSingleMetric('apiserver_current_inflight_requests')!.get();
        return metric.values.find((v) => v.labels['request_kind'] === kind)?.value;
      };
      const ends = [m.startInflight('readOnly'), m.startInflight('readOnly'), m.startInflight('readOnly'), m.startInflight('mutating')];
      for (const end of ends) end();
      // Finished, but still the maximum of the last second.
      assert.equal(await read('readOnly'), 3);
      assert.equal(await read('mutating'), 1);
      const deadline = Date.now() + 5000;
      while ((await read('readOnly')) !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await read('readOnly'), 0);
      assert.equal(await read('mutating'), 0);
      const end = m.startInflight('mutating');
      assert.equal(await read('mutating'), 1);
      end();
      end();
      assert.equal(await read('mutating'), 1);
    } finally {
      m.close();
    }
  });
});
