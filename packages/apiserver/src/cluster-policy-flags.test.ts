/**
 * The effects of kube flags that shape requests rather than the server's plumbing, as
 * kube-apiserver 1.32.13 answered the same requests: --allow-privileged (default false),
 * --cors-allowed-origins, --external-hostname, --kubelet-preferred-address-types and
 * --kubelet-port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const NS = '/api/v1/namespaces/default';

function pod(name: string, securityContext: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext }], ...extra } };
}

function deployment(name: string, privileged: boolean) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { initContainers: [{ name: 'i', image: 'busybox', securityContext: { privileged } }], containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
}

/** A Pod's create waits for the namespace's default ServiceAccount (kube's ServiceAccount admission). */
async function defaultServiceAccount(t: TestServer): Promise<void> {
  for (let i = 0; i < 200 && (await t.request('GET', `${NS}/serviceaccounts/default`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
}

void describe('kube defaults: --allow-privileged=false, no CORS, the reached address', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      corsAllowedOrigins: ['//good\\.example(:|$)'],
      externalHostname: 'api.example.com',
      kubelet: { preferredAddressTypes: ['ExternalIP', 'InternalIP'], port: 1 },
    });
    await defaultServiceAccount(t);
  });
  after(async () => t.close());

  void it('refuses privileged containers in a Pod and in a pod template, as kube does', async () => {
    const res = await t.request('POST', `${NS}/pods`, { body: pod('priv', { privileged: true }) });
    assert.equal(res.status, 422);
    assert.equal(res.json['message'], 'Pod "priv" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
    assert.deepEqual((res.json['details'] as { causes: unknown[] }).causes, [
      { reason: 'FieldValueForbidden', message: 'Forbidden: disallowed by cluster policy', field: 'spec.containers[0].securityContext.privileged' },
    ]);
    // privileged: false, and no securityContext at all, are fine.
    assert.equal((await t.request('POST', `${NS}/pods`, { body: pod('plain', { privileged: false }) })).status, 201);

    const hostProcess = await t.request('POST', `${NS}/pods`, { body: pod('hp', { windowsOptions: { hostProcess: true } }, { hostNetwork: true }) });
    assert.equal(hostProcess.status, 422);
    assert.equal(hostProcess.json['message'], 'Pod "hp" is invalid: spec: Forbidden: hostProcess containers are disallowed by cluster policy');

    const created = await t.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('d', true) });
    assert.equal(created.status, 422);
    assert.equal(created.json['message'], 'Deployment.apps "d" is invalid: spec.template.spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
    // An update that makes the template privileged is refused too.
    assert.equal((await t.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('d', false) })).status, 201);
    const patched = await t.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/d', {
      body: [{ op: 'replace', path: '/spec/template/spec/initContainers/0/securityContext/privileged', value: true }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(patched.status, 422);
    assert.match(String(patched.json['message']), /initContainers\[0\]\.securityContext\.privileged: Forbidden: disallowed by cluster policy/);

    const cron = {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } } } } },
    };
    const cronRes = await t.request('POST', '/apis/batch/v1/namespaces/default/cronjobs', { body: cron });
    assert.equal(cronRes.status, 422);
    assert.match(String(cronRes.json['message']), /spec\.jobTemplate\.spec\.template\.spec\.containers\[0\]\.securityContext\.privileged: Forbidden/);
  });

  void it('answers a preflight from an allowed Origin at once and marks its requests; others get no CORS headers', async () => {
    const preflight = await t.request('OPTIONS', `${NS}/configmaps`, { headers: { origin: 'https://good.example', 'access-control-request-method': 'DELETE' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://good.example');
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since');
    assert.equal(preflight.headers.get('access-control-expose-headers'), 'Date');
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');

    const allowed = await t.request('GET', `${NS}/configmaps`, { headers: { origin: 'https://good.example:8443' } });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://good.example:8443');

    // Not pinned by the pattern: a longer host does not match.
    for (const origin of ['https://good.example.evil.com', 'https://bad.example']) {
      const other = await t.request('GET', `${NS}/configmaps`, { headers: { origin } });
      assert.equal(other.status, 200);
      assert.equal(other.headers.get('access-control-allow-origin'), null, origin);
    }
    // An OPTIONS that is not an allowed preflight goes on to the API (kube: 405 for an unregistered method).
    assert.notEqual((await t.request('OPTIONS', `${NS}/configmaps`, { headers: { origin: 'https://bad.example' } })).status, 204);
  });

  void it('names --external-hostname with the secure port in /api', async () => {
    const res = await t.request('GET', '/api');
    assert.deepEqual(res.json['serverAddressByClientCIDRs'], [{ clientCIDR: '0.0.0.0/0', serverAddress: 'api.example.com:6443' }]);
  });

  void it('reaches a kubelet by the preferred address types, on --kubelet-port when the Node names none', async () => {
    assert.equal((await t.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } })).status, 201);
    const status = { status: { addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '127.0.0.1' }] } };
    assert.equal((await t.request('PATCH', '/api/v1/nodes/n1/status', { body: status, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-n1' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await t.request('POST', `${NS}/pods`, { body })).status, 201);
    // Hostname is not preferred here, so InternalIP is used, on port 1 (nothing listens).
    const log = await t.request('GET', `${NS}/pods/on-n1/log`);
    assert.equal(log.status, 500);
    assert.match(String(log.json['message']), /^Get "https:\/\/127\.0\.0\.1:1\/containerLogs\/default\/on-n1\/c": dial tcp 127\.0\.0\.1:1: connect: connection refused/);

    assert.equal((await t.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } } })).status, 201);
    const hostnameOnly = { status: { addresses: [{ type: 'Hostname', address: 'n2' }] } };
    assert.equal((await t.request('PATCH', '/api/v1/nodes/n2/status', { body: hostnameOnly, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const proxy = await t.request('GET', '/api/v1/nodes/n2/proxy/');
    assert.equal(proxy.status, 500);
    assert.match(String(proxy.json['message'] ?? proxy.text), /no preferred addresses found; known addresses: \[\{Hostname n2\}\]/);
  });
});

void describe('--allow-privileged=true', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ allowPrivileged: true });
    await defaultServiceAccount(t);
  });
  after(async () => t.close());

  void it('admits privileged containers', async () => {
    assert.equal((await t.request('POST', `${NS}/pods`, { body: pod('priv', { privileged: true }) })).status, 201);
    assert.equal((await t.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('d', true) })).status, 201);
  });

  void it('serves no CORS headers without --cors-allowed-origins, and the reached address in /api', async () => {
    const res = await t.request('GET', '/api', { headers: { origin: 'https://good.example' } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    const address = (res.json['serverAddressByClientCIDRs'] as { serverAddress: string }[])[0]!.serverAddress;
    assert.match(address, /^127\.0\.0\.1:\d+$/);
  });
});
