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
  /** Concurrent etcd puts (default 256: etcd commits concurrent proposals with one fsync; fewer for large objects). */
  concurrency?: number;
}

/**
 * Creates the namespaces and the first ConfigMap through the API at `url`, then copies the
 * first ConfigMap's stored JSON to every other (namespace, name) straight into etcd with a
 * fresh uid (one revision each, as kapi's own writes; the server's cache learns them from its
 * etcd watch). Falls back to API creates when the stored value is not JSON or the etcd is
 * unknown. Returns the seconds taken; throws on any failed write.
 */
export async function loadConfigMaps(ctx: BenchContext, url: string, etcd: string[] | undefined, options: LoadOptions): Promise<number> {
  const started = performance.now();
  const client = new KapiClient(url, 16);
  const prefix = options.etcdPrefix ?? '/registry';
  const total = options.namespaces.length * options.perNamespace;
  const at = (i: number) => ({ namespace: options.namespaces[i % options.namespaces.length]!, name: `${options.namePrefix}${Math.floor(i / options.namespaces.length)}` });
  try {
    for (const ns of options.namespaces) await client.ensureNamespace(ns);
    const first = at(0);
    try {
      await client.createConfigMap(first.namespace, first.name, options.data);
    } catch (err) {
      if (!(err instanceof UnexpectedStatusError && err.status === 409)) throw err;
    }
    let template: { metadata: { name: string; namespace: string; uid?: string } } | undefined;
    const baseline = etcd !== undefined ? new EtcdBaseline(etcd) : undefined;
    try {
      if (baseline !== undefined) {
        try {
          template = JSON.parse((await baseline.getString(`${prefix}/configmaps/${first.namespace}/${first.name}`)) ?? '') as typeof template;
        } catch {
          template = undefined;
        }
      }
      const result = await runClosedLoop(
        async (i) => {
          const { namespace, name } = at(i);
          if (template === undefined || baseline === undefined) {
            try {
              await client.createConfigMap(namespace, name, options.data);
            } catch (err) {
              if (!(err instanceof UnexpectedStatusError && err.status === 409)) throw err;
            }
            return;
          }
          template.metadata.name = name;
          template.metadata.namespace = namespace;
          template.metadata.uid = randomUUID();
          await baseline.put(`${prefix}/configmaps/${namespace}/${name}`, JSON.stringify(template));
        },
        { concurrency: options.concurrency ?? 256, durationMs: 60 * 60_000, firstSeq: 1, maxOps: total - 1 },
      );
      if (result.errors > 0) throw new Error(`loading ConfigMaps: ${result.errors} errors, e.g. ${result.errorSamples.join(' | ')}`);
    } finally {
      baseline?.close();
    }
    const seconds = (performance.now() - started) / 1000;
    ctx.log(`loaded ${total} ConfigMaps in ${options.namespaces.length} namespaces (${template !== undefined ? 'copies in etcd' : 'through the API'}) in ${seconds.toFixed(1)} s`);
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
