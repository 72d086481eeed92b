/**
 * Audit logging end to end (--audit-policy-file, --audit-log-path) over HTTPS with client
 * certificates, tokens, anonymous requests and impersonation: the events' fields per level
 * and stage, the Audit-Id header, the authorization annotations, and the audit metrics.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

type Event = Record<string, unknown> & { auditID: string; stage: string; level: string; verb: string; requestURI: string; annotations?: Record<string, string> };

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
  namespaces: ["audited"]
- level: Request
  resources:
  - group: ""
    resources: ["secrets"]
- level: Metadata
  omitStages: ["ResponseStarted"]
  verbs: ["watch"]
- level: Metadata
`;

void describe('audit log (--audit-policy-file, --audit-log-path)', () => {
  let s: SecureServer;
  let dir: string;
  let logPath: string;
  const events = (): Event[] => readFileSync(logPath, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Event);
  /** The events of one audit ID, once its ResponseComplete (or `stage`) is written. */
  const eventsOf = async (auditID: string, stage = 'ResponseComplete'): Promise<Event[]> => {
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const mine = events().filter((e) => e.auditID === auditID);
      if (mine.some((e) => e.stage === stage)) return mine;
    }
    assert.fail(`no ${stage} event for ${auditID}: ${JSON.stringify(events().slice(-3))}`);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    logPath = join(dir, 'logs', 'audit.log');
    s = await startSecureServer({
      authorizationModes: ['RBAC'],
      anonymousAuth: true,
      tokens: ['alice-token,alice,alice-uid,"dev"'],
      audit: { policyFile: join(dir, 'policy.yaml'), logPath },
    });
    const ns = await s.request({ cert: s.admin }, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'audited' } } });
    assert.equal(ns.status, 201);
  });
  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('creates the log 0600 in a 0700 folder', () => {
    assert.equal(statSync(logPath).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'logs')).mode & 0o777, 0o700);
  });

  void it('sends Audit-Id on every response, keeping the client\'s Audit-ID', async () => {
    const health = await s.request('anonymous', 'GET', '/healthz');
    assert.match(String(health.headers['audit-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const given = await s.request('anonymous', 'GET', '/version', { headers: { 'Audit-ID': 'my-audit-id' } });
    assert.equal(given.headers['audit-id'], 'my-audit-id');
    const refused = await s.request({ token: 'nope' }, 'GET', '/version');
    assert.equal(refused.status, 401);
    assert.ok(refused.headers['audit-id'] !== undefined);
    // Health checks are at level None: no event.
    const version = await eventsOf('my-audit-id');
    assert.equal(events().filter((e) => e.auditID === health.headers['audit-id']).length, 0);
    assert.deepEqual(version.map((e) => e.stage), ['ResponseComplete']);
    const [ev] = version;
    assert.equal(ev!.level, 'Metadata');
    assert.equal(ev!.verb, 'get');
    assert.equal(ev!.requestURI, '/version');
    assert.deepEqual(ev!['user'], { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    assert.deepEqual(ev!['sourceIPs'], ['127.0.0.1']);
    assert.deepEqual(ev!['responseStatus'], { metadata: {}, code: 200 });
    assert.equal(ev!.annotations?.['authorization.k8s.io/decision'], 'allow');
    // Only system:public-info-viewer grants anonymous requests /version.
    assert.equal(ev!.annotations?.['authorization.k8s.io/reason'], 'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"');
    assert.match(String(ev!['requestReceivedTimestamp']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(String(ev!['stageTimestamp']) >= String(ev!['requestReceivedTimestamp']));
    // Go's field order.
    assert.deepEqual(Object.keys(ev!), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    const failed = await eventsOf(String(refused.headers['audit-id']), 'ResponseStarted');
    // As kube-apiserver 1.32 writes it (checked against it): one event, no user, the 401 Status.
    assert.deepEqual(failed.map((e) => [e.stage, e['user'], e['responseStatus']]), [['ResponseStarted', {}, { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }]]);
  });

  void it('records request and response objects at RequestResponse, with the name from the body', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: 'b' } };
    const created = await s.request({ cert: s.admin }, 'POST', '/api/v1/namespaces/audited/configmaps', { body, headers: { 'User-Agent': 'audit-test/1.0' } });
    assert.equal(created.status, 201);
    const [ev] = await eventsOf(String(created.headers['audit-id']));
    assert.equal(ev!.level, 'RequestResponse');
    assert.equal(ev!.verb, 'create');
    assert.equal(ev!['userAgent'], 'audit-test/1.0');
    assert.deepEqual(ev!['user'], { username: 'kapi-admin', groups: ['system:masters', 'system:authenticated'], extra: (ev!['user'] as { extra: unknown }).extra });
    assert.deepEqual(ev!['objectRef'], { resource: 'configmaps', namespace: 'audited', name: 'cm1', apiVersion: 'v1' });
    assert.deepEqual(ev!['requestObject'], body);
    assert.equal((ev!['responseObject'] as { metadata: { uid: string } }).metadata.uid, (created.json['metadata'] as { uid: string }).uid);
    assert.deepEqual(ev!['responseStatus'], { metadata: {}, code: 201 });
    assert.equal(ev!.annotations?.['authorization.k8s.io/decision'], 'allow');

    const missing = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/audited/configmaps/nope');
    assert.equal(missing.status, 404);
    const [notFound] = await eventsOf(String(missing.headers['audit-id']));
    assert.deepEqual(notFound!['responseStatus'], { metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });
    assert.equal((notFound!['responseObject'] as { kind: string }).kind, 'Status');

    const list = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/audited/configmaps');
    const [listed] = await eventsOf(String(list.headers['audit-id']));
    assert.equal(listed!.verb, 'list');
    // (the namespace also holds kube-root-ca.crt, published by the root CA controller)
    const names = (listed!['responseObject'] as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    assert.deepEqual(names.filter((n) => n !== 'kube-root-ca.crt'), ['cm1']);
  });

  void it('records the request object only at Request, and the decision of a forbidden request', async () => {
    const denied = await s.request({ token: 'alice-token' }, 'POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } });
    assert.equal(denied.status, 403);
    const [ev] = await eventsOf(String(denied.headers['audit-id']));
    assert.equal(ev!.level, 'Request');
    assert.deepEqual(ev!['user'], { username: 'alice', uid: 'alice-uid', groups: ['dev', 'system:authenticated'] });
    assert.equal(ev!.annotations?.['authorization.k8s.io/decision'], 'forbid');
    assert.equal(ev!['responseStatus'] !== undefined && (ev!['responseStatus'] as { reason: string }).reason, 'Forbidden');
    assert.equal(ev!['responseObject'], undefined);
    // The body was never read: nothing to record.
    assert.equal(ev!['requestObject'], undefined);

    const made = await s.request({ cert: s.admin }, 'POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } } });
    assert.equal(made.status, 201);
    const [secret] = await eventsOf(String(made.headers['audit-id']));
    assert.deepEqual(secret!['requestObject'], { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } });
    assert.equal(secret!['responseObject'], undefined);
  });

  void it('names the impersonated user', async () => {
    const res = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/pods', { headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'qa' } });
    assert.equal(res.status, 403);
    const [ev] = await eventsOf(String(res.headers['audit-id']));
    assert.equal((ev!['user'] as { username: string }).username, 'kapi-admin');
    assert.deepEqual(ev!['impersonatedUser'], { username: 'bob', groups: ['qa', 'system:authenticated'] });
    assert.equal(Object.keys(ev!).indexOf('impersonatedUser'), Object.keys(ev!).indexOf('user') + 1);
    assert.equal(ev!.annotations?.['authorization.k8s.io/decision'], 'forbid');
  });

  void it('records a watch\'s stages the rule keeps, and counts events in the audit metrics', async () => {
    const watch = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    assert.equal(watch.status, 200);
    const stages = await eventsOf(String(watch.headers['audit-id']));
    assert.deepEqual(stages.map((e) => [e.stage, e.verb, e.level]), [['ResponseComplete', 'watch', 'Metadata']]);
    const written = events().length;
    const metrics = (await s.request({ cert: s.admin }, 'GET', '/metrics')).text;
    const total = Number(/^apiserver_audit_event_total (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(total >= written, `${total} events counted, ${written} written`);
    assert.doesNotMatch(metrics, /^apiserver_audit_error_total\{/m);
    assert.match(metrics, /^apiserver_audit_level_total\{level="None"\} [1-9]/m);
    assert.match(metrics, /^apiserver_audit_level_total\{level="RequestResponse"\} [1-9]/m);
  });
});
