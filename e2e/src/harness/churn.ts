import { forEachConcurrently, type KubeObject, type RestClient } from './rest.js';

/** 1 KiB-ish ConfigMap data with a counter, so every update changes the stored bytes. */
function data(counter: number): Record<string, string> {
  return { counter: String(counter), payload: 'x'.repeat(200) };
}

const collection = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/**
 * Creates `count` ConfigMaps `<prefix>-<i>` through `clients` (round-robin), `concurrency` at
 * a time. Rejects on any status other than 201.
 */
export async function seedConfigMaps(clients: readonly RestClient[], ns: string, prefix: string, count: number, concurrency = 16): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  await forEachConcurrently(count, concurrency, async (i) => {
    await clients[i % clients.length]!.expect(201, 'POST', collection(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: names[i] }, data: data(0) });
  });
  return names;
}

/**
 * One acknowledged write: its type as a watch event and the resourceVersion the server
 * returned. A DELETE of most resources answers a success Status, which carries no
 * resourceVersion: then `resourceVersion` is ''.
 */
export interface AcknowledgedWrite {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  resourceVersion: string;
}

export interface ChurnOptions {
  /** Writers use these clients round-robin per operation (e.g. one per replica). */
  clients: readonly RestClient[];
  namespace: string;
  /** Names that exist when churn starts (they are updated and deleted too). */
  existing: readonly string[];
  /** Prefix of names created during the churn. */
  prefix: string;
  writers: number;
  /** Stop after this long. */
  durationMs: number;
  /** Pause between one writer's operations; default 0. */
  pauseMs?: number;
  /** Called after each acknowledged write. */
  onWrite?: (write: AcknowledgedWrite) => void;
}

export interface ChurnResult {
  writes: AcknowledgedWrite[];
  /** Names that exist after the churn, as far as the writers know. */
  live: Set<string>;
  /** Unexpected statuses and socket errors (kept, never hidden). */
  errors: string[];
}

/**
 * Runs `writers` concurrent loops of creates (30%), merge-patch updates (45%) and deletes
 * (25%) for `durationMs`. Names are partitioned between writers, so no two writers touch one
 * object and every write is expected to succeed (201 or 200).
 */
export async function churnConfigMaps(options: ChurnOptions): Promise<ChurnResult> {
  const live = new Set(options.existing);
  const writes: AcknowledgedWrite[] = [];
  const errors: string[] = [];
  const deadline = Date.now() + options.durationMs;
  const owned = Array.from({ length: options.writers }, (_, w) => options.existing.filter((_, i) => i % options.writers === w));
  let clientTurn = 0;
  let counter = 1;
  const record = (write: AcknowledgedWrite): void => {
    writes.push(write);
    options.onWrite?.(write);
  };

  const writer = async (w: number): Promise<void> => {
    const mine = owned[w]!;
    let created = 0;
    while (Date.now() < deadline) {
      const client = options.clients[clientTurn++ % options.clients.length]!;
      const roll = Math.random();
      try {
        if (roll < 0.3 || mine.length === 0) {
          const name = `${options.prefix}-w${w}-${created++}`;
          const res = await client.request<KubeObject>('POST', collection(options.namespace), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: data(counter++) });
          if (res.status !== 201) errors.push(`create ${name}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
          else {
            mine.push(name);
            live.add(name);
            record({ type: 'ADDED', name, resourceVersion: res.body.metadata.resourceVersion });
          }
        } else {
          const index = Math.floor(Math.random() * mine.length);
          const name = mine[index]!;
          if (roll < 0.75) {
            const res = await client.request<KubeObject>('PATCH', `${collection(options.namespace)}/${name}`, { data: data(counter++) }, 'application/merge-patch+json');
            if (res.status !== 200) errors.push(`patch ${name}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
            else record({ type: 'MODIFIED', name, resourceVersion: res.body.metadata.resourceVersion });
          } else {
            const res = await client.request<Partial<KubeObject>>('DELETE', `${collection(options.namespace)}/${name}`);
            if (res.status !== 200) errors.push(`delete ${name}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
            else {
              mine.splice(index, 1);
              live.delete(name);
              record({ type: 'DELETED', name, resourceVersion: res.body.metadata?.resourceVersion ?? '' });
            }
          }
        }
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
  return { writes, live, errors };
}
