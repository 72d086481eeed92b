import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { configMap, writeJsonFile, writeYamlFile } from './harness/fixtures.js';
import { decodeStoredObject } from '@kapi/storage';

const ns = 'e2e-rv';
let cluster: TestCluster;
let etcd: Etcd3;

before(async () => {
  cluster = await startCluster();
  etcd = new Etcd3({ hosts: cluster.etcd.endpoints });
  await cluster
    .kubectl()
    .ok(['create', '-f', writeYamlFile(cluster.dir, 'ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })]);
});
after(async () => {
  etcd?.close();
  await cluster?.stop();
});

/** The etcd mod_revision of `key`, or undefined when the key does not exist. */
async function modRevision(key: string): Promise<string | undefined> {
  const response = await etcd.get(key).exec();
  return response.kvs[0]?.mod_revision;
}

void test('the resourceVersion kubectl reads is the mod_revision of /registry/configmaps/<ns>/<name>', async () => {
  const kubectl = cluster.kubectl();
  await kubectl.ok(['create', '-f', writeJsonFile(cluster.dir, 'rv.json', configMap(ns, 'rv', { a: '1' }))]);
  const key = `/registry/configmaps/${ns}/rv`;

  const created = await kubectl.json<{ metadata: { resourceVersion: string } }>(['get', 'configmap', 'rv', '-n', ns]);
  assert.equal(created.metadata.resourceVersion, await modRevision(key));

  await kubectl.ok(['label', 'configmap', 'rv', 'changed=yes', '-n', ns]);
  const labelled = await kubectl.json<{ metadata: { resourceVersion: string } }>(['get', 'configmap', 'rv', '-n', ns]);
  assert.notEqual(labelled.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(labelled.metadata.resourceVersion, await modRevision(key));

  // The stored value carries no resourceVersion (it is the revision, not data).
  const stored = await etcd.get(key).buffer();
  assert.ok(stored !== null);
  const storedObject = decodeStoredObject(stored, key) as { metadata: Record<string, unknown> };
  assert.equal(storedObject.metadata.resourceVersion, undefined);
  assert.equal(storedObject.metadata.name, 'rv');

  await kubectl.ok(['delete', 'configmap', 'rv', '-n', ns]);
  assert.equal(await modRevision(key), undefined);
});

void test('a list resourceVersion (kubectl get --raw) is an etcd revision no older than its items', async () => {
  const kubectl = cluster.kubectl();
  await kubectl.ok(['create', '-f', writeJsonFile(cluster.dir, 'rv2.json', configMap(ns, 'rv2', { a: '2' }))]);
  const raw = await kubectl.ok(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps`]);
  const list = JSON.parse(raw) as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string } }[] };
  assert.equal(list.kind, 'ConfigMapList');
  const item = list.items.find((i) => i.metadata.name === 'rv2');
  assert.ok(item, raw);
  assert.equal(item.metadata.resourceVersion, await modRevision(`/registry/configmaps/${ns}/rv2`));
  const current = (await etcd.get('/registry/no-such-key').exec()).header.revision;
  assert.ok(BigInt(list.metadata.resourceVersion) >= BigInt(item.metadata.resourceVersion));
  assert.ok(BigInt(list.metadata.resourceVersion) <= BigInt(current));
});
