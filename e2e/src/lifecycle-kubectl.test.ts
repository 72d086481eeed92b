/**
 * Object lifecycle with kubectl against a kapi-apiserver process: `kubectl delete namespace`
 * of a namespace holding 2,000 objects of mixed resources (the namespace controller empties
 * it), `kubectl delete --cascade=orphan|foreground|background` (the garbage collector) and
 * `kubectl wait --for=delete`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';
import type { Kubectl } from './harness/kubectl.js';
import { RestClient, ensureNamespace, forEachConcurrently, type KubeList, type KubeObject } from './harness/rest.js';

let cluster: TestCluster;
let kubectl: Kubectl;
let rest: RestClient;
const RESOURCES = ['configmaps', 'secrets', 'serviceaccounts'];

before(async () => {
  cluster = await startCluster();
  kubectl = cluster.kubectl();
  rest = new RestClient(cluster.servers[0]!.url);
});
after(async () => {
  await cluster?.stop();
});

void test('kubectl delete namespace of 2,000 mixed objects finishes and leaves nothing behind', async () => {
  const ns = 'e2e-big';
  await ensureNamespace(rest, ns);
  await forEachConcurrently(2000, 16, async (i) => {
    const res = await rest.request('POST', `/api/v1/namespaces/${ns}/${RESOURCES[i % 3]}`, { metadata: { name: `o-${i}` } });
    assert.equal(res.status, 201, res.text);
  });
  const started = Date.now();
  assert.equal(await kubectl.ok(['delete', 'namespace', ns, '--timeout=120s']), `namespace "${ns}" deleted\n`);
  process.stderr.write(`# kubectl delete namespace with 2,000 objects took ${Date.now() - started} ms\n`);
  const get = await kubectl.run(['get', 'namespace', ns]);
  assert.notEqual(get.code, 0);
  assert.match(get.stderr, /NotFound|not found/);
  for (const resource of RESOURCES) {
    const list = await rest.request<KubeList>('GET', `/api/v1/namespaces/${ns}/${resource}`);
    assert.deepEqual(list.body.items, [], resource);
  }
});

void test('kubectl delete --cascade=orphan|foreground|background and kubectl wait --for=delete', async () => {
  const ns = 'e2e-cascade';
  await ensureNamespace(rest, ns);
  const make = async (name: string, owner?: KubeObject): Promise<KubeObject> => {
    const ownerReferences = owner === undefined ? undefined : [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: true }];
    const res = await rest.request<KubeObject>('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, ...(ownerReferences ? { ownerReferences } : {}) } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  const orphanOwner = await make('orphan-owner');
  await make('orphan-dep', orphanOwner);
  assert.equal(await kubectl.ok(['delete', 'configmap', 'orphan-owner', '-n', ns, '--cascade=orphan']), 'configmap "orphan-owner" deleted\n');
  const dep = await kubectl.json<KubeObject & { metadata: { ownerReferences?: unknown[] } }>(['get', 'configmap', 'orphan-dep', '-n', ns]);
  assert.equal(dep.metadata.ownerReferences, undefined, 'the orphaned dependent lost its ownerReference');

  const fgOwner = await make('fg-owner');
  await make('fg-dep', fgOwner);
  assert.equal(await kubectl.ok(['delete', 'configmap', 'fg-owner', '-n', ns, '--cascade=foreground']), 'configmap "fg-owner" deleted\n');
  const fgDep = await kubectl.run(['get', 'configmap', 'fg-dep', '-n', ns]);
  assert.notEqual(fgDep.code, 0, 'the blocking dependent went before its owner');

  const bgOwner = await make('bg-owner');
  await make('bg-dep', bgOwner);
  assert.equal(await kubectl.ok(['delete', 'configmap', 'bg-owner', '-n', ns, '--cascade=background']), 'configmap "bg-owner" deleted\n');
  await kubectl.ok(['wait', '--for=delete', 'configmap/bg-dep', '-n', ns, '--timeout=60s']);
  assert.notEqual((await kubectl.run(['get', 'configmap', 'bg-dep', '-n', ns])).code, 0);
  assert.equal((await kubectl.run(['get', 'configmap', 'orphan-dep', '-n', ns])).code, 0, 'the orphan is still there');
});
