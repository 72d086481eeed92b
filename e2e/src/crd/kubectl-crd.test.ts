/**
 * CustomResourceDefinitions end to end with kubectl against a kapi-apiserver process: apply a
 * CRD with two versions (v1beta1 deprecated), `kubectl get` with its printer columns, custom
 * resources created in each version and read in the other, kubectl printing the deprecation
 * warning, `kubectl explain`, and `kubectl delete crd` taking the objects with it. The same
 * run scrapes /metrics: apiserver_requested_deprecated_apis names exactly the deprecated
 * version that was called.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import type { Kubectl } from '../harness/kubectl.js';
import { RestClient, forEachConcurrently } from '../harness/rest.js';
import { WIDGET_CRD_YAML, widgetYaml } from './crd-manifests.js';

let cluster: TestCluster;
let kubectl: Kubectl;

before(async () => {
  cluster = await startCluster();
  kubectl = cluster.kubectl();
});
after(async () => {
  await cluster?.stop();
});

void test('kubectl: a two-version CRD from apply to delete, with the deprecated-API metric', async () => {
  assert.match(await kubectl.ok(['apply', '-f', '-'], WIDGET_CRD_YAML), /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.e2e\.example\.com created/);
  await kubectl.ok(['wait', '--for=condition=Established', 'crd/widgets.e2e.example.com', '--timeout=30s']);
  assert.match(await kubectl.ok(['get', 'crd']), /^NAME\s+CREATED AT\nwidgets\.e2e\.example\.com\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  const explainCrd = await kubectl.ok(['explain', 'crd.spec.versions.schema']);
  assert.match(explainCrd, /KIND:\s+CustomResourceDefinition/);

  // One object through each version.
  assert.match(await kubectl.ok(['apply', '-f', '-'], widgetYaml('red-one', 'v1', 'red', 3)), /widget\.e2e\.example\.com\/red-one created/);
  const beta = await kubectl.run(['apply', '-f', '-'], widgetYaml('green-one', 'v1beta1', 'green', 5));
  assert.equal(beta.code, 0, beta.stderr);
  assert.match(beta.stdout, /widget\.e2e\.example\.com\/green-one created/);
  assert.match(beta.stderr, /Warning: e2e\.example\.com\/v1beta1 Widget is deprecated/);

  // Printer columns (the preferred version, v1).
  const table = await kubectl.ok(['get', 'widgets', '-n', 'default']);
  const lines = table.trim().split('\n');
  assert.match(lines[0]!, /^NAME\s+COLOR\s+SIZE\s+AGE$/);
  assert.match(table, /\ngreen-one\s+green\s+5\s+\d+s/);
  assert.match(table, /\nred-one\s+red\s+3\s+\d+s/);
  assert.match(await kubectl.ok(['get', 'wdg', 'red-one', '-n', 'default']), /red-one\s+red\s+3/);

  // Each read in the other version.
  const greenAsV1 = await kubectl.json<{ apiVersion: string; spec: { color: string; size: number } }>(['get', 'widgets.v1.e2e.example.com', 'green-one', '-n', 'default']);
  assert.equal(greenAsV1.apiVersion, 'e2e.example.com/v1');
  assert.deepEqual(greenAsV1.spec, { color: 'green', size: 5 });
  const redAsBeta = await kubectl.run(['get', 'widgets.v1beta1.e2e.example.com', 'red-one', '-n', 'default', '-o', 'json']);
  assert.equal(redAsBeta.code, 0, redAsBeta.stderr);
  const red = JSON.parse(redAsBeta.stdout) as { apiVersion: string; spec: { color: string; size: number } };
  assert.equal(red.apiVersion, 'e2e.example.com/v1beta1');
  assert.deepEqual(red.spec, { color: 'red', size: 3 });
  assert.match(redAsBeta.stderr, /Warning: e2e\.example\.com\/v1beta1 Widget is deprecated/);

  // kubectl scale goes through the scale subresource.
  assert.match(await kubectl.ok(['scale', 'widget', 'red-one', '-n', 'default', '--replicas=4']), /widget\.e2e\.example\.com\/red-one scaled/);
  const scaled = await kubectl.json<{ spec: { replicas: number }; metadata: { generation: number } }>(['get', 'widget', 'red-one', '-n', 'default']);
  assert.equal(scaled.spec.replicas, 4);
  assert.equal(scaled.metadata.generation, 2);

  // kubectl explain reads the OpenAPI v3 document of the group-version.
  const explain = await kubectl.ok(['explain', 'widgets']);
  assert.match(explain, /KIND:\s+Widget/);
  assert.match(explain, /GROUP:\s+e2e\.example\.com\n/);
  assert.match(explain, /VERSION:\s+v1\n/);
  assert.match(explain, /metadata\t<ObjectMeta>\n {4}Standard object's metadata\./);
  assert.match(explain, /A widget of the e2e suite\./);
  const explainColor = await kubectl.ok(['explain', 'widgets.spec.color']);
  assert.match(explainColor, /The color of the widget\./);

  // The metric names v1beta1 widgets, and nothing else of the group.
  const metrics = await kubectl.ok(['get', '--raw', '/metrics']);
  const deprecated = metrics.split('\n').filter((l) => l.startsWith('apiserver_requested_deprecated_apis{') && l.includes('e2e.example.com'));
  assert.deepEqual(deprecated, ['apiserver_requested_deprecated_apis{group="e2e.example.com",version="v1beta1",resource="widgets",subresource="",removed_release=""} 1']);
  assert.ok(
    metrics.split('\n').some((l) => l.startsWith('apiserver_request_total{') && l.includes('group="e2e.example.com"') && l.includes('version="v1beta1"')),
    'apiserver_request_total counts the deprecated calls',
  );

  // Deleting the CRD deletes its objects (500 more of them, in two namespaces); kubectl waits until the CRD is gone.
  const rest = new RestClient(cluster.servers[0]!.url);
  try {
    await rest.expect(201, 'POST', '/api/v1/namespaces', { metadata: { name: 'e2e-crd-bulk' } });
    await forEachConcurrently(500, 16, async (i) => {
      const ns = i % 2 === 0 ? 'default' : 'e2e-crd-bulk';
      await rest.expect(201, 'POST', `/apis/e2e.example.com/v1/namespaces/${ns}/widgets`, { apiVersion: 'e2e.example.com/v1', kind: 'Widget', metadata: { name: `bulk-${i}` }, spec: { size: i } });
    });
  } finally {
    rest.close();
  }
  const deleteStarted = Date.now();
  assert.match(await kubectl.ok(['delete', 'crd', 'widgets.e2e.example.com', '--timeout=60s']), /customresourcedefinition\.apiextensions\.k8s\.io "widgets\.e2e\.example\.com" deleted/);
  process.stderr.write(`# kubectl delete crd with 502 custom resources took ${Date.now() - deleteStarted} ms\n`);
  const gone = await kubectl.run(['get', 'crd', 'widgets.e2e.example.com']);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /NotFound|not found/);
  const etcd = new Etcd3({ hosts: cluster.etcd.endpoints });
  try {
    assert.deepEqual(await etcd.getAll().prefix('/registry/e2e.example.com/widgets/').keys(), [], 'no custom resource is left in etcd');
  } finally {
    etcd.close();
  }
});
