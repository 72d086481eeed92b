/**
 * S10 pods: what kubelets (and KWOK nodes) ask of a server. N nodes each watch the pods bound
 * to them (`fieldSelector=spec.nodeName=<node>`, cluster-wide, as a kubelet does); then:
 * - pod creates/s: a closed loop of creates of minimal pods spread over the first
 *   {@link busyNodes} nodes (with the node watches open, so every create is also one delivery);
 * - watch by node: PATCHes at a fixed rate, each to the pod of one node, delivered to exactly
 *   one of the N watchers (latency from the write's acknowledgement, as S4);
 * - LIST with a spec.nodeName selector from the cache (resourceVersion=0) of those busy nodes
 *   (each holds about a kubelet's share of the created pods), closed loop.
 * The pods are deleted afterwards (grace period 0).
 */
import { measureClosedLoop, failedRun, type BenchContext, type MeasuredRun } from './context.js';
import { makeRecorder, measureRate, type FanoutStep } from './fanout-scenario.js';
import { KapiClient, UnexpectedStatusError } from './kapi-client.js';
import { authHeaders, poolFor } from './target.js';
import { WatcherPool } from './watcher-pool.js';

export const podsNamespace = 'kapi-bench-pods';

export interface PodsScenarioOptions {
  /** Nodes, one watch each. */
  nodes: number;
  /** Writes per second of the watch step. */
  rate: number;
  durationMs: number;
  /** Concurrent clients of the create and list steps. */
  concurrency: number;
}

export interface PodsScenarioResult {
  nodes: number;
  podsCreated: number;
  creates: MeasuredRun;
  /** Server CPU ms per create (with the node watches open). */
  createCpuMs: number | undefined;
  watch: FanoutStep | undefined;
  /**
   * Watchers the cache offered each written event to in the watch step (kube's
   * apiserver_watch_cache_events_dispatched_total for pods over the writes): 1 when the cache
   * finds a node's watcher by its spec.nodeName, N when it tests every watcher.
   */
  offersPerWrite: number | undefined;
  lists: MeasuredRun;
  /** Items per list (the pods of one node). */
  itemsPerList: number;
  listCpuMs: number | undefined;
  errors: string[];
}

const nodeName = (i: number) => `kapi-bench-node-${i}`;

/** The nodes the created pods go to (and the LIST step reads). */
export const busyNodes = 10;

/** A minimal valid pod bound to `node`. */
function pod(name: string, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: podsNamespace, labels: { app: 'kapi-bench' } },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

const cpuMsPerOp = (run: MeasuredRun): number | undefined => {
  const cpu = run.usage['server']?.cpuSeconds;
  return cpu === undefined || run.ops === 0 ? undefined : (cpu * 1000) / run.ops;
};

/** The server's count of pod events offered to watchers, if its /metrics can be read. */
async function dispatchedPodEvents(client: KapiClient): Promise<number | undefined> {
  try {
    const { body } = await client.getBody('/metrics', true);
    const line = body.toString('utf8').split('\n').find((l) => l.startsWith('apiserver_watch_cache_events_dispatched_total{') && l.includes('resource="pods"'));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  } catch {
    return undefined;
  }
}

export async function runPodsScenario(ctx: BenchContext, options: PodsScenarioOptions): Promise<PodsScenarioResult> {
  const errors: string[] = [];
  const client = new KapiClient(ctx.url, options.concurrency);
  const writePool = poolFor(ctx.url, 64);
  const auth = authHeaders(ctx.url);
  const base = `/api/v1/namespaces/${podsNamespace}/pods`;
  const recorder = makeRecorder();
  const watchers: WatcherPool[] = [];
  let creates: MeasuredRun = failedRun(options.concurrency, 'not run');
  let lists: MeasuredRun = failedRun(options.concurrency, 'not run');
  let watch: FanoutStep | undefined;
  let podsCreated = 0;
  let itemsPerList = 0;
  let offersPerWrite: number | undefined;
  try {
    await client.ensureNamespace(podsNamespace);
    // kube's ServiceAccount admission refuses pods whose service account does not exist; without a
    // controller manager nothing creates "default", so the scenario does (for every server alike).
    await client.json('POST', `/api/v1/namespaces/${podsNamespace}/serviceaccounts`, 201, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: podsNamespace } }).catch((err: unknown) => {
      if (!(err instanceof UnexpectedStatusError && err.status === 409)) throw err;
    });
    // One pod per node to PATCH in the watch step (created before the watches open).
    for (let i = 0; i < options.nodes; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, options.nodes - i) }, (_, k) => client.json('POST', base, 201, pod(`watched-${i + k}`, nodeName(i + k)))),
      );
    }
    podsCreated += options.nodes;
    const { metadata } = await client.json<{ metadata: { resourceVersion: string } }>('GET', `${base}?limit=1`, 200);
    for (let i = 0; i < options.nodes; i++) {
      const w = new WatcherPool(`${ctx.url}/api/v1/pods?watch=1&resourceVersion=${metadata.resourceVersion}&fieldSelector=spec.nodeName%3D${nodeName(i)}`, (rv, t) => {
        recorder.rvs.add(rv);
        recorder.times.add(t);
      });
      watchers.push(w);
      await w.open(1);
    }
    ctx.log(`pods: ${options.nodes} node watches open`);
    const terminated = { get terminated() { return watchers.reduce((n, w) => n + w.terminated, 0); } };

    creates = await measureClosedLoop(
      async (seq) => {
        await client.json('POST', base, 201, pod(`p-${seq}`, nodeName(seq % Math.min(busyNodes, options.nodes))));
      },
      { concurrency: options.concurrency, durationMs: options.durationMs, warmupMs: ctx.warmupMs, pids: { server: ctx.kapiPid } },
    );
    podsCreated += creates.nextSeq;
    ctx.log(`pods: creates ${creates.opsPerSecond.toFixed(0)}/s with ${options.nodes} node watches, server cpu ${cpuMsPerOp(creates)?.toFixed(2) ?? '?'} ms/create`);

    const writer = async (seq: number): Promise<number> => {
      const res = await writePool.request({
        method: 'PATCH',
        path: `${base}/watched-${seq % options.nodes}`,
        headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', ...auth },
        body: JSON.stringify({ metadata: { annotations: { seq: String(seq) } } }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`PATCH: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      return Number((JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    };
    const variant = { variant: 'field-selector' as const, watchersPerEvent: 1, objects: options.nodes };
    const dispatchedBefore = await dispatchedPodEvents(client);
    await measureRate(ctx, 'kapi', terminated, options.nodes, recorder, writer, options.rate, Math.min(ctx.warmupMs, 3000), ctx.kapiPid, 1_000_000, { ...variant, quiet: true });
    watch = await measureRate(ctx, 'kapi', terminated, options.nodes, recorder, writer, options.rate, options.durationMs, ctx.kapiPid, 2_000_000, variant);
    const dispatchedAfter = await dispatchedPodEvents(client);
    if (dispatchedBefore !== undefined && dispatchedAfter !== undefined && watch.writes > 0) offersPerWrite = (dispatchedAfter - dispatchedBefore) / watch.writes;
    ctx.log(`pods: the cache offered each write to ${offersPerWrite?.toFixed(1) ?? '?'} watchers`);

    let node = 0;
    lists = await measureClosedLoop(
      async () => {
        const page = await client.json<{ items: unknown[] }>('GET', `/api/v1/pods?resourceVersion=0&fieldSelector=spec.nodeName%3D${nodeName(node++ % Math.min(busyNodes, options.nodes))}`, 200);
        itemsPerList = page.items.length;
      },
      { concurrency: options.concurrency, durationMs: options.durationMs, warmupMs: ctx.warmupMs, pids: { server: ctx.kapiPid } },
    );
    ctx.log(`pods: LIST by spec.nodeName ${lists.opsPerSecond.toFixed(0)}/s (${itemsPerList} items), server cpu ${cpuMsPerOp(lists)?.toFixed(2) ?? '?'} ms/list`);
  } catch (err) {
    errors.push(`pods: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    for (const w of watchers) w.close();
    try {
      await client.json('DELETE', `${base}?gracePeriodSeconds=0`, 200, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
    } catch (err) {
      errors.push(`pods: cleanup: ${err instanceof Error ? err.message : String(err)}`);
    }
    await client.close();
    await writePool.close();
  }
  return { nodes: options.nodes, podsCreated, creates, createCpuMs: cpuMsPerOp(creates), watch, offersPerWrite, lists, itemsPerList, listCpuMs: cpuMsPerOp(lists), errors };
}
