import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { configMap, writeJsonFile, writeYamlFile } from './harness/fixtures.js';

interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string };
  data?: Record<string, string>;
}
interface ObjList {
  items: Obj[];
}

const ns = 'e2e-replicas';
let cluster: TestCluster;

before(async () => {
  cluster = await startCluster({ replicas: 2 });
  const nsFile = writeYamlFile(cluster.dir, 'ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await cluster.kubectl(0).ok(['create', '-f', nsFile]);
});
after(async () => {
  await cluster?.stop();
});

/** name → "uid@resourceVersion" of every ConfigMap in the namespace, as replica `i` sees it. */
async function snapshot(i: number): Promise<Map<string, string>> {
  const list = await cluster.kubectl(i).json<ObjList>(['get', 'configmaps', '-n', ns]);
  return new Map(list.items.map((o) => [o.metadata.name, `${o.metadata.uid}@${o.metadata.resourceVersion}`]));
}

void test('two replicas on one etcd serve the same data: create through one, read through the other', async () => {
  const [a, b] = [cluster.kubectl(0), cluster.kubectl(1)];
  await a.ok(['create', '-f', writeJsonFile(cluster.dir, 'via-a.json', configMap(ns, 'via-a', { from: 'a' }))]);
  const fromB = await b.json<Obj>(['get', 'configmap', 'via-a', '-n', ns]);
  const fromA = await a.json<Obj>(['get', 'configmap', 'via-a', '-n', ns]);
  assert.deepEqual(fromB, fromA);
  assert.deepEqual(fromB.data, { from: 'a' });

  await b.ok(['create', '-f', writeJsonFile(cluster.dir, 'via-b.json', configMap(ns, 'via-b', { from: 'b' }))]);
  assert.deepEqual((await a.json<Obj>(['get', 'configmap', 'via-b', '-n', ns])).data, { from: 'b' });

  // A write through one replica is visible to the other's very next consistent read.
  await a.ok(['label', 'configmap', 'via-b', 'seen=by-a', '-n', ns]);
  const labelled = await b.json<Obj & { metadata: { labels?: Record<string, string> } }>(['get', 'configmap', 'via-b', '-n', ns]);
  assert.deepEqual(labelled.metadata.labels, { seen: 'by-a' });

  assert.deepEqual(await snapshot(1), await snapshot(0));

  // Both replicas refuse the same duplicate.
  const dup = await b.run(['create', '-f', `${cluster.dir}/via-a.json`]);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /Error from server \(AlreadyExists\): .*configmaps "via-a" already exists/);
});

void test('SIGKILL of one replica loses nothing; the other keeps serving; the restarted one has every object', async () => {
  const [a, b] = [cluster.kubectl(0), cluster.kubectl(1)];
  for (let i = 0; i < 5; i++) {
    await a.ok(['create', '-f', writeJsonFile(cluster.dir, `k${i}.json`, configMap(ns, `k${i}`, { i: String(i) }))]);
  }
  const before = await snapshot(0);
  assert.ok(before.size >= 5);

  await cluster.servers[0]!.kill('SIGKILL');
  assert.equal(cluster.servers[0]!.running(), false);
  assert.deepEqual(await snapshot(1), before);
  await b.ok(['create', '-f', writeJsonFile(cluster.dir, 'while-a-down.json', configMap(ns, 'while-a-down', { x: 'y' }))]);

  await cluster.servers[0]!.restart();
  const after = await snapshot(0);
  for (const [name, version] of before) assert.equal(after.get(name), version, name);
  assert.ok(after.has('while-a-down'));
  assert.deepEqual(await snapshot(1), after);
});
