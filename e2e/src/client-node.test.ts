import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ApiException, CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { startCluster, type TestCluster } from './harness/cluster.js';

const ns = 'e2e-client-node';
let cluster: TestCluster;
let api: CoreV1Api;

before(async () => {
  cluster = await startCluster();
  const server = cluster.servers[0]!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      existsSync(server.caFile)
        ? { name: 'kapi', server: server.url, caFile: server.caFile, skipTLSVerify: false }
        : { name: 'kapi', server: server.url, skipTLSVerify: true },
    ],
    users: [{ name: 'kapi' }],
    contexts: [{ name: 'kapi', cluster: 'kapi', user: 'kapi' }],
    currentContext: 'kapi',
  });
  api = kc.makeApiClient(CoreV1Api);
  await api.createNamespace({ body: { metadata: { name: ns } } });
});
after(async () => {
  await cluster?.stop();
});

void test('@kubernetes/client-node creates, reads, lists and deletes a ConfigMap', async () => {
  const body: V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'js', labels: { via: 'client-node' } }, data: { k: 'v' } };
  const created = await api.createNamespacedConfigMap({ namespace: ns, body });
  assert.equal(created.metadata?.name, 'js');
  assert.equal(created.metadata?.namespace, ns);
  assert.match(created.metadata?.resourceVersion ?? '', /^[1-9][0-9]*$/);
  assert.ok(created.metadata?.creationTimestamp instanceof Date);

  const read = await api.readNamespacedConfigMap({ name: 'js', namespace: ns });
  assert.deepEqual(read.data, { k: 'v' });
  assert.equal(read.metadata?.uid, created.metadata?.uid);
  assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

  const list = await api.listNamespacedConfigMap({ namespace: ns, labelSelector: 'via=client-node' });
  assert.deepEqual(list.items.map((i) => i.metadata?.name), ['js']);
  assert.match(list.metadata?.resourceVersion ?? '', /^[1-9][0-9]*$/);

  await api.deleteNamespacedConfigMap({ name: 'js', namespace: ns });
  await assert.rejects(api.readNamespacedConfigMap({ name: 'js', namespace: ns }), (err: unknown) => {
    assert.ok(err instanceof ApiException, String(err));
    assert.equal(err.code, 404);
    const status = JSON.parse(err.body as string) as { reason: string; message: string };
    assert.equal(status.reason, 'NotFound');
    assert.equal(status.message, 'configmaps "js" not found');
    return true;
  });
});

void test('@kubernetes/client-node sees AlreadyExists as a 409 Status', async () => {
  const body: V1ConfigMap = { metadata: { name: 'twice' }, data: {} };
  await api.createNamespacedConfigMap({ namespace: ns, body });
  await assert.rejects(api.createNamespacedConfigMap({ namespace: ns, body }), (err: unknown) => {
    assert.ok(err instanceof ApiException, String(err));
    assert.equal(err.code, 409);
    const status = JSON.parse(err.body as string) as { reason: string; message: string };
    assert.equal(status.reason, 'AlreadyExists');
    assert.equal(status.message, 'configmaps "twice" already exists');
    return true;
  });
});
