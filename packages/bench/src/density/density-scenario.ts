/**
 * `kapi-bench density`: what clusterloader2's density test measures, on one server at a time.
 * A fresh cluster (control-plane.ts: etcd, the server, kwok nodes, the real
 * kube-controller-manager and kube-scheduler) gets Deployments of up to 100 replicas until
 * `pods` pods exist; a watch on their namespace records when each pod is first seen (ADDED)
 * and first seen Running. Reported: pod startup latency (first seen → Running seen) p50/p99,
 * the server's own apiserver_request_duration_seconds over the run (p99 per verb, resource
 * and scope, WATCH and CONNECT excluded), and the server's CPU seconds and RSS.
 */
import { join } from 'node:path';
import { authHeaders, poolFor } from '../target.js';
import { monitorProcess, type ProcessUsage } from '../process-stats.js';
import { quantile } from '../stats.js';
import { startDensityCluster, type DensityCluster } from './control-plane.js';
import { histogramQuantile, mergeHistograms, parseRequestHistograms, subtractHistograms, type RequestHistogram } from './request-histogram.js';
import type { DensityServerKind } from './kube-apiserver-command.js';

export interface DensityOptions {
  readonly nodes: number;
  readonly pods: number;
  /** Replicas per Deployment (the last one takes the rest). */
  readonly podsPerDeployment: number;
  /** How long to wait for every pod to run, ms. */
  readonly timeoutMs: number;
  readonly binDir: string;
  /** Run directories go under here (`<kind>/`); kept when `keep` or on failure. */
  readonly workDir: string;
  readonly keep: boolean;
}

/** p99 of one verb/resource/scope, with kube's SLO threshold for it. */
export interface ApiCallLatency {
  readonly verb: string;
  /** `resource[/subresource]` with the group when not core, e.g. `deployments.apps`, `pods/binding`. */
  readonly resource: string;
  readonly scope: string;
  readonly count: number;
  readonly p99Ms: number;
  readonly sloMs: number;
}

export interface DensityRun {
  readonly kind: DensityServerKind;
  readonly nodes: number;
  readonly pods: number;
  readonly deployments: number;
  /** Pods seen Running / pods expected. */
  readonly running: number;
  /** From the first Deployment create until the last pod is seen Running, ms. */
  readonly wallMs: number;
  readonly startupP50Ms: number;
  readonly startupP99Ms: number;
  readonly startupMaxMs: number;
  readonly apiCalls: readonly ApiCallLatency[];
  readonly server: ProcessUsage | undefined;
  /** Restarts of kube-controller-manager, kube-scheduler or kwok (each lost a lease or crashed). */
  readonly componentRestarts: number;
  /** Times the scenario's pod watch ended and was opened again. */
  readonly watchReopened: number;
  readonly error?: string;
}

const NAMESPACE = 'density';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * clusterloader2's API call latency SLO thresholds: every non-LIST call (mutating or
 * single-object) 1 s; LIST 5 s in a namespace, 30 s cluster-wide.
 */
export function sloMs(verb: string, scope: string): number {
  if (verb !== 'LIST') return 1000;
  return scope === 'cluster' ? 30_000 : 5000;
}

/** The p99 table: one row per verb, resource (with subresource) and scope; WATCH, WATCHLIST and CONNECT left out as in kube's SLO. */
export function apiCallLatencies(delta: readonly RequestHistogram[]): ApiCallLatency[] {
  const groups = new Map<string, RequestHistogram[]>();
  for (const h of delta) {
    if (h.verb === 'WATCH' || h.verb === 'WATCHLIST' || h.verb === 'CONNECT' || h.resource === '') continue;
    const key = [h.verb, h.group, h.resource, h.subresource, h.scope].join('|');
    groups.set(key, [...(groups.get(key) ?? []), h]);
  }
  const rows: ApiCallLatency[] = [];
  for (const series of groups.values()) {
    const h = mergeHistograms(series);
    const resource = `${h.resource}${h.group !== '' ? `.${h.group}` : ''}${h.subresource !== '' ? `/${h.subresource}` : ''}`;
    rows.push({ verb: h.verb, resource, scope: h.scope, count: h.count, p99Ms: histogramQuantile(0.99, h) * 1000, sloMs: sloMs(h.verb, h.scope) });
  }
  return rows.sort((a, b) => b.count - a.count);
}

interface PodEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string }; status?: { phase?: string }; code?: number };
}

/**
 * Watches the namespace's pods from `resourceVersion`, recording first-seen and first-Running
 * times by pod name. Like a reflector, a watch that ends (timeout, an ERROR event such as
 * kube-apiserver's "Too large resource version" while its cache catches up) is opened again
 * from the last resourceVersion seen; after a 410 Gone the pods are listed again (the pods
 * first seen in that list count from then).
 */
function watchPods(cluster: DensityCluster, resourceVersion: string, signal: AbortSignal): { firstSeen: Map<string, number>; running: Map<string, number>; reopened: () => number; done: Promise<void> } {
  const firstSeen = new Map<string, number>();
  const running = new Map<string, number>();
  const pool = poolFor(cluster.url, 1);
  let reopened = 0;
  const record = (pod: PodEvent['object'], now: number) => {
    const name = pod.metadata?.name;
    if (name === undefined) return;
    if (!firstSeen.has(name)) firstSeen.set(name, now);
    if (pod.status?.phase === 'Running' && !running.has(name)) running.set(name, now);
  };
  const once = async (from: string): Promise<{ rv: string; gone: boolean }> => {
    let rv = from;
    const res = await pool.request({
      method: 'GET',
      path: `/api/v1/namespaces/${NAMESPACE}/pods?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=600`,
      headers: { accept: 'application/json', ...authHeaders(cluster.url) },
      signal,
    });
    if (res.statusCode === 410) return { rv, gone: true };
    if (res.statusCode !== 200) throw new Error(`pod watch answered ${res.statusCode}: ${await res.body.text()}`);
    let pending = '';
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      const now = performance.now();
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.trim() === '') continue;
        const event = JSON.parse(line) as PodEvent;
        if (event.type === 'ERROR') return { rv, gone: event.object.code === 410 };
        rv = event.object.metadata?.resourceVersion ?? rv;
        if (event.type !== 'BOOKMARK') record(event.object, now);
      }
    }
    return { rv, gone: false };
  };
  const done = (async () => {
    let rv = resourceVersion;
    try {
      while (!signal.aborted) {
        const result = await once(rv);
        if (signal.aborted) break;
        reopened++;
        rv = result.rv;
        if (result.gone) {
          const list = await cluster.admin.json<{ metadata: { resourceVersion: string }; items: PodEvent['object'][] }>('GET', `/api/v1/namespaces/${NAMESPACE}/pods`, 200);
          const now = performance.now();
          for (const pod of list.items) record(pod, now);
          rv = list.metadata.resourceVersion;
        }
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      await pool.close().catch(() => undefined);
    }
  })();
  return { firstSeen, running, reopened: () => reopened, done };
}

function deployment(name: string, replicas: number): Record<string, unknown> {
  const labels = { app: name, density: 'true' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }],
          terminationGracePeriodSeconds: 0,
        },
      },
    },
  };
}

async function scrape(cluster: DensityCluster): Promise<Map<string, RequestHistogram>> {
  const { body } = await cluster.admin.getBody('/metrics', true);
  return parseRequestHistograms(body.toString('utf8'));
}

/** One density run against a fresh cluster of `kind`. Never throws for a run that did not converge: `error` says why. */
export async function runDensity(kind: DensityServerKind, o: DensityOptions, progress: (line: string) => void = () => undefined): Promise<DensityRun> {
  const dir = join(o.workDir, kind);
  const cluster = await startDensityCluster({ kind, nodes: o.nodes, dir, binDir: o.binDir });
  let failed = false;
  const abort = new AbortController();
  try {
    await waitForReadyNodes(cluster, o.nodes, 5 * 60_000);
    await cluster.admin.ensureNamespace(NAMESPACE);
    // KCM's ServiceAccount controller makes the namespace's default ServiceAccount; pods wait for it otherwise.
    await waitFor(() => cluster.admin.json('GET', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/default`, 200).then(() => true, () => false), 120_000, 'the default ServiceAccount');
    const list = await cluster.admin.json<{ metadata: { resourceVersion: string } }>('GET', `/api/v1/namespaces/${NAMESPACE}/pods`, 200);
    const watch = watchPods(cluster, list.metadata.resourceVersion, abort.signal);
    watch.done.catch((err: unknown) => progress(`pod watch failed: ${String(err)}`));
    const before = await scrape(cluster);
    const usage = monitorProcess(cluster.serverPid);
    const start = performance.now();
    const sizes: number[] = [];
    for (let left = o.pods; left > 0; left -= o.podsPerDeployment) sizes.push(Math.min(o.podsPerDeployment, left));
    for (const [i, replicas] of sizes.entries()) await cluster.admin.json('POST', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, 201, deployment(`density-${i}`, replicas));
    let error: string | undefined;
    let lastReport = 0;
    for (;;) {
      if (watch.running.size >= o.pods) break;
      if (performance.now() - start > o.timeoutMs) {
        error = `${watch.running.size}/${o.pods} pods Running after ${Math.round(o.timeoutMs / 1000)} s`;
        break;
      }
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        progress(`${kind}: ${watch.firstSeen.size} pods created, ${watch.running.size} Running after ${((performance.now() - start) / 1000).toFixed(0)} s`);
      }
      await sleep(250);
    }
    const wallMs = performance.now() - start;
    const server = usage.finish();
    const after = await scrape(cluster);
    const startups = [...watch.running].map(([name, at]) => at - (watch.firstSeen.get(name) ?? at)).sort((a, b) => a - b);
    const componentRestarts = cluster.components.reduce((n, c) => n + c.unexpectedExits.length, 0);
    if (error !== undefined) failed = true;
    return {
      kind,
      nodes: o.nodes,
      pods: o.pods,
      deployments: sizes.length,
      running: watch.running.size,
      wallMs,
      startupP50Ms: startups.length > 0 ? quantile(startups, 0.5) : NaN,
      startupP99Ms: startups.length > 0 ? quantile(startups, 0.99) : NaN,
      startupMaxMs: startups.at(-1) ?? NaN,
      apiCalls: apiCallLatencies(subtractHistograms(after, before)),
      server,
      componentRestarts,
      watchReopened: watch.reopened(),
      ...(error !== undefined ? { error } : {}),
    };
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    abort.abort();
    await cluster.admin.close().catch(() => undefined);
    await cluster.stop({ keep: o.keep || failed });
    if (o.keep || failed) progress(`${kind}: logs of every process kept in ${dir}`);
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(500);
  }
}

async function waitForReadyNodes(cluster: DensityCluster, count: number, timeoutMs: number): Promise<void> {
  type NodeList = { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
  await waitFor(async () => {
    const nodes = await cluster.admin.json<NodeList>('GET', '/api/v1/nodes', 200);
    return nodes.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length >= count;
  }, timeoutMs, `${count} Ready nodes`);
}
