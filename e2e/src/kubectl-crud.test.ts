import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { configMap, writeJsonFile, writeYamlFile } from './harness/fixtures.js';
import type { Kubectl } from './harness/kubectl.js';

interface Meta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  labels?: Record<string, string>;
}
interface Obj {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  data?: Record<string, string>;
  type?: string;
}

const ns = 'e2e-crud';
let cluster: TestCluster;
let kubectl: Kubectl;

before(async () => {
  cluster = await startCluster();
  kubectl = cluster.kubectl();
  const nsFile = writeYamlFile(cluster.dir, 'namespace.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  assert.equal(await kubectl.ok(['create', '-f', nsFile]), `namespace/${ns} created\n`);
});
after(async () => {
  await cluster?.stop();
});

void test('the namespace created from YAML reads back as Active', async () => {
  const got = await kubectl.json<Obj & { status: { phase: string } }>(['get', 'namespace', ns]);
  assert.equal(got.kind, 'Namespace');
  assert.equal(got.apiVersion, 'v1');
  assert.equal(got.metadata.name, ns);
  assert.equal(got.status.phase, 'Active');
  const names = (await kubectl.ok(['get', 'ns', '-o', 'name'])).trim().split('\n');
  assert.ok(names.includes(`namespace/${ns}`), names.join(','));
});

void test('create -f with a JSON ConfigMap, then get -o json and -o yaml read back the same object', async () => {
  const file = writeJsonFile(cluster.dir, 'cm-json.json', configMap(ns, 'from-json', { 'app.properties': 'a=1\nb=2\n', key: 'value' }));
  assert.equal(await kubectl.ok(['create', '-f', file]), 'configmap/from-json created\n');

  const json = await kubectl.json<Obj>(['get', 'configmap', 'from-json', '-n', ns]);
  assert.equal(json.apiVersion, 'v1');
  assert.equal(json.kind, 'ConfigMap');
  assert.equal(json.metadata.name, 'from-json');
  assert.equal(json.metadata.namespace, ns);
  assert.match(json.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(json.metadata.resourceVersion, /^[1-9][0-9]*$/);
  assert.match(json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(json.data, { 'app.properties': 'a=1\nb=2\n', key: 'value' });

  const yaml = await kubectl.yaml<Obj>(['get', 'cm', 'from-json', '-n', ns]);
  assert.deepEqual(yaml, json);
});

void test('create -f with a YAML ConfigMap and a YAML Secret', async () => {
  const cmFile = writeYamlFile(cluster.dir, 'cm.yaml', configMap(ns, 'from-yaml', { greeting: 'hello' }));
  assert.equal(await kubectl.ok(['create', '-f', cmFile]), 'configmap/from-yaml created\n');
  const secretFile = writeYamlFile(cluster.dir, 'secret.yaml', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds', namespace: ns },
    data: { password: Buffer.from('s3cr3t').toString('base64') },
  });
  assert.equal(await kubectl.ok(['create', '-f', secretFile]), 'secret/creds created\n');

  const cm = await kubectl.yaml<Obj>(['get', 'configmap', 'from-yaml', '-n', ns]);
  assert.deepEqual(cm.data, { greeting: 'hello' });
  const secret = await kubectl.yaml<Obj>(['get', 'secret', 'creds', '-n', ns]);
  assert.equal(secret.kind, 'Secret');
  assert.equal(secret.type, 'Opaque');
  assert.equal(Buffer.from(secret.data!.password!, 'base64').toString(), 's3cr3t');
});

void test('kubectl label adds a label and get --selector filters on it', async () => {
  for (const name of ['sel-a', 'sel-b', 'sel-c']) {
    await kubectl.ok(['create', '-f', writeJsonFile(cluster.dir, `${name}.json`, configMap(ns, name, { n: name }))]);
  }
  const before = await kubectl.json<Obj>(['get', 'configmap', 'sel-a', '-n', ns]);
  assert.equal(await kubectl.ok(['label', 'configmap', 'sel-a', 'tier=backend', '-n', ns]), 'configmap/sel-a labeled\n');
  assert.equal(await kubectl.ok(['label', 'configmap', 'sel-b', 'tier=frontend', '-n', ns]), 'configmap/sel-b labeled\n');

  const labelled = await kubectl.json<Obj>(['get', 'configmap', 'sel-a', '-n', ns]);
  assert.deepEqual(labelled.metadata.labels, { tier: 'backend' });
  assert.deepEqual(labelled.data, { n: 'sel-a' });
  assert.equal(labelled.metadata.uid, before.metadata.uid);
  assert.ok(BigInt(labelled.metadata.resourceVersion) > BigInt(before.metadata.resourceVersion));

  const byName = (args: string[]) => kubectl.ok(['get', 'configmaps', '-n', ns, '-o', 'name', ...args]);
  assert.equal(await byName(['--selector', 'tier=backend']), 'configmap/sel-a\n');
  assert.equal(await byName(['-l', 'tier in (backend,frontend)']), 'configmap/sel-a\nconfigmap/sel-b\n');
  assert.equal(await byName(['-l', 'tier']), 'configmap/sel-a\nconfigmap/sel-b\n');
  const withoutTier = (await byName(['-l', '!tier'])).trim().split('\n');
  assert.ok(withoutTier.includes('configmap/sel-c'), withoutTier.join(','));
  assert.ok(!withoutTier.includes('configmap/sel-a'), withoutTier.join(','));
  const none = await kubectl.run(['get', 'configmaps', '-n', ns, '-l', 'tier=nothing']);
  assert.equal(none.code, 0);
  assert.equal(none.stdout, '');
  assert.equal(none.stderr, `No resources found in ${ns} namespace.\n`);
});

void test('kubectl delete removes the object; a second delete is NotFound', async () => {
  await kubectl.ok(['create', '-f', writeJsonFile(cluster.dir, 'doomed.json', configMap(ns, 'doomed', { a: 'b' }))]);
  assert.equal(await kubectl.ok(['delete', 'configmap', 'doomed', '-n', ns]), 'configmap "doomed" deleted\n');
  const get = await kubectl.run(['get', 'configmap', 'doomed', '-n', ns]);
  assert.equal(get.code, 1);
  assert.equal(get.stderr, 'Error from server (NotFound): configmaps "doomed" not found\n');
  const again = await kubectl.run(['delete', 'configmap', 'doomed', '-n', ns]);
  assert.equal(again.code, 1);
  assert.equal(again.stderr, 'Error from server (NotFound): configmaps "doomed" not found\n');
});

void test('error paths: get of a missing object and create of an existing one', async () => {
  const missing = await kubectl.run(['get', 'configmap', 'x', '-n', ns]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, '');
  assert.equal(missing.stderr, 'Error from server (NotFound): configmaps "x" not found\n');

  const file = writeJsonFile(cluster.dir, 'dup.json', configMap(ns, 'dup', { a: '1' }));
  await kubectl.ok(['create', '-f', file]);
  const dup = await kubectl.run(['create', '-f', file]);
  assert.equal(dup.code, 1);
  assert.equal(dup.stderr, `Error from server (AlreadyExists): error when creating "${file}": configmaps "dup" already exists\n`);

  const missingNs = await kubectl.run(['get', 'namespace', 'no-such-namespace']);
  assert.equal(missingNs.code, 1);
  assert.equal(missingNs.stderr, 'Error from server (NotFound): namespaces "no-such-namespace" not found\n');
});
