/** kubectl's watch paths: `get -w` (Table events), `get --watch-only -o name`, and `get --raw` of a watch URL. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, type TestCluster } from './harness/cluster.js';
import { Kubectl, startKubectl, type KubectlOptions } from './harness/kubectl.js';
import { ensureNamespace, RestClient } from './harness/rest.js';

const ns = 'e2e-kubectl-watch';
let cluster: TestCluster;
let client: RestClient;
let kubectlOptions: KubectlOptions;

before(async () => {
  cluster = await startCluster();
  client = new RestClient(cluster.servers[0]!.url);
  await ensureNamespace(client, ns);
  kubectlOptions = { kubeconfig: cluster.kubeconfig(), cacheDir: join(cluster.dir, 'kube-cache-watch'), timeoutMs: 30_000 };
});
after(async () => {
  client?.close();
  await cluster?.stop();
});

const createConfigMap = (name: string) =>
  client.expect(201, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

void test('kubectl get configmaps -w lists, then prints rows for objects created and changed later', async () => {
  await createConfigMap('before-watch');
  const watch = startKubectl(kubectlOptions, ['get', 'configmaps', '-n', ns, '-w']);
  try {
    // Columns are not asserted (kube prints NAME DATA AGE for ConfigMaps): only rows by name.
    await watch.waitForOutput(/^before-watch\s/m);
    await createConfigMap('during-watch');
    await watch.waitForOutput(/^during-watch\s/m);
    await client.expect(200, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/during-watch`, { data: { k: 'v', k2: 'v2' } }, 'application/merge-patch+json');
    await watch.waitForOutput(/^during-watch\s[^]*^during-watch\s/m);
    // The header is printed once and the listed object is not repeated by the watch.
    assert.equal(watch.stdout().match(/^NAME\s/gm)?.length, 1, watch.stdout());
    assert.equal(watch.stdout().match(/^before-watch\s/gm)?.length, 1, watch.stdout());
  } finally {
    const result = await watch.stop();
    assert.doesNotMatch(result.stderr, /error/i, result.stderr);
  }
});

void test('kubectl get configmaps --watch-only -o name prints only what happens after it started', async () => {
  await createConfigMap('old-one');
  const watch = startKubectl(kubectlOptions, ['get', 'configmaps', '-n', ns, '--watch-only', '-o', 'name', '-v=6']);
  try {
    // kubectl lists first (for the resourceVersion its watch starts from): create after that list.
    await watch.waitForStderr(new RegExp(`GET https://\\S+/api/v1/namespaces/${ns}/configmaps\\?limit=500 200 OK`));
    await createConfigMap('new-one');
    await watch.waitForOutput(/^configmap\/new-one$/m);
    assert.doesNotMatch(watch.stdout(), /old-one/);
  } finally {
    await watch.stop();
  }
});

void test("kubectl get --raw '/api/v1/configmaps?watch=1&timeoutSeconds=1' streams ADDED events and ends when the timeout passes", async () => {
  await createConfigMap('raw-watched');
  const kubectl = new Kubectl(kubectlOptions);
  const result = await kubectl.run(['get', '--raw', '/api/v1/configmaps?watch=1&timeoutSeconds=1']);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n').filter((l) => l !== '');
  assert.ok(lines.length > 0, 'no events');
  const events = lines.map((l) => JSON.parse(l) as { type: string; object: { kind: string; metadata: { name: string; namespace: string; resourceVersion: string } } });
  for (const e of events) {
    assert.equal(e.type, 'ADDED', JSON.stringify(e));
    assert.equal(e.object.kind, 'ConfigMap');
    assert.match(e.object.metadata.resourceVersion, /^[1-9][0-9]*$/);
  }
  assert.ok(events.some((e) => e.object.metadata.name === 'raw-watched' && e.object.metadata.namespace === ns), result.stdout.slice(0, 2000));
});
