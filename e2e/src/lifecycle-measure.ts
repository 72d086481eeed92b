/**
 * Lifecycle figures against one kapi-apiserver process (not a test: it prints numbers).
 * Run after a build: `node e2e/dist/lifecycle-measure.js`.
 *
 * 1. Emptying a namespace of 2,000 mixed objects (DELETE namespace → GET answers 404) vs
 *    deleting the same kind of 2,000 objects one request at a time.
 * 2. Garbage collector latency: owner DELETE answered → the dependent's DELETED event, over
 *    200 owners deleted one after another (p50/p99).
 */
import { startCluster } from './harness/cluster.js';
import { RestClient, ensureNamespace, forEachConcurrently, type KubeList, type KubeObject } from './harness/rest.js';
import { openWatch } from './harness/watch-stream.js';

const RESOURCES = ['configmaps', 'secrets', 'serviceaccounts'];
const COUNT = 2000;

async function fill(rest: RestClient, ns: string): Promise<void> {
  await ensureNamespace(rest, ns);
  await forEachConcurrently(COUNT, 16, async (i) => {
    const res = await rest.request('POST', `/api/v1/namespaces/${ns}/${RESOURCES[i % 3]}`, { metadata: { name: `o-${i}` } });
    if (res.status !== 201) throw new Error(res.text);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const cluster = await startCluster();
  try {
    const url = cluster.servers[0]!.url;
    const rest = new RestClient(url);

    await fill(rest, 'measure-ns');
    let started = Date.now();
    await rest.request('DELETE', '/api/v1/namespaces/measure-ns');
    while ((await rest.request('GET', '/api/v1/namespaces/measure-ns')).status !== 404) await new Promise((resolve) => setTimeout(resolve, 20));
    const namespaceMs = Date.now() - started;

    await fill(rest, 'measure-one');
    started = Date.now();
    for (let i = 0; i < COUNT; i++) {
      const res = await rest.request('DELETE', `/api/v1/namespaces/measure-one/${RESOURCES[i % 3]}/o-${i}`);
      if (res.status !== 200) throw new Error(res.text);
    }
    const oneByOneMs = Date.now() - started;

    await fill(rest, 'measure-16');
    started = Date.now();
    await forEachConcurrently(COUNT, 16, async (i) => {
      const res = await rest.request('DELETE', `/api/v1/namespaces/measure-16/${RESOURCES[i % 3]}/o-${i}`);
      if (res.status !== 200) throw new Error(res.text);
    });
    const sixteenMs = Date.now() - started;

    const OWNERS = 200;
    await ensureNamespace(rest, 'measure-gc');
    const owners: KubeObject[] = [];
    for (let i = 0; i < OWNERS; i++) {
      const owner = await rest.request<KubeObject>('POST', '/api/v1/namespaces/measure-gc/configmaps', { metadata: { name: `owner-${i}` } });
      owners.push(owner.body);
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: owner.body.metadata.name, uid: owner.body.metadata.uid };
      await rest.request('POST', '/api/v1/namespaces/measure-gc/configmaps', { metadata: { name: `dep-${i}`, ownerReferences: [ref] } });
    }
    const listed = await rest.request<KubeList>('GET', '/api/v1/namespaces/measure-gc/configmaps');
    const goneAt = new Map<string, number>();
    const watch = openWatch(url, `/api/v1/namespaces/measure-gc/configmaps?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`, (event) => {
      if (event.type === 'DELETED' && event.object.metadata.name.startsWith('dep-')) goneAt.set(event.object.metadata.name, Date.now());
    });
    const deletedAt: number[] = [];
    for (let i = 0; i < OWNERS; i++) {
      await rest.request('DELETE', `/api/v1/namespaces/measure-gc/configmaps/owner-${i}`);
      deletedAt.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    while (goneAt.size < OWNERS) await new Promise((resolve) => setTimeout(resolve, 20));
    watch.kill();
    const latencies = deletedAt.map((at, i) => goneAt.get(`dep-${i}`)! - at).sort((a, b) => a - b);

    process.stdout.write(
      [
        `empty a namespace of ${COUNT} mixed objects (DELETE namespace → 404): ${namespaceMs} ms`,
        `delete ${COUNT} objects one request at a time: ${oneByOneMs} ms`,
        `delete ${COUNT} objects, 16 requests at a time: ${sixteenMs} ms`,
        `GC latency owner DELETE → dependent DELETED over ${OWNERS} owners: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
      ].join('\n') + '\n',
    );
  } finally {
    await cluster.stop();
  }
}

await main();
