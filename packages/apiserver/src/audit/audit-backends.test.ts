/**
 * The audit backends one by one: the webhook against a real HTTPS receiver (EventList body,
 * TLS, token, kube's retries and backoff), its kubeconfig, the batch buffer, truncation and
 * the mode wrappers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { startAuditSink, writeSinkKubeconfig, type AuditSink } from '../testing/audit-sink.js';
import { auditEvent, ignoringErrors, truncatingBackend, type AuditBackend, type AuditEvent } from './backend.js';
import { bufferedBackend } from './buffered-backend.js';
import { startAuditing } from './index.js';
import { webhookBackend } from './webhook-backend.js';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.js';

const event = (n: number, extra: Record<string, unknown> = {}, level: 'Metadata' | 'Request' = 'Metadata'): AuditEvent =>
  auditEvent({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level, auditID: `id-${n}`, stage: 'ResponseComplete', ...extra }, level);

/** A delegate that records the batches it is given (the one in-memory backend these tests use, to observe batching). */
function recorder(): AuditBackend & { batches: string[][] } {
  const batches: string[][] = [];
  return { batches, processEvents: (events) => (batches.push(events.map((e) => String(e.object['auditID']))), true), close: () => Promise.resolve() };
}

const errorsInto = (list: string[]) => (plugin: string, count: number, err: unknown) => list.push(`${plugin}:${count}:${err instanceof Error ? err.message : String(err)}`);

void describe('audit webhook backend', () => {
  let dir: string;
  let sink: AuditSink;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-audit-webhook-'));
    sink = await startAuditSink(dir);
  });
  after(async () => {
    await sink?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('POSTs an audit.k8s.io/v1 EventList to the kubeconfig\'s server with its CA and token', async () => {
    sink.answer = 200;
    const target = loadWebhookKubeconfig(writeSinkKubeconfig(dir, sink, { token: 'sink-token' }, '/audit/events?ignored=1'));
    const errors: string[] = [];
    const webhook = webhookBackend({ target, initialBackoffMs: 10, onPluginError: errorsInto(errors) });
    const ok = await webhook.processEvents([event(1), event(2, { annotations: { a: 'b' } })]);
    await webhook.close();
    assert.equal(ok, true);
    assert.deepEqual(errors, []);
    const [call] = sink.calls.splice(0);
    // As kube-apiserver 1.32 sends it (checked against it): the server's path with ?timeout=30s, list items without kind/apiVersion.
    assert.equal(call!.path, '/audit/events?timeout=30s');
    assert.equal(call!.headers['authorization'], 'Bearer sink-token');
    assert.equal(call!.headers['content-type'], 'application/json');
    assert.equal(call!.headers['accept'], 'application/json, */*');
    assert.deepEqual(call!.body, {
      kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {},
      items: [{ level: 'Metadata', auditID: 'id-1', stage: 'ResponseComplete' }, { level: 'Metadata', auditID: 'id-2', stage: 'ResponseComplete', annotations: { a: 'b' } }],
    });
  });

  void it('retries any failure 5 times with kube\'s backoff, then counts the events under plugin webhook', async () => {
    sink.answer = 500;
    const target = loadWebhookKubeconfig(writeSinkKubeconfig(dir, sink, {}));
    const errors: string[] = [];
    const webhook = webhookBackend({ target, initialBackoffMs: 40, onPluginError: errorsInto(errors) });
    const started = performance.now();
    const ok = await webhook.processEvents([event(1), event(2), event(3)]);
    const elapsed = performance.now() - started;
    assert.equal(ok, false);
    assert.equal(sink.calls.splice(0).length, 5);
    // Waits of 40, 60, 90 and 135 ms (each up to 20% longer): at least 325 ms.
    assert.ok(elapsed >= 325 && elapsed < 5000, `${elapsed} ms`);
    assert.deepEqual(errors, ['webhook:3:an error on the server ("sink is failing") has prevented the request from succeeding']);
    await webhook.close();
  });

  void it('stops retrying once closed, and reports a receiver that is gone in Go\'s words', async () => {
    sink.answer = 503;
    const target = loadWebhookKubeconfig(writeSinkKubeconfig(dir, sink, {}));
    const errors: string[] = [];
    const webhook = webhookBackend({ target, initialBackoffMs: 60_000, onPluginError: errorsInto(errors) });
    const sent = webhook.processEvents([event(1)]);
    while (sink.calls.length === 0) await new Promise((r) => setTimeout(r, 10));
    await webhook.close();
    assert.equal(await sent, false);
    assert.equal(sink.calls.splice(0).length, 1);
    assert.deepEqual(errors, ['webhook:1:the server is currently unable to handle the request']);

    const gone = { ...target, url: new URL('https://127.0.0.1:1/x') };
    const refused: string[] = [];
    const down = webhookBackend({ target: gone, initialBackoffMs: 1, onPluginError: errorsInto(refused) });
    assert.equal(await down.processEvents([event(1)]), false);
    assert.deepEqual(refused, ['webhook:1:Post "https://127.0.0.1:1/x?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused']);
    await down.close();
  });

  void it('reads kubeconfigs as clientcmd does, and refuses bad ones with its texts', () => {
    const file = join(dir, 'inline.kubeconfig');
    writeFileSync(file, `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://audit.example:8443/sink
    certificate-authority-data: ${Buffer.from(sink.ca).toString('base64')}
    tls-server-name: audit.internal
users:
- name: u
  user: {username: kapi, password: secret}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`);
    const target = loadWebhookKubeconfig(file);
    assert.equal(target.url.href, 'https://audit.example:8443/sink');
    assert.equal(target.ca, sink.ca);
    assert.equal(target.serverName, 'audit.internal');
    assert.equal(target.authorization, `Basic ${Buffer.from('kapi:secret').toString('base64')}`);
    assert.throws(() => loadWebhookKubeconfig(join(dir, 'missing')), { message: `stat ${join(dir, 'missing')}: no such file or directory` });
    writeFileSync(file, 'apiVersion: v1\nkind: Config\ncurrent-context: nope\n');
    assert.throws(() => loadWebhookKubeconfig(file), { message: 'invalid configuration: context was not found for specified context: nope' });
    writeFileSync(file, 'apiVersion: v1\nkind: Config\n');
    assert.throws(() => loadWebhookKubeconfig(file), /no configuration has been provided/);
    writeFileSync(file, 'clusters: [{name: c, cluster: {server: "https://x"}}]\nusers: [{name: u, user: {exec: {command: x}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    assert.throws(() => loadWebhookKubeconfig(file), /exec credential plugins are not supported by kapi/);
  });

  void it('fails the start with kube\'s text when the webhook kubeconfig cannot be read', () => {
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n');
    const webhook = { configFile: '/nonexistent', mode: 'batch' as const, initialBackoffMs: 10_000, bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000 };
    assert.throws(() => startAuditing({ policyFile: policy, logPath: '', webhook }, new Registry(), () => undefined), { message: 'initializing audit webhook: stat /nonexistent: no such file or directory' });
  });
});

void describe('audit batch buffer, truncation and modes', () => {
  void it('sends full batches at once and a partial batch after max wait', async () => {
    const delegate = recorder();
    const buffered = bufferedBackend(delegate, { bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 150, asyncDelegate: true }, () => assert.fail('no errors'));
    for (let i = 1; i <= 4; i++) assert.equal(buffered.processEvents([event(i)]), true);
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(delegate.batches, [['id-1', 'id-2', 'id-3']]);
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(delegate.batches, [['id-1', 'id-2', 'id-3'], ['id-4']]);
    assert.equal(buffered.processEvents([event(5)]), true);
    await buffered.close();
    assert.deepEqual(delegate.batches.at(-1), ['id-5']);
  });

  void it('drops and counts events past the buffer under plugin buffered, without waiting', async () => {
    const delegate = recorder();
    const errors: string[] = [];
    const buffered = bufferedBackend(delegate, { bufferSize: 2, maxBatchSize: 10, maxBatchWaitMs: 60_000, asyncDelegate: true }, errorsInto(errors));
    assert.equal(buffered.processEvents([event(1), event(2), event(3), event(4)]), true);
    assert.deepEqual(errors, ['buffered:2:audit buffer queue blocked']);
    // Closing sends what the buffer held.
    await buffered.close();
    assert.deepEqual(delegate.batches, [['id-1', 'id-2']]);
    assert.equal(buffered.processEvents([event(5)]), true);
    assert.deepEqual(errors.at(-1), 'buffered:1:audit backend shut down');
  });

  void it('throttles batches to qps after the burst', async () => {
    const delegate = recorder();
    const buffered = bufferedBackend(delegate, { bufferSize: 100, maxBatchSize: 1, maxBatchWaitMs: 10, throttle: { qps: 10, burst: 2 }, asyncDelegate: true }, () => assert.fail('no errors'));
    assert.equal(buffered.processEvents([event(1), event(2), event(3), event(4)]), true);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(delegate.batches.length, 2);
    await buffered.close();
    assert.equal(delegate.batches.length, 4);
  });

  void it('truncates large Request events, drops what is still too large, and splits batches by bytes', () => {
    const delegate = recorder();
    const errors: string[] = [];
    const truncating = truncatingBackend(delegate, { maxEventBytes: 300, maxBatchBytes: 350 }, errorsInto(errors));
    const big = 'x'.repeat(400);
    const seen: AuditEvent[] = [];
    const spy: AuditBackend = { processEvents: (events) => (seen.push(...events), delegate.processEvents(events)), close: () => Promise.resolve() };
    const viaSpy = truncatingBackend(spy, { maxEventBytes: 300, maxBatchBytes: 350 }, errorsInto(errors));
    assert.equal(viaSpy.processEvents([event(1, { requestObject: { big }, annotations: { z: '1' } }, 'Request'), event(2, { requestObject: { big } }, 'Metadata'), event(3), event(4)]), true);
    assert.deepEqual(seen[0]!.object, { kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Request', auditID: 'id-1', stage: 'ResponseComplete', annotations: { 'audit.k8s.io/truncated': 'true', z: '1' } });
    // A Metadata event keeps its size: dropped.
    assert.deepEqual(errors, ['truncate:1:event is too large even after truncating']);
    // About 170, 104 and 104 bytes: two batches of at most 350.
    assert.deepEqual(delegate.batches, [['id-1', 'id-3'], ['id-4']]);
    assert.equal(truncating.processEvents([]), true);
  });

  void it('blocking mode waits for the backend but never fails the request', async () => {
    const failing: AuditBackend = { processEvents: () => Promise.resolve(false), close: () => Promise.resolve() };
    assert.equal(await ignoringErrors(failing).processEvents([event(1)]), true);
    assert.equal(ignoringErrors({ processEvents: () => false, close: () => Promise.resolve() }).processEvents([event(1)]), true);
  });
});
