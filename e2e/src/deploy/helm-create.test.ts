/**
 * A chart as `helm create` makes it (Helm's own scaffold, through helm/render), rendered the
 * way `helm template` renders it — with its Ingress and HorizontalPodAutoscaler switched on —
 * and applied to kapi with kubectl: what a new user does first with a cluster. Every object
 * must be created, a second apply must change nothing, and `kubectl get all` must show them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { createChart, ensureRenderer, goBinary, renderChart, type Manifest } from './helm-render.js';

const go = goBinary();
const skip = go === undefined ? 'Go is not installed: helm/render (Helm\'s engine as a Go module) cannot be built' : false;
const ns = 'helm-create';

let cluster: TestCluster | undefined;
let dir: string | undefined;
let manifests: Manifest[] = [];

before(async () => {
  if (go === undefined) return;
  const { path: renderer } = await ensureRenderer(go);
  dir = mkdtempSync(join(tmpdir(), 'kapi-helm-create-'));
  const chart = join(dir, 'demo');
  await createChart(renderer, chart);
  const rendered = await renderChart(renderer, { chart, release: 'demo', namespace: ns, set: ['ingress.enabled=true', 'autoscaling.enabled=true'] });
  assert.equal(rendered.code, 0, rendered.stderr);
  manifests = rendered.manifests;
  cluster = await startCluster();
});

after(async () => {
  await cluster?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

void test('kubectl apply of a rendered `helm create` chart creates every object; a second apply changes nothing', { skip }, async () => {
  const kinds = manifests.map((m) => m.kind).sort();
  // The scaffold: ServiceAccount, Service, Deployment, HPA, Ingress and the `helm test` Pod.
  assert.deepEqual(kinds, ['Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'Pod', 'Service', 'ServiceAccount']);
  const kubectl = cluster!.kubectl();
  await kubectl.ok(['create', 'namespace', ns]);
  const stream = manifests.map((m) => `---\n${stringify(m)}`).join('');
  const first = await kubectl.ok(['apply', '-n', ns, '-f', '-'], stream);
  for (const m of manifests) assert.match(first, new RegExp(`${m.metadata.name} created`), `${m.kind} ${m.metadata.name}: ${first}`);
  const second = await kubectl.ok(['apply', '-n', ns, '-f', '-'], stream);
  assert.equal(second.split('\n').filter((l) => l !== '' && !l.endsWith(' unchanged')).length, 0, second);

  const all = await kubectl.ok(['get', 'all', '-n', ns, '-o', 'name']);
  for (const name of ['deployment.apps/demo', 'service/demo', 'horizontalpodautoscaler.autoscaling/demo', 'pod/demo-test-connection']) {
    assert.ok(all.split('\n').includes(name), `${name} in get all: ${all}`);
  }
  const deployment = await kubectl.json<{ spec: { replicas?: number; template: { spec: { serviceAccountName: string; containers: { ports: unknown[] }[] } } } }>(['get', 'deployment', 'demo', '-n', ns, '-o', 'json']);
  assert.equal(deployment.spec.template.spec.serviceAccountName, 'demo');
  assert.deepEqual(deployment.spec.template.spec.containers[0]!.ports, [{ name: 'http', containerPort: 80, protocol: 'TCP' }]);
  const service = await kubectl.json<{ spec: { clusterIP: string; ports: unknown[] } }>(['get', 'service', 'demo', '-n', ns, '-o', 'json']);
  assert.match(service.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
  assert.deepEqual(service.spec.ports, [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
});
