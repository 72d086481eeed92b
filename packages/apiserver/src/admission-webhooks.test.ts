/**
 * Admission webhooks end to end: real HTTPS webhook servers (a CA made for the test) called
 * by a real kapi on a real etcd. The expected messages are kube-apiserver 1.32.13's, taken
 * from the oracle with the same webhooks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, eventually, type TestServer } from './testing/fixture.js';
import { startWebhookServer, type WebhookServer } from './testing/webhook-server.js';
import { machineAddress } from './testing/machine-address.js';
import { createEstablished, widgetCrd } from './crd-testing.js';

type Json = Record<string, unknown>;

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const patchOf = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
const rules = (operations: string[] = ['CREATE'], resources = ['configmaps']) => [{ operations, apiGroups: [''], apiVersions: ['v1'], resources }];

void describe('admission webhooks', () => {
  let t: TestServer;
  let wh: WebhookServer;
  let ns = '';
  let n = 0;
  const hook = (name: string, path: string, extra: Json = {}): Json => ({
    name, clientConfig: { url: wh.url(path), caBundle: wh.caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'], rules: rules(), ...extra,
  });
  /** Creates a configuration and waits until the server applies it (a probe object reaches the webhook). */
  const configure = async (collection: string, name: string, webhooks: Json[]): Promise<void> => {
    const kind = collection === VWC ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
    const res = await t.request('POST', collection, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks } });
    assert.equal(res.status, 201, res.text);
  };
  const remove = async (collection: string, name: string) => {
    const res = await t.request('DELETE', `${collection}/${name}`);
    assert.equal(res.status, 200, res.text);
  };
  const createConfigMap = (labels: Record<string, string>, namespace = ns, query = '') =>
    t.request('POST', `/api/v1/namespaces/${namespace}/configmaps${query}`, { body: { metadata: { name: `cm-${++n}`, labels }, data: { a: 'b' } } });
  /** Waits until a create labelled `labels` reaches `path` (the informers saw the configuration). */
  const applied = async (path: string, labels: Record<string, string>) => {
    await eventually(`webhook ${path} called`, async () => {
      const before = wh.calls(path).length;
      await createConfigMap(labels);
      return wh.calls(path).length > before;
    });
  };

  before(async () => {
    wh = await startWebhookServer(['hook.default.svc'], '0.0.0.0');
    t = await startTestServer({ enableAggregatorRouting: true });
    ns = 'webhooks';
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns, labels: { team: 'a' } } } })).status, 201);
  });
  after(async () => {
    await t?.close();
    await wh?.close();
  });

  void it('mutating then validating: the JSON patch is stored and the validating webhook sees it; the review is kube\'s', async () => {
    wh.handle('/mutate', () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/data/added', value: 'yes' }]) }));
    wh.handle('/validate', () => ({ allowed: true }));
    await configure(MWC, 'order-m', [hook('mutate.order.example.com', '/mutate', { objectSelector: { matchLabels: { case: 'order' } } })]);
    await configure(VWC, 'order-v', [hook('validate.order.example.com', '/validate', { objectSelector: { matchLabels: { case: 'order' } } })]);
    await applied('/validate', { case: 'order' });
    const created = await createConfigMap({ case: 'order' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json['data'], { a: 'b', added: 'yes' });
    const stored = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/${String((created.json['metadata'] as Json)['name'])}`);
    assert.deepEqual(stored.json['data'], { a: 'b', added: 'yes' });
    const mutated = wh.calls('/mutate').at(-1)!;
    const validated = wh.calls('/validate').at(-1)!;
    assert.deepEqual((mutated['object'] as Json)['data'], { a: 'b' });
    assert.deepEqual((validated['object'] as Json)['data'], { a: 'b', added: 'yes' }, 'the validating webhook sees the mutation');
    assert.deepEqual(mutated['kind'], { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(mutated['resource'], { group: '', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(mutated['requestKind'], mutated['kind']);
    assert.deepEqual(mutated['requestResource'], mutated['resource']);
    assert.equal(mutated['operation'], 'CREATE');
    assert.equal(mutated['namespace'], ns);
    assert.equal(mutated['oldObject'], null);
    assert.equal(mutated['dryRun'], false);
    assert.deepEqual(mutated['options'], { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    assert.equal(((mutated['object'] as Json)['metadata'] as Json)['creationTimestamp'], null);
    assert.equal(mutated['timeoutParam'], '10s');
    await remove(MWC, 'order-m');
    await remove(VWC, 'order-v');
  });

  void it('denials carry the webhook\'s message and code (kube 1.32: at least 400); warnings become Warning headers', async () => {
    wh.handle('/deny', () => ({ allowed: false, status: { message: 'nope' } }));
    wh.handle('/deny403', () => ({ allowed: false, status: { code: 403, message: 'no way', reason: 'Forbidden' } }));
    wh.handle('/denybare', () => ({ allowed: false }));
    wh.handle('/warn', () => ({ allowed: true, warnings: ['careful'] }));
    await configure(VWC, 'deny', [
      hook('deny.example.com', '/deny', { objectSelector: { matchLabels: { case: 'deny' } } }),
      hook('deny403.example.com', '/deny403', { objectSelector: { matchLabels: { case: 'deny403' } } }),
      hook('denybare.example.com', '/denybare', { objectSelector: { matchLabels: { case: 'denybare' } } }),
      hook('warn.example.com', '/warn', { objectSelector: { matchLabels: { case: 'warn' } } }),
    ]);
    await applied('/warn', { case: 'warn' });
    const deny = await createConfigMap({ case: 'deny' });
    assert.equal(deny.status, 400);
    assert.deepEqual(deny.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "deny.example.com" denied the request: nope', code: 400 });
    const deny403 = await createConfigMap({ case: 'deny403' });
    assert.deepEqual(deny403.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "deny403.example.com" denied the request: no way', reason: 'Forbidden', code: 403 });
    const bare = await createConfigMap({ case: 'denybare' });
    assert.equal(bare.json['message'], 'admission webhook "denybare.example.com" denied the request without explanation');
    const warned = await createConfigMap({ case: 'warn' });
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.get('warning'), '299 - "careful"');
    const list = await t.request('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=case%20in%20(deny,deny403,denybare)`);
    assert.deepEqual(list.json['items'], [], 'denied objects are not stored');
    await remove(VWC, 'deny');
  });

  void it('failurePolicy: a dead webhook fails the request under Fail with kube\'s message, and is skipped under Ignore', async () => {
    const dead = (name: string, extra: Json) => ({ ...hook(name, '/x'), clientConfig: { url: 'https://127.0.0.1:1/dead', caBundle: wh.caBundle }, ...extra });
    wh.handle('/probe', () => ({ allowed: true }));
    await configure(VWC, 'dead', [
      dead('dead.example.com', { objectSelector: { matchLabels: { case: 'dead' } } }),
      dead('deadignore.example.com', { failurePolicy: 'Ignore', objectSelector: { matchLabels: { case: 'deadignore' } } }),
      hook('probe.dead.example.com', '/probe', { objectSelector: { matchLabels: { case: 'probe-dead' } } }),
    ]);
    await applied('/probe', { case: 'probe-dead' });
    const failed = await createConfigMap({ case: 'dead' });
    const text = 'failed calling webhook "dead.example.com": failed to call webhook: Post "https://127.0.0.1:1/dead?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused';
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${text}`, reason: 'InternalError', details: { causes: [{ message: text }] }, code: 500 });
    const ignored = await createConfigMap({ case: 'deadignore' });
    assert.equal(ignored.status, 201, ignored.text);
    // No caBundle: the system roots do not trust the test CA.
    await configure(VWC, 'noca', [{ ...hook('noca.example.com', '/probe'), clientConfig: { url: wh.url('/probe') }, objectSelector: { matchLabels: { case: 'noca' } } }]);
    await eventually('noca applied', async () => (await createConfigMap({ case: 'noca' })).status === 500);
    const noca = await createConfigMap({ case: 'noca' });
    assert.equal(noca.json['message'], `Internal error occurred: failed calling webhook "noca.example.com": failed to call webhook: Post "${wh.url('/probe')}?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
    await remove(VWC, 'dead');
    await remove(VWC, 'noca');
  });

  void it('a webhook that hangs fails only its own request after timeoutSeconds; other requests and /readyz are served meanwhile', async () => {
    wh.handle('/hang', () => 'hang');
    wh.handle('/probe', () => ({ allowed: true }));
    await configure(VWC, 'hang', [
      hook('hang.example.com', '/hang', { timeoutSeconds: 1, objectSelector: { matchLabels: { case: 'hang' } } }),
      hook('probe.hang.example.com', '/probe', { objectSelector: { matchLabels: { case: 'probe-hang' } } }),
    ]);
    await applied('/probe', { case: 'probe-hang' });
    const started = Date.now();
    const hanging = createConfigMap({ case: 'hang' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during: number[] = [];
    for (const path of ['/readyz', `/api/v1/namespaces/${ns}/configmaps?limit=1`]) {
      const at = Date.now();
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, res.text);
      during.push(Date.now() - at);
    }
    const other = await createConfigMap({ case: 'other' });
    assert.equal(other.status, 201);
    const failed = await hanging;
    const elapsed = Date.now() - started;
    assert.ok(Date.now() - started >= 1000 || during.every((ms) => ms < 900), 'served while the webhook hung');
    assert.ok(during.every((ms) => ms < 900), `other requests were served promptly: ${during.join(', ')} ms`);
    assert.equal(failed.status, 500);
    assert.equal(failed.json['message'], `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "${wh.url('/hang')}?timeout=1s": context deadline exceeded`);
    assert.ok(elapsed >= 950 && elapsed < 5000, `failed after the timeout (${elapsed} ms)`);
    await remove(VWC, 'hang');
  });

  void it('namespaceSelector and objectSelector choose the requests a webhook sees', async () => {
    wh.handle('/selected', () => ({ allowed: false, status: { message: 'selected' } }));
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'other-team', labels: { team: 'b' } } } })).status, 201);
    await configure(VWC, 'selectors', [hook('selected.example.com', '/selected', {
      namespaceSelector: { matchLabels: { team: 'a' } },
      objectSelector: { matchExpressions: [{ key: 'case', operator: 'In', values: ['selected'] }] },
    })]);
    await eventually('selectors applied', async () => (await createConfigMap({ case: 'selected' })).status === 400);
    assert.equal((await createConfigMap({ case: 'unselected' })).status, 201, 'objectSelector');
    assert.equal((await createConfigMap({ case: 'selected' }, 'other-team')).status, 201, 'namespaceSelector');
    await remove(VWC, 'selectors');
  });

  void it('dryRun reaches webhooks with sideEffects None as dryRun: true, and nothing is stored', async () => {
    wh.handle('/dry', () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/data/dry', value: 'run' }]) }));
    await configure(MWC, 'dry', [hook('dry.example.com', '/dry', { sideEffects: 'NoneOnDryRun', objectSelector: { matchLabels: { case: 'dry' } } })]);
    await applied('/dry', { case: 'dry' });
    const res = await createConfigMap({ case: 'dry' }, ns, '?dryRun=All');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json['data'], { a: 'b', dry: 'run' });
    const call = wh.calls('/dry').at(-1)!;
    assert.equal(call['dryRun'], true);
    assert.deepEqual(call['options'], { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
    const name = String((res.json['metadata'] as Json)['name']);
    assert.equal((await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`)).status, 404);
    await remove(MWC, 'dry');
  });

  void it('reinvocationPolicy IfNeeded: an earlier webhook is called again once a later one changed the object', async () => {
    wh.handle('/first', () => ({ allowed: true }));
    wh.handle('/second', (request) => {
      const labels = (((request['object'] as Json)['metadata'] as Json)['labels'] ?? {}) as Json;
      return labels['second'] === undefined ? { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels/second', value: 'done' }]) } : { allowed: true };
    });
    await configure(MWC, 'a-first', [hook('first.example.com', '/first', { reinvocationPolicy: 'IfNeeded', objectSelector: { matchLabels: { case: 'reinvoke' } } })]);
    await configure(MWC, 'b-second', [hook('second.example.com', '/second', { objectSelector: { matchLabels: { case: 'reinvoke' } } })]);
    await eventually('both applied', async () => {
      const before = wh.calls('/second').length;
      await createConfigMap({ case: 'reinvoke' });
      return wh.calls('/second').length > before;
    });
    const firstBefore = wh.calls('/first').length;
    const secondBefore = wh.calls('/second').length;
    const res = await createConfigMap({ case: 'reinvoke' });
    assert.equal(res.status, 201, res.text);
    assert.equal(((res.json['metadata'] as Json)['labels'] as Json)['second'], 'done');
    const firstCalls = wh.calls('/first').slice(firstBefore);
    assert.equal(firstCalls.length, 2, 'first webhook reinvoked once');
    assert.equal(wh.calls('/second').length - secondBefore, 1);
    assert.equal((((firstCalls[1]!['object'] as Json)['metadata'] as Json)['labels'] as Json)['second'], 'done', 'the reinvocation sees the later mutation');
    // Already labelled: the second webhook changes nothing, so no reinvocation.
    const unchanged = await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'preset', labels: { case: 'reinvoke', second: 'x' } } } });
    assert.equal(unchanged.status, 201);
    assert.equal(wh.calls('/first').length - firstBefore, 3);
    await remove(MWC, 'a-first');
    await remove(MWC, 'b-second');
  });

  void it('UPDATE and DELETE: oldObject is sent; a DELETE denial keeps the object', async () => {
    wh.handle('/ops', (request) => (request['operation'] === 'DELETE' ? { allowed: false, status: { code: 403, message: 'keep it' } } : { allowed: true }));
    await configure(VWC, 'ops', [hook('ops.example.com', '/ops', { rules: rules(['UPDATE', 'DELETE']), objectSelector: { matchLabels: { case: 'ops' } } })]);
    const created = await createConfigMap({ case: 'ops' });
    const name = String((created.json['metadata'] as Json)['name']);
    await eventually('ops applied', async () => (await t.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`)).status === 403);
    const denied = await t.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`);
    assert.equal(denied.json['message'], 'admission webhook "ops.example.com" denied the request: keep it');
    const deleteCall = wh.calls('/ops').at(-1)!;
    assert.equal(deleteCall['object'], null);
    assert.equal(((deleteCall['oldObject'] as Json)['metadata'] as Json)['name'], name);
    assert.equal((deleteCall['options'] as Json)['kind'], 'DeleteOptions');
    const patched = await t.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, { body: { data: { a: 'c' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    const updateCall = wh.calls('/ops').at(-1)!;
    assert.equal(updateCall['operation'], 'UPDATE');
    assert.deepEqual((updateCall['oldObject'] as Json)['data'], { a: 'b' });
    assert.deepEqual((updateCall['object'] as Json)['data'], { a: 'c' });
    assert.equal((updateCall['options'] as Json)['kind'], 'UpdateOptions');
    await remove(VWC, 'ops');
  });

  // Endpoints may not be loopback addresses (as in kube): the webhook is reached at the machine's own address.
  const address = machineAddress();
  void it('clientConfig.service: the Service\'s endpoint (--enable-aggregator-routing), certificate checked for <name>.<namespace>.svc', { skip: address === undefined ? 'this machine has no non-loopback IPv4 address for an Endpoints' : false }, async () => {
    wh.handle('/svc', () => ({ allowed: false, status: { message: 'from the service' } }));
    const service = await t.request('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: wh.port }] } } });
    assert.equal(service.status, 201, service.text);
    const endpoints = await t.request('POST', '/api/v1/namespaces/default/endpoints', { body: { metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: address! }], ports: [{ name: 'https', port: wh.port }] }] } });
    assert.equal(endpoints.status, 201, endpoints.text);
    await configure(VWC, 'svc', [{ ...hook('svc.example.com', '/x'), clientConfig: { service: { namespace: 'default', name: 'hook', path: '/svc' }, caBundle: wh.caBundle }, objectSelector: { matchLabels: { case: 'svc' } } }]);
    await eventually('service webhook applied', async () => (await createConfigMap({ case: 'svc' })).status === 400);
    const res = await createConfigMap({ case: 'svc' });
    assert.equal(res.json['message'], 'admission webhook "svc.example.com" denied the request: from the service');
    await configure(VWC, 'nosvc', [{ ...hook('nosvc.example.com', '/x'), clientConfig: { service: { namespace: 'default', name: 'nosuch', path: '/p' }, caBundle: wh.caBundle }, objectSelector: { matchLabels: { case: 'nosvc' } } }]);
    await eventually('missing service applied', async () => (await createConfigMap({ case: 'nosvc' })).status === 500);
    const missing = await createConfigMap({ case: 'nosvc' });
    assert.equal(missing.json['message'], 'Internal error occurred: failed calling webhook "nosvc.example.com": failed to call webhook: Post "https://nosuch.default.svc:443/p?timeout=10s": service "nosuch" not found');
    await remove(VWC, 'svc');
    await remove(VWC, 'nosvc');
  });

  void it('matchConditions (CEL): a false condition skips the webhook; an error fails closed with kube\'s 403 under Fail and skips under Ignore', async () => {
    wh.handle('/mc', () => ({ allowed: false, status: { message: 'matched' } }));
    const mc = (name: string, expression: string, kind: string, extra: Json = {}) =>
      hook(name, '/mc', { matchConditions: [{ name: 'c', expression }], objectSelector: { matchLabels: { kind } }, ...extra });
    await configure(VWC, 'mc', [
      mc('sel.example.com', "object.metadata.labels.case == 'mc' && request.operation == 'CREATE' && request.namespace == 'webhooks'", 'sel'),
      mc('err.example.com', "object.metadata.labels.missing == 'x'", 'err'),
      mc('errignore.example.com', "object.metadata.labels.missing == 'x'", 'errignore', { failurePolicy: 'Ignore' }),
    ]);
    await eventually('matchConditions applied', async () => (await createConfigMap({ kind: 'sel', case: 'mc' })).status === 400);
    assert.equal((await createConfigMap({ kind: 'sel', case: 'other' })).status, 201);
    const failed = await createConfigMap({ kind: 'err' });
    const name = `cm-${n}`;
    assert.deepEqual(failed.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `configmaps "${name}" is forbidden: expression 'object.metadata.labels.missing == 'x'' resulted in error: no such key: missing`,
      reason: 'Forbidden', details: { name, kind: 'configmaps' }, code: 403,
    });
    assert.equal((await createConfigMap({ kind: 'errignore' })).status, 201);
    await remove(VWC, 'mc');
  });

  void it('subresources: pods/eviction is a CREATE of an Eviction, pods/exec a CONNECT with PodExecOptions', async () => {
    wh.handle('/sub', (request) => ({ allowed: false, status: { code: 403, message: `no ${String(request['subResource'])}` } }));
    await configure(VWC, 'sub', [hook('sub.example.com', '/sub', {
      rules: [{ operations: ['CREATE', 'CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction', 'pods/exec'] }],
    })]);
    const pod = await t.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    assert.equal(pod.status, 201, pod.text);
    const evict = () => t.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } } });
    await eventually('eviction webhook applied', async () => (await evict()).status === 403);
    const evicted = await evict();
    assert.equal(evicted.json['message'], 'admission webhook "sub.example.com" denied the request: no eviction');
    const call = wh.calls('/sub').at(-1)!;
    assert.equal(call['operation'], 'CREATE');
    assert.equal(call['subResource'], 'eviction');
    assert.deepEqual(call['kind'], { group: 'policy', version: 'v1', kind: 'Eviction' });
    assert.deepEqual(call['resource'], { group: '', version: 'v1', resource: 'pods' });
    assert.deepEqual(call['object'], { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: ns, creationTimestamp: null } });
    assert.equal((await t.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 200, 'the pod is not evicted');
    const exec = await t.request('POST', `/api/v1/namespaces/${ns}/pods/p/exec?command=ls&command=-l&stdout=true&container=c`);
    assert.equal(exec.status, 403, exec.text);
    assert.equal(exec.json['message'], 'admission webhook "sub.example.com" denied the request: no exec');
    const connect = wh.calls('/sub').at(-1)!;
    assert.equal(connect['operation'], 'CONNECT');
    assert.deepEqual(connect['kind'], { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.deepEqual(connect['object'], { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, container: 'c', command: ['ls', '-l'] });
    await remove(VWC, 'sub');
  });

  void it('deployments/scale is admitted as an autoscaling/v1 Scale; a patch of the Scale changes the replicas stored', async () => {
    wh.handle('/scale', () => ({ allowed: true, ...patchOf([{ op: 'replace', path: '/spec/replicas', value: 5 }]) }));
    await configure(MWC, 'scale', [hook('scale.example.com', '/scale', { rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }] })]);
    const labels = { app: 'd' };
    const deployment = await t.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: { metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
    });
    assert.equal(deployment.status, 201, deployment.text);
    const scale = (replicas: number) => t.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`, { body: { spec: { replicas } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await eventually('scale webhook applied', async () => wh.calls('/scale').length > 0 || ((await scale(2)).status === 200 && wh.calls('/scale').length > 0));
    const res = await scale(3);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json['spec'], { replicas: 5 });
    const call = wh.calls('/scale').at(-1)!;
    assert.equal(call['subResource'], 'scale');
    assert.deepEqual(call['kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual((call['object'] as Json)['spec'], { replicas: 3 });
    assert.equal((call['oldObject'] as Json)['kind'], 'Scale');
    const stored = await t.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d`);
    assert.equal((stored.json['spec'] as Json)['replicas'], 5);
    await remove(MWC, 'scale');
  });

  void it('matchPolicy Equivalent: a webhook for v1 sees a v1beta1 request converted to v1; its patch lands in the stored object; Exact skips it', async () => {
    await createEstablished(t, widgetCrd());
    wh.handle('/widgets', () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/spec/size', value: 7 }]) }));
    const v1Only = (name: string, extra: Json) => hook(name, '/widgets', { rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }], ...extra });
    await configure(MWC, 'widgets', [v1Only('equivalent.example.com', { objectSelector: { matchLabels: { policy: 'equivalent' } } }), v1Only('exact.example.com', { matchPolicy: 'Exact', objectSelector: { matchLabels: { policy: 'exact' } } })]);
    const create = (name: string, policy: string) => t.request('POST', `/apis/example.com/v1beta1/namespaces/${ns}/widgets`, { body: { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name, labels: { policy } }, spec: { color: 'red' } } });
    let n2 = 0;
    await eventually('widget webhook applied', async () => ((await create(`w${++n2}`, 'equivalent')).json['spec'] as Json | undefined)?.['size'] === 7);
    const call = wh.calls('/widgets').at(-1)!;
    assert.deepEqual(call['kind'], { group: 'example.com', version: 'v1', kind: 'Widget' });
    assert.deepEqual(call['resource'], { group: 'example.com', version: 'v1', resource: 'widgets' });
    assert.deepEqual(call['requestKind'], { group: 'example.com', version: 'v1beta1', kind: 'Widget' });
    assert.equal((call['object'] as Json)['apiVersion'], 'example.com/v1');
    const before = wh.calls('/widgets').length;
    const exact = await create('exact', 'exact');
    assert.equal(exact.status, 201, exact.text);
    assert.equal((exact.json['spec'] as Json)['size'], undefined);
    assert.equal(wh.calls('/widgets').length, before, 'matchPolicy Exact does not match another version');
    await remove(MWC, 'widgets');
  });

  void it('metrics: per-webhook latency, requests and rejections under kube\'s names', async () => {
    const metrics = await t.request('GET', '/metrics');
    assert.match(metrics.text, /apiserver_admission_webhook_admission_duration_seconds_bucket\{le="0.005",name="deny.example.com",type="validating",operation="CREATE",rejected="true"\}|apiserver_admission_webhook_admission_duration_seconds_bucket\{[^}]*name="deny.example.com"/);
    assert.match(metrics.text, /apiserver_admission_webhook_rejection_count\{[^}]*name="deny.example.com"[^}]*error_type="no_error"[^}]*rejection_code="400"/);
    assert.match(metrics.text, /apiserver_admission_webhook_fail_open_count\{[^}]*name="deadignore.example.com"[^}]*type="validating"/);
    assert.match(metrics.text, /apiserver_admission_step_admission_duration_seconds_bucket\{[^}]*type="validate"/);
  });
});

void describe('admission webhooks in the audit log', () => {
  let t: TestServer;
  let wh: WebhookServer;
  let dir = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-webhook-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: ["RequestReceived"]\nrules:\n- level: Metadata\n');
    wh = await startWebhookServer();
    t = await startTestServer({ audit: { policyFile: join(dir, 'policy.yaml'), logPath: join(dir, 'audit.log') } });
  });
  after(async () => {
    await t?.close();
    await wh?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('records kube\'s mutation annotation per call and the webhook\'s own audit annotations', async () => {
    wh.handle('/audited', () => ({ allowed: true, auditAnnotations: { decision: 'ok' }, ...patchOf([{ op: 'add', path: '/data/x', value: 'y' }]) }));
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'audited' },
      webhooks: [{ name: 'audited.example.com', clientConfig: { url: wh.url('/audited'), caBundle: wh.caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'], rules: rules() }],
    };
    assert.equal((await t.request('POST', MWC, { body: config })).status, 201);
    let auditId = '';
    await eventually('webhook applied', async () => {
      const res = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { generateName: 'a-' }, data: { a: 'b' } } });
      auditId = res.headers.get('audit-id') ?? '';
      return (res.json['data'] as Json | undefined)?.['x'] === 'y';
    });
    let annotations: Record<string, string> | undefined;
    await eventually('audit event written', async () => {
      const events = readFileSync(join(dir, 'audit.log'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
      annotations = events.find((e) => e['auditID'] === auditId && e['stage'] === 'ResponseComplete')?.['annotations'] as Record<string, string> | undefined;
      return annotations !== undefined;
    });
    assert.equal(annotations!['mutation.webhook.admission.k8s.io/round_0_index_0'], '{"configuration":"audited","webhook":"audited.example.com","mutated":true}');
    assert.equal(annotations!['audited.example.com/decision'], 'ok');
  });
});
