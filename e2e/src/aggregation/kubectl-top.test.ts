/**
 * The aggregation layer end to end: a metrics-server-like backend (HTTPS, checking kapi's
 * front-proxy client certificate and X-Remote-User) registered by an APIService with a
 * Service and Endpoints (--enable-aggregator-routing=true), then the machine's `kubectl top
 * pods` and `kubectl top nodes` print the backend's numbers. Stopping the backend turns the
 * APIService Available=False with kube's reason, requests to it get kube's 503, and the rest
 * of kapi is unaffected.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createTestCa, type TestCa } from '@kapi/apiserver/testing';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { Kubectl } from '../harness/kubectl.js';
import { startMetricsBackend, type MetricsBackend } from './metrics-backend.js';

const NS = 'e2e-metrics';

/** A non-loopback IPv4 address of this machine (kube and kapi refuse loopback endpoints), if it has one. */
function endpointAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last !== undefined ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A GET to kapi with the test's token; resolves with the status, content type, body and when the first and last bytes came. */
function rawGet(server: string, ca: string, path: string): Promise<{ status: number; contentType: string; body: string; firstMs: number; endMs: number }> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(`${server}${path}`, { ca, headers: { Authorization: 'Bearer kapi-local' } }, (res) => {
      let body = '';
      let firstMs = -1;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (firstMs < 0) firstMs = Date.now() - start;
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body, firstMs, endMs: Date.now() - start }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const NO_ADDRESS = endpointAddress() === undefined ? 'this machine has no non-loopback IPv4 address for the Endpoints' : false;

void describe('aggregation layer: kubectl top through an APIService', { skip: NO_ADDRESS }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let proxyCa: TestCa;
  let backendCa: TestCa;
  let backend: MetricsBackend;
  const host = endpointAddress() ?? '';
  let fresh = 0;
  /** A kubectl with an empty discovery cache (discovery changes as the APIService comes and goes). */
  const freshKubectl = () => new Kubectl({ kubeconfig: cluster.kubeconfig(), cacheDir: join(cluster.dir, `cache-${++fresh}`) });
  const condition = async () => {
    const out = await kubectl.ok(['get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")]}']);
    return out === '' ? undefined : (JSON.parse(out) as { status: string; reason: string; message: string });
  };

  before(async () => {
    proxyCa = createTestCa('front-proxy-ca');
    backendCa = createTestCa('metrics-ca');
    const proxyClient = proxyCa.client('front-proxy-client');
    const serving = backendCa.client('metrics-server', [], { usage: 'serverAuth' });
    const tokens = join(proxyCa.dir, 'tokens.csv');
    writeFileSync(tokens, 'kapi-local,e2e-admin,admin-uid,"system:masters"\n');
    cluster = await startCluster({
      server: {
        extraArgs: [
          `--token-auth-file=${tokens}`,
          `--proxy-client-cert-file=${proxyClient.certFile}`,
          `--proxy-client-key-file=${proxyClient.keyFile}`,
          '--enable-aggregator-routing=true',
          // readyz is probed without credentials: anonymous may read it (system:public-info-viewer).
          '--authorization-mode=RBAC',
          '--anonymous-auth=true',
        ],
      },
    });
    kubectl = cluster.kubectl();
    backend = await startMetricsBackend({
      cert: serving.cert, key: serving.key, proxyCa: proxyCa.cert, allowedName: 'front-proxy-client', host,
      nodes: { 'node-a': { cpu: '1250m', memory: '2Gi' }, 'node-b': { cpu: '300m', memory: '512Mi' } },
      pods: { [NS]: { web: { app: { cpu: '250m', memory: '64Mi' }, sidecar: { cpu: '5m', memory: '8Mi' } }, db: { db: { cpu: '1', memory: '256Mi' } } } },
    });
    const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { capacity: { cpu: '4', memory: '8Gi' }, allocatable: { cpu: '4', memory: '8Gi' } } });
    const objects = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      node('node-a'),
      node('node-b'),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server', namespace: NS }, spec: { ports: [{ name: 'https', port: 443, targetPort: backend.port }] } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'metrics-server', namespace: NS }, subsets: [{ addresses: [{ ip: host }], ports: [{ name: 'https', port: backend.port }] }] },
      {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' },
        spec: { group: 'metrics.k8s.io', version: 'v1beta1', service: { name: 'metrics-server', namespace: NS, port: 443 }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 100 },
      },
    ];
    await kubectl.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  });
  after(async () => {
    await backend?.stop();
    await cluster?.stop();
    proxyCa?.remove();
    backendCa?.remove();
  });

  void it('marks the APIService Available once its backend answers discovery', async () => {
    const available = await eventually('Available=True', async () => {
      const c = await condition();
      return c?.status === 'True' ? c : undefined;
    });
    assert.deepEqual({ reason: available.reason, message: available.message }, { reason: 'Passed', message: 'all checks passed' });
    const table = await kubectl.ok(['get', 'apiservices', 'v1beta1.metrics.k8s.io']);
    assert.match(table, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
    assert.match(table, new RegExp(`v1beta1\\.metrics\\.k8s\\.io\\s+${NS}/metrics-server\\s+True\\s+`));
    assert.match(await kubectl.ok(['get', '--raw', '/metrics']), /^aggregator_unavailable_apiservice\{name="v1beta1\.metrics\.k8s\.io"\} 0$/m);
  });

  void it('lists the aggregated group in legacy and aggregated discovery', async () => {
    const groups = JSON.parse(await kubectl.ok(['get', '--raw', '/apis'])) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    const metrics = groups.groups.find((g) => g.name === 'metrics.k8s.io');
    assert.deepEqual(metrics?.preferredVersion, { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' });
    assert.equal(groups.groups.at(-1)?.name, 'metrics.k8s.io');
    const group = JSON.parse(await kubectl.ok(['get', '--raw', '/apis/metrics.k8s.io'])) as { kind: string; versions: unknown[] };
    assert.deepEqual(group, { kind: 'APIGroup', apiVersion: 'v1', name: 'metrics.k8s.io', versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' } });
    // The group-version's own document is the backend's.
    const resources = JSON.parse(await kubectl.ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1'])) as { resources: { name: string }[] };
    assert.deepEqual(resources.resources.map((r) => r.name), ['nodes', 'pods']);
    // Aggregated discovery carries the backend's resources once fetched.
    const item = await eventually('aggregated discovery of metrics.k8s.io', async () => {
      const out = await freshKubectl().run(['api-resources', '--api-group=metrics.k8s.io', '-o', 'name']);
      return out.code === 0 && out.stdout.includes('pods.metrics.k8s.io') ? out.stdout : undefined;
    });
    assert.deepEqual(item.trim().split('\n').sort(), ['nodes.metrics.k8s.io', 'pods.metrics.k8s.io']);
  });

  void it('serves the backend\'s OpenAPI v3 document under kapi\'s index (kubectl explain reads it)', async () => {
    const doc = await eventually('the OpenAPI v3 index entry', async () => {
      const index = JSON.parse(await kubectl.ok(['get', '--raw', '/openapi/v3'])) as { paths: Record<string, { serverRelativeURL: string }> };
      return index.paths['apis/metrics.k8s.io/v1beta1']?.serverRelativeURL;
    });
    // The backend's own URL and hash, as kube lists them.
    assert.equal(doc, '/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=B4C4');
    assert.ok(JSON.parse(await kubectl.ok(['get', '--raw', doc])).components.schemas['io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics']);
    const explained = await freshKubectl().ok(['explain', 'podmetrics', '--api-version=metrics.k8s.io/v1beta1']);
    assert.match(explained, /GROUP:\s+metrics\.k8s\.io\nKIND:\s+PodMetrics\nVERSION:\s+v1beta1\n/);
    assert.match(explained, /PodMetrics sets resource usage metrics of a pod\./);
  });

  void it('kubectl top pods and top nodes print the backend\'s numbers', async () => {
    const pods = await freshKubectl().ok(['top', 'pods', '-n', NS]);
    const podLines = pods.trim().split('\n');
    assert.match(podLines[0]!, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/);
    assert.deepEqual(podLines.slice(1).map((l) => l.trim().split(/\s+/)).sort(), [['db', '1000m', '256Mi'], ['web', '255m', '72Mi']]);
    const nodes = await freshKubectl().ok(['top', 'nodes']);
    const nodeLines = nodes.trim().split('\n');
    assert.match(nodeLines[0]!, /^NAME\s+CPU\(cores\)\s+CPU(\(%\)|%)\s+MEMORY\(bytes\)\s+MEMORY(\(%\)|%)\s*$/);
    assert.deepEqual(nodeLines.slice(1).map((l) => l.trim().split(/\s+/)).sort(), [['node-a', '1250m', '31%', '2048Mi', '25%'], ['node-b', '300m', '7%', '512Mi', '6%']]);
    // The backend saw kapi's front-proxy certificate and the kubectl user, never the user's token.
    const proxied = backend.seen.filter((r) => r.path.includes('/namespaces/') || r.path.endsWith('/nodes'));
    assert.ok(proxied.length >= 2);
    for (const r of proxied) {
      assert.equal(r.clientCn, 'front-proxy-client');
      assert.equal(r.user, 'e2e-admin');
      assert.ok(r.groups.includes('system:masters'), r.groups.join(','));
      assert.equal(r.authorization, undefined);
    }
    // A watch is streamed: the first event arrives before the backend ends the response.
    const watch = await rawGet(cluster.servers[0]!.url, readFileSync(cluster.servers[0]!.caFile, 'utf8'), '/apis/metrics.k8s.io/v1beta1/nodes?watch=1');
    assert.equal(watch.status, 200);
    assert.deepEqual(watch.body.trim().split('\n').map((l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name), ['node-a', 'node-b']);
    assert.ok(watch.firstMs >= 0 && watch.endMs - watch.firstMs >= 1000, `first event at ${watch.firstMs} ms, end at ${watch.endMs} ms`);
    // A backend's redirect is not followed nor passed on (kube's --aggregator-reject-forwarding-redirect).
    const redirect = await rawGet(cluster.servers[0]!.url, readFileSync(cluster.servers[0]!.caFile, 'utf8'), '/apis/metrics.k8s.io/v1beta1/redirect');
    assert.deepEqual({ status: redirect.status, body: redirect.body }, { status: 502, body: 'the backend attempted to redirect this request, which is not permitted' });
    // kapi's own availability checks come as kube's aggregator identity.
    assert.ok(backend.seen.some((r) => r.path === '/apis/metrics.k8s.io/v1beta1' && r.user === 'system:kube-aggregator'));
  });

  void it('reports FailedDiscoveryCheck and answers 503 once the backend is gone, the rest of kapi unaffected', async () => {
    await backend.stop();
    const down = await eventually('Available=False', async () => {
      const c = await condition();
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(down.reason, 'FailedDiscoveryCheck');
    const url = `https://${host}:${backend.port}/apis/metrics.k8s.io/v1beta1`;
    assert.equal(down.message, `failing or missing response from ${url}: Get "${url}": dial tcp ${host}:${backend.port}: connect: connection refused`);
    const refused = await kubectl.run(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Error from server \(ServiceUnavailable\): the server is currently unable to handle the request/);
    // kube's plain-text 503 (http.Error), not a Status.
    const raw = await rawGet(cluster.servers[0]!.url, readFileSync(cluster.servers[0]!.caFile, 'utf8'), '/apis/metrics.k8s.io/v1beta1/namespaces/e2e-metrics/pods');
    assert.deepEqual({ status: raw.status, contentType: raw.contentType, body: raw.body }, { status: 503, contentType: 'text/plain; charset=utf-8', body: 'service unavailable\n' });
    const top = await freshKubectl().run(['top', 'nodes']);
    assert.notEqual(top.code, 0);
    assert.match(await kubectl.ok(['get', 'apiservices', 'v1beta1.metrics.k8s.io']), /False \(FailedDiscoveryCheck\)/);
    const metrics = await kubectl.ok(['get', '--raw', '/metrics']);
    assert.match(metrics, /^aggregator_unavailable_apiservice\{name="v1beta1\.metrics\.k8s\.io"\} 1$/m);
    assert.match(metrics, /^aggregator_unavailable_apiservice_total\{name="v1beta1\.metrics\.k8s\.io",reason="FailedDiscoveryCheck"\} [1-9][0-9]*$/m);
    // Everything else still answers.
    assert.match(await kubectl.ok(['get', 'namespace', NS, '-o', 'name']), /^namespace\/e2e-metrics\n$/);
    assert.match(await kubectl.ok(['create', 'configmap', 'still-fine', '-n', NS]), /configmap\/still-fine created/);
  });

  void it('names the missing piece: endpoints without the port, no endpoints, a port the service lacks, no service', async () => {
    await kubectl.ok(['patch', 'endpoints', 'metrics-server', '-n', NS, '--type=json', '-p', '[{"op":"replace","path":"/subsets/0/ports/0/name","value":"other"}]']);
    const missing = await eventually('MissingEndpoints', async () => ((await condition())?.reason === 'MissingEndpoints' ? condition() : undefined));
    assert.equal(missing?.message, `endpoints for service/metrics-server in "${NS}" have no addresses with port name "https"`);
    await kubectl.ok(['delete', 'endpoints', 'metrics-server', '-n', NS]);
    const noEndpoints = await eventually('EndpointsNotFound', async () => ((await condition())?.reason === 'EndpointsNotFound' ? condition() : undefined));
    assert.equal(noEndpoints?.message, `cannot find endpoints for service/metrics-server in "${NS}"`);
    await kubectl.ok(['patch', 'apiservice', 'v1beta1.metrics.k8s.io', '--type=merge', '-p', '{"spec":{"service":{"port":444}}}']);
    const badPort = await eventually('ServicePortError', async () => ((await condition())?.reason === 'ServicePortError' ? condition() : undefined));
    assert.equal(badPort?.message, `service/metrics-server in "${NS}" is not listening on port 444`);
    await kubectl.ok(['delete', 'service', 'metrics-server', '-n', NS]);
    const noService = await eventually('ServiceNotFound', async () => ((await condition())?.reason === 'ServiceNotFound' ? condition() : undefined));
    assert.equal(noService?.message, `service/metrics-server in "${NS}" is not present`);
  });
});
