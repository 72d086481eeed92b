/** Loading many ConfigMaps quickly: one through the API, the rest as copies of its stored value in etcd. */
import { randomUUID } from 'node:crypto';
import type { BenchContext } from './context.js';
import { EtcdBaseline } from './etcd-client.js';
import { KapiClient, UnexpectedStatusError } from './kapi-client.js';
import { runClosedLoop } from './load.js';

/** `n` characters of ConfigMap data under one key (1 KiB, 10 KiB, 1 MiB objects). */
export function configMapData(bytes: number): Record<string, string> {
  return { payload: 'x'.repeat(bytes) };
}

export interface LoadOptions {
  /** The server's --etcd-prefix (default /registry). */
  etcdPrefix?: string;
  namespaces: readonly string[];
  /** ConfigMaps per namespace, named `<namePrefix><i>`. */
  perNamespace: number;
  namePrefix: string;
  data: Readonly<Record<string, string>>;
  /** Concurrent etcd transactions or API creates (default 16 for copies, 64 through the API). */
  concurrency?: number;
  /** Index of the first object to load: the ones before it exist already (default 0). */
  from?: number;
}

/**
 * Creates the namespaces and the first ConfigMap (index `from`) through the API at `url`, then
 * copies its stored JSON to every further (namespace, name) straight into etcd with a fresh
 * uid; the server's cache learns them from its etcd watch. The copies go in transactions of up
 * to 100 puts (fewer for large objects, keeping each request under 1 MB): objects of one batch
 * share a revision, which kapi's own writes never do, so load before any watcher starts.
 * Falls back to API creates when the stored value is not JSON or the etcd is unknown. Then
 * waits until a consistent list through the server sees etcd's revision (the cache has every
 * copy). Returns the seconds taken; throws on any failed write.
 */
export async function loadConfigMaps(ctx: BenchContext, url: string, etcd: string[] | undefined, options: LoadOptions): Promise<number> {
  const started = performance.now();
  const client = new KapiClient(url, 64);
  const prefix = options.etcdPrefix ?? '/registry';
  const total = options.namespaces.length * options.perNamespace;
  const from = options.from ?? 0;
  const at = (i: number) => ({ namespace: options.namespaces[i % options.namespaces.length]!, name: `${options.namePrefix}${Math.floor(i / options.namespaces.length)}` });
  if (from >= total) return 0;
  try {
    for (const ns of options.namespaces) await client.ensureNamespace(ns);
    const createThroughApi = async (i: number): Promise<void> => {
      const { namespace, name } = at(i);
      try {
        await client.createConfigMap(namespace, name, options.data);
      } catch (err) {
        if (!(err instanceof UnexpectedStatusError && err.status === 409)) throw err;
      }
    };
    await createThroughApi(from);
    let stored: string | null = null;
    const baseline = etcd !== undefined ? new EtcdBaseline(etcd) : undefined;
    let copies = false;
    try {
      if (baseline !== undefined) {
        const first = at(from);
        stored = await baseline.getString(`${prefix}/configmaps/${first.namespace}/${first.name}`);
      }
      let template: { metadata: { name: string; namespace: string; uid?: string } } | undefined;
      try {
        template = stored !== null ? (JSON.parse(stored) as typeof template) : undefined;
      } catch {
        template = undefined;
      }
      let result;
      if (template === undefined || baseline === undefined) {
        result = await runClosedLoop(createThroughApi, { concurrency: options.concurrency ?? 64, durationMs: 60 * 60_000, firstSeq: from + 1, maxOps: total - from - 1 });
      } else {
        copies = true;
        const t = template;
        const batch = Math.max(1, Math.min(100, Math.floor(1_000_000 / Buffer.byteLength(stored!))));
        const first = from + 1;
        result = await runClosedLoop(
          async (b) => {
            const entries: [string, string][] = [];
            for (let i = first + b * batch; i < Math.min(total, first + (b + 1) * batch); i++) {
              const { namespace, name } = at(i);
              t.metadata.name = name;
              t.metadata.namespace = namespace;
              t.metadata.uid = randomUUID();
              entries.push([`${prefix}/configmaps/${namespace}/${name}`, JSON.stringify(t)]);
            }
            await baseline.putMany(entries);
          },
          { concurrency: options.concurrency ?? 16, durationMs: 60 * 60_000, firstSeq: 0, maxOps: Math.ceil((total - first) / batch) },
        );
      }
      if (result.errors > 0) throw new Error(`loading ConfigMaps: ${result.errors} errors, e.g. ${result.errorSamples.join(' | ')}`);
    } finally {
      baseline?.close();
    }
    // A consistent list waits until the server's cache has caught up with etcd (a selector matching nothing keeps it small).
    await client.json('GET', '/api/v1/configmaps?labelSelector=kapi-bench-none%3Dnone', 200);
    const seconds = (performance.now() - started) / 1000;
    ctx.log(`loaded ${total - from} ConfigMaps in ${options.namespaces.length} namespaces (${copies ? 'copies in etcd' : 'through the API'}) in ${seconds.toFixed(1)} s (${((total - from) / seconds).toFixed(0)}/s)`);
    return seconds;
  } finally {
    await client.close();
  }
}

/** Waits until `GET path` (a list) at `url` reports at least `count` items; polls every 200 ms up to `timeoutMs`. */
export async function waitForItems(url: string, path: string, count: number, timeoutMs = 120_000): Promise<number> {
  const client = new KapiClient(url, 1);
  const deadline = performance.now() + timeoutMs;
  let seen = 0;
  try {
    for (;;) {
      try {
        const list = await client.json<{ items?: unknown[] }>('GET', path, 200);
        seen = list.items?.length ?? 0;
        if (seen >= count) return seen;
      } catch {
        // not ready yet
      }
      if (performance.now() > deadline) throw new Error(`${path}: ${seen} items after ${timeoutMs} ms, want ${count}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await client.close();
  }
}
