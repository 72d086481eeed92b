import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { incomingLink, requestSpanName } from './filters/tracing.js';
import { parseTracingConfiguration, startTracing, TracingConfigError, type TracingSdk } from './tracing.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

void describe('TracingConfiguration', () => {
  void it('accepts kube\'s three apiVersions, with kube\'s defaults', () => {
    for (const v of ['v1alpha1', 'v1beta1', 'v1']) {
      assert.deepEqual(parseTracingConfiguration(`apiVersion: apiserver.config.k8s.io/${v}\nkind: TracingConfiguration\nendpoint: collector:4317\nsamplingRatePerMillion: 100\n`), { endpoint: 'collector:4317', samplingRatePerMillion: 100 });
    }
    assert.deepEqual(parseTracingConfiguration('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"TracingConfiguration"}'), { endpoint: 'localhost:4317', samplingRatePerMillion: 0 });
  });

  void it('rejects other kinds and invalid rates', () => {
    assert.throws(() => parseTracingConfiguration('apiVersion: v1\nkind: ConfigMap\n', 'f.yaml'), (err: unknown) => err instanceof TracingConfigError && /no kind "ConfigMap" is registered for version "v1"/.test(err.message));
    assert.throws(() => parseTracingConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1\n'), /samplingRatePerMillion: Invalid value: -1: sampling rate must be positive/);
    assert.throws(() => parseTracingConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 1000001\n'), /must be less than or equal to one million/);
    assert.throws(() => parseTracingConfiguration(': :\n- [', 'bad.yaml'), /failed to read tracing configuration from "bad.yaml"/);
  });

  void it('names request spans by route and takes an incoming traceparent only as a link', () => {
    const info = { isResourceRequest: true, group: '', version: 'v1', namespace: 'default', resource: 'configmaps', name: 'x', subresource: '', verb: 'get' } as const;
    assert.equal(requestSpanName('GET', info as never), 'GET /api/v1/namespaces/{:namespace}/configmaps/{:name}');
    assert.equal(requestSpanName('GET', { ...info, group: 'apps', namespace: '', name: '' } as never), 'GET /apis/apps/v1/configmaps');
    assert.equal(requestSpanName('GET', { isResourceRequest: false } as never), 'GET');
    const link = incomingLink('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    assert.equal(link?.context.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(link?.context.isRemote, true);
    assert.equal(incomingLink('garbage'), undefined);
    assert.equal(incomingLink('00-00000000000000000000000000000000-b7ad6b7169203331-01'), undefined);
  });
});

void describe('spans of a request and its etcd calls', () => {
  const exporter = new InMemorySpanExporter();
  let sdk: TracingSdk;
  let t: TestServer;
  before(async () => {
    sdk = startTracing({ endpoint: 'localhost:4317', samplingRatePerMillion: 1_000_000 }, { instanceId: 'test', spanProcessor: new SimpleSpanProcessor({ exporter }) });
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
    await sdk.shutdown();
  });

  void it('exports a root server span per request with the etcd calls as its children', async () => {
    exporter.reset();
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const created = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'traced' } }, headers: { traceparent: incoming } });
    assert.equal(created.status, 201);
    const updated = await t.request('PUT', '/api/v1/namespaces/default/configmaps/traced', { body: { metadata: { name: 'traced' }, data: { a: 'b' } } });
    assert.equal(updated.status, 200);
    await new Promise((r) => setTimeout(r, 50));
    const spans = exporter.getFinishedSpans();
    const byName = (name: string): ReadableSpan[] => spans.filter((s) => s.name === name);

    const post = byName('POST /api/v1/namespaces/{:namespace}/configmaps');
    assert.equal(post.length, 1);
    const request = post[0]!;
    assert.equal(request.kind, SpanKind.SERVER);
    // Incoming context is not trusted: a new trace, the caller's span only as a link.
    assert.equal(request.parentSpanContext, undefined);
    assert.notEqual(request.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(request.links[0]?.context.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(request.attributes['http.response.status_code'], 201);
    assert.equal(request.resource.attributes['service.name'], 'apiserver');

    const creates = spans.filter((s) => s.name === 'etcdserverpb.KV/Txn' && s.attributes['etcd.operation'] === 'create' && s.attributes['k8s.resource'] === 'configmaps');
    assert.equal(creates.length, 1);
    const etcdSpan = creates[0]!;
    assert.equal(etcdSpan.kind, SpanKind.CLIENT);
    assert.equal(etcdSpan.parentSpanContext?.spanId, request.spanContext().spanId);
    assert.equal(etcdSpan.spanContext().traceId, request.spanContext().traceId);

    const put = byName('PUT /api/v1/namespaces/{:namespace}/configmaps/{:name}')[0];
    assert.ok(put !== undefined);
    const children = spans.filter((s) => s.parentSpanContext?.spanId === put.spanContext().spanId);
    assert.ok(children.some((s) => s.attributes['etcd.operation'] === 'update'), children.map((s) => `${s.name} ${String(s.attributes['etcd.operation'])}`).join(', '));
    assert.notEqual(put.spanContext().traceId, request.spanContext().traceId);
  });
});
