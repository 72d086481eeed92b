/**
 * Two kapi-apiserver replicas on one etcd: every replica runs the CRD controller, so a CRD
 * created through replica A is served by replica B within one second, and custom resources
 * written through B are seen by a watch through A (each replica caches the new resource).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { RestClient, type KubeList } from '../harness/rest.js';
import { openWatch, type WatchEvent } from '../harness/watch-stream.js';
import { parse as parseYaml } from 'yaml';
import { WIDGET_CRD_YAML } from './crd-manifests.js';

let cluster: TestCluster;
let a: RestClient;
let b: RestClient;

before(async () => {
  cluster = await startCluster({ replicas: 2 });
  a = new RestClient(cluster.servers[0]!.url);
  b = new RestClient(cluster.servers[1]!.url);
});
after(async () => {
  a?.close();
  b?.close();
  await cluster?.stop();
});

const WIDGETS = '/apis/e2e.example.com/v1/namespaces/default/widgets';

void test('a CRD created through A is served by B within a second; CRs written through B are watched through A', async () => {
  const crd = parseYaml(WIDGET_CRD_YAML) as Record<string, unknown>;
  const created = Date.now();
  await a.expect(201, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  let servedAfter = -1;
  while (Date.now() - created < 10_000) {
    if ((await b.request('GET', WIDGETS)).status === 200) {
      servedAfter = Date.now() - created;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  process.stderr.write(`# replica B served the new CRD ${servedAfter} ms after the create through A\n`);
  assert.ok(servedAfter >= 0 && servedAfter < 1000, `served by B after ${servedAfter} ms`);
  const discovery = await b.expect<{ resources: { name: string }[] }>(200, 'GET', '/apis/e2e.example.com/v1');
  assert.ok(discovery.resources.some((r) => r.name === 'widgets'));

  // A watch through A from A's list; writes through B.
  let list: KubeList | undefined;
  for (let i = 0; i < 200 && list === undefined; i++) {
    const res = await a.request<KubeList>('GET', WIDGETS);
    if (res.status === 200) list = res.body;
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(list !== undefined, 'A serves the CRD');
  const events: WatchEvent[] = [];
  const watch = openWatch(cluster.servers[0]!.url, `${WIDGETS}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (e) => events.push(e));
  try {
    const names = Array.from({ length: 20 }, (_, i) => `from-b-${i}`);
    for (const name of names) {
      await b.expect(201, 'POST', WIDGETS, { apiVersion: 'e2e.example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } });
    }
    await b.expect(200, 'PATCH', `${WIDGETS}/from-b-0`, { spec: { size: 2 } }, 'application/merge-patch+json');
    await b.expect(200, 'DELETE', `${WIDGETS}/from-b-1`);
    const deadline = Date.now() + 10_000;
    while (events.filter((e) => e.type !== 'BOOKMARK').length < names.length + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const seen = events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`);
    assert.deepEqual(seen, [...names.map((n) => `ADDED ${n}`), 'MODIFIED from-b-0', 'DELETED from-b-1']);
  } finally {
    watch.kill();
  }
});
