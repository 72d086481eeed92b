/**
 * The audit webhook end to end (--audit-webhook-config-file with the log at once): a real
 * HTTPS receiver that requires kapi's client certificate, batch mode with a receiver that
 * fails or hangs (requests are never held up; lost events are counted), and blocking-strict,
 * where a request whose RequestReceived event cannot be delivered fails with kube's 500.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAuditSink, writeSinkKubeconfig, type AuditSink } from './testing/audit-sink.js';
import { createTestCa } from './testing/client-certs.js';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/metrics"]
- level: Metadata
`;

const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) if (await check()) return;
  assert.fail(`timed out waiting for ${what}`);
};

const metric = (text: string, name: string): number => Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

void describe('audit webhook in batch mode, with the log at once', () => {
  let dir: string;
  let sink: AuditSink;
  let s: SecureServer;
  let logPath: string;
  const logged = () => readFileSync(logPath, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-audit-webhook-'));
    // The receiver trusts only the CA of kapi's webhook client certificate.
    const clientCa = createTestCa('audit-client-ca');
    const client = clientCa.client('kapi-audit');
    sink = await startAuditSink(dir, clientCa.cert);
    const configFile = writeSinkKubeconfig(dir, sink, { 'client-certificate': client.certFile, 'client-key': client.keyFile, token: 'audit-token' });
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    logPath = join(dir, 'audit.log');
    s = await startSecureServer({
      audit: {
        policyFile: join(dir, 'policy.yaml'),
        logPath,
        webhook: { configFile, mode: 'batch', initialBackoffMs: 20, bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 100, throttle: { qps: 10, burst: 15 } },
      },
    });
  });
  after(async () => {
    // The receiver first: a hanging call ends, and kapi's webhook stops retrying at close.
    await sink?.close();
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('sends every event the log gets, as an EventList over mutual TLS with the token', async () => {
    const created = await s.request({ cert: s.admin }, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' } } });
    assert.equal(created.status, 201);
    const id = String(created.headers['audit-id']);
    await until('the webhook events', () => sink.events().filter((e) => e['auditID'] === id).length === 2);
    // The log file is written on its own schedule: wait for both of its lines too.
    await until('the log events', () => logged().filter((e) => e['auditID'] === id).length === 2);
    const call = sink.calls.find((c) => c.body.items.some((e) => e['auditID'] === id))!;
    assert.equal(call.clientCn, 'kapi-audit');
    assert.equal(call.headers['authorization'], 'Bearer audit-token');
    assert.equal(call.path, '/audit/events?timeout=30s');
    assert.deepEqual([call.body.kind, call.body.apiVersion, call.body.metadata], ['EventList', 'audit.k8s.io/v1', {}]);
    const viaWebhook = sink.events().filter((e) => e['auditID'] === id);
    assert.deepEqual(viaWebhook.map((e) => e['stage']), ['RequestReceived', 'ResponseComplete']);
    // The same events as the log's, without each item's kind and apiVersion.
    const inLog = logged().filter((e) => e['auditID'] === id).map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
    assert.deepEqual(viaWebhook, inLog);
    assert.equal(viaWebhook[0]!['stageTimestamp'], viaWebhook[0]!['requestReceivedTimestamp']);
  });

  void it('does not hold requests while the receiver fails or hangs; lost events are counted under plugin webhook', async () => {
    sink.answer = 500;
    const before = sink.calls.length;
    const started = performance.now();
    for (let i = 0; i < 5; i++) assert.equal((await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    const failingMs = performance.now() - started;
    // kube's 5 attempts of one batch (waits of 20, 30, 45 and 67 ms), then the events are counted.
    await until('the lost events to be counted', async () => metric((await s.request({ cert: s.admin }, 'GET', '/metrics')).text, 'apiserver_audit_error_total{plugin="webhook"}') > 0);
    const attempts = sink.calls.slice(before);
    assert.ok(attempts.length >= 5, `${attempts.length} attempts`);
    assert.deepEqual(attempts[1]!.body, attempts[0]!.body);

    sink.answer = 'hang';
    const hangStart = performance.now();
    for (let i = 0; i < 5; i++) assert.equal((await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    const hangingMs = performance.now() - hangStart;
    await until('a call to hang', () => sink.calls.length > before + attempts.length);
    const more = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(more.status, 200);
    // Each request was answered at once (a loaded machine still answers 5 GETs well within 5 s).
    assert.ok(failingMs < 5000 && hangingMs < 5000, `${failingMs} ms, ${hangingMs} ms`);
    // The log still got every event.
    await until('the log', () => logged().some((e) => e['auditID'] === more.headers['audit-id'] && e['stage'] === 'ResponseComplete'));
  });
});

void describe('audit webhook in blocking-strict mode', () => {
  let dir: string;
  let sink: AuditSink;
  let s: SecureServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-audit-strict-'));
    sink = await startAuditSink(dir);
    const configFile = writeSinkKubeconfig(dir, sink, { token: 'audit-token' });
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    s = await startSecureServer({
      audit: {
        policyFile: join(dir, 'policy.yaml'),
        logPath: '',
        webhook: { configFile, mode: 'blocking-strict', initialBackoffMs: 10, bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000 },
      },
    });
  });
  after(async () => {
    await sink?.close();
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('holds a request until its RequestReceived event is delivered', async () => {
    sink.answer = 200;
    sink.delayMs = 400;
    const started = performance.now();
    const res = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps');
    const elapsed = performance.now() - started;
    sink.delayMs = 0;
    assert.equal(res.status, 200);
    assert.ok(elapsed >= 400, `answered after ${elapsed} ms, before the receiver did`);
    // Delivered before the response was written: already at the receiver.
    assert.deepEqual(sink.events().filter((e) => e['auditID'] === res.headers['audit-id']).map((e) => e['stage']).slice(0, 1), ['RequestReceived']);
    // Later stages follow without holding the response.
    await until('ResponseComplete', () => sink.events().some((e) => e['auditID'] === res.headers['audit-id'] && e['stage'] === 'ResponseComplete'));
  });

  void it('fails a request with kube\'s 500 when the event cannot be delivered, after kube\'s retries', async () => {
    sink.answer = 500;
    const before = sink.calls.length;
    const res = await s.request({ cert: s.admin }, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'never' } } });
    assert.equal(res.status, 500);
    assert.equal(res.text, 'Internal Server Error: "/api/v1/namespaces/default/configmaps": failed to store audit event\n');
    const attempts = sink.calls.slice(before).filter((c) => c.body.items.some((e) => e['auditID'] === res.headers['audit-id']));
    assert.equal(attempts.length, 5);
    assert.deepEqual(attempts.flatMap((c) => c.body.items.map((e) => e['stage'])), Array(5).fill('RequestReceived'));
    sink.answer = 200;
    // Nothing was written, and the rejection is counted.
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps/never')).status, 404);
    const metrics = (await s.request({ cert: s.admin }, 'GET', '/metrics')).text;
    assert.equal(metric(metrics, 'apiserver_audit_requests_rejected_total'), 1);
    assert.equal(metric(metrics, 'apiserver_audit_error_total{plugin="webhook"}'), 1);
  });
});
