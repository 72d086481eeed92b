/**
 * The fault suite's steady mixed workload through the balancer, and what it records for the
 * checker: writers (creates, updates and deletes, every one conditional on the resourceVersion
 * the writer last saw), counters (conditional read-modify-write increments), listers (full and
 * paged lists), raw watchers with bookmarks that resume from their last resourceVersion and
 * re-list on 410 (each keeps a store: the raw-watch informer), and a @kubernetes/client-node
 * informer.
 */
import { CoreV1Api, KubeConfig, makeInformer, type Informer, type ObjectCache, type V1ConfigMap } from '@kubernetes/client-node';
import type { KubeList, KubeObject, RestClient } from '../harness/rest.js';
import { openWatch, type WatchStream } from '../harness/watch-stream.js';
import type { CounterRecord, KeyEntry, KeyState, ListRecord, Resume, SeenEvent, WatchEpoch } from './checker.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Operation counts, by kind and outcome. */
export class Tally {
  readonly counts = new Map<string, number>();
  add(name: string, n = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }
  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }
  total(prefix: string): number {
    let sum = 0;
    for (const [k, v] of this.counts) if (k.startsWith(prefix)) sum += v;
    return sum;
  }
}

/** Shared state of one workload run. */
export interface WorkloadContext {
  client: RestClient;
  namespace: string;
  tally: Tally;
  /** Highest resourceVersion acknowledged to any writer so far. */
  maxAcked: bigint;
  stopped: boolean;
  /** The run's seeded generator: which key, which operation, how long a watch lasts. */
  random: () => number;
}

const collection = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

function ack(ctx: WorkloadContext, rv: string | undefined): void {
  if (rv && /^\d+$/.test(rv) && BigInt(rv) > ctx.maxAcked) ctx.maxAcked = BigInt(rv);
}

/** A status that says the request was refused without effect. */
const refused = (status: number) => status === 409 || status === 404 || status === 422 || status === 400;

/**
 * One writer owning `keys` keys (`<name>-k<j>`): random creates/updates/deletes, each
 * conditional; after an ambiguous or refused write it re-reads the key (retrying until a read
 * succeeds) and continues from what it observed.
 */
export class Writer {
  readonly logs = new Map<string, KeyEntry[]>();
  /** Reads that contradict the writer's own acknowledged writes. */
  readonly violations: string[] = [];
  private readonly ambiguousSinceAck = new Set<string>();
  private readonly model = new Map<string, KeyState>();
  private seq = 0;

  constructor(
    private readonly ctx: WorkloadContext,
    readonly name: string,
    private readonly keys: number,
  ) {}

  private log(key: string, entry: KeyEntry): void {
    let entries = this.logs.get(key);
    if (!entries) this.logs.set(key, (entries = []));
    entries.push(entry);
  }

  async run(): Promise<void> {
    const { ctx } = this;
    while (!ctx.stopped) {
      const key = `${this.name}-k${Math.floor(this.ctx.random() * this.keys)}`;
      const state = this.model.get(key) ?? { exists: false };
      const token = `${this.name}-${++this.seq}`;
      const path = `${collection(ctx.namespace)}/${key}`;
      const roll = this.ctx.random();
      let op: 'create' | 'update' | 'delete' | 'read';
      let res: { status: number; body: KubeObject | undefined } | undefined;
      let intended: KeyState;
      if (!state.exists && roll < 0.85) {
        op = 'create';
        intended = { exists: true, token, resourceVersion: '' };
      } else if (roll < 0.6) {
        op = 'update';
        intended = { exists: true, token, resourceVersion: '' };
      } else if (roll < 0.85) {
        op = 'delete';
        intended = { exists: false };
      } else {
        op = 'read';
        intended = state;
      }
      try {
        if (op === 'create') {
          res = await ctx.client.request<KubeObject>('POST', collection(ctx.namespace), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key }, data: { v: token } });
        } else if (op === 'update' && state.exists) {
          res = await ctx.client.request<KubeObject>('PUT', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, resourceVersion: state.resourceVersion }, data: { v: token } });
        } else if (op === 'delete' && state.exists) {
          res = await ctx.client.request<KubeObject>('DELETE', path, { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: state.resourceVersion } });
        } else {
          res = await ctx.client.request<KubeObject>('GET', path);
        }
      } catch {
        res = undefined;
      }
      if (op === 'read') {
        if (!res || (res.status !== 200 && res.status !== 404)) {
          ctx.tally.add('read-failed');
          continue;
        }
        ctx.tally.add('read');
        const observed: KeyState = res.status === 404 ? { exists: false } : { exists: true, token: res.body?.data?.v ?? '', resourceVersion: res.body?.metadata.resourceVersion ?? '' };
        const same = observed.exists === state.exists && (!observed.exists || (state.exists && observed.token === state.token && observed.resourceVersion === state.resourceVersion));
        if (!same) {
          // Keys are owned by one writer: a read that differs from its last acknowledged write
          // is an ambiguous write that landed later, or else a stale read or a lost write.
          if (!this.ambiguousSinceAck.has(key)) this.violations.push(`read of ${key} returned ${observed.exists ? `${observed.token}@${observed.resourceVersion}` : 'absent'}, last acknowledged ${state.exists ? `${state.token}@${state.resourceVersion}` : 'absent'}`);
          this.log(key, { kind: 'observed', state: observed });
          this.model.set(key, observed);
        }
        continue;
      }
      const ok = res && (op === 'create' ? res.status === 201 : res.status === 200);
      if (ok) {
        const rv = res!.body?.metadata?.resourceVersion ?? '';
        const after: KeyState = op === 'delete' ? { exists: false } : { exists: true, token, resourceVersion: rv };
        ack(ctx, op === 'delete' ? undefined : rv);
        this.log(key, { kind: 'ack', op, state: after });
        this.ambiguousSinceAck.delete(key);
        this.model.set(key, after);
        ctx.tally.add(op);
        continue;
      }
      if (res && refused(res.status)) ctx.tally.add(`${op}-refused`);
      else {
        ctx.tally.add(`${op}-ambiguous`);
        this.log(key, { kind: 'ambiguous', op, state: intended });
        this.ambiguousSinceAck.add(key);
      }
      await this.resync(key, path);
    }
  }

  /** Re-reads `key` until a read succeeds (a GET without resourceVersion is a quorum read). */
  private async resync(key: string, path: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.ctx.client.request<KubeObject>('GET', path);
        if (res.status === 200 || res.status === 404) {
          const observed: KeyState = res.status === 404 ? { exists: false } : { exists: true, token: res.body.data?.v ?? '', resourceVersion: res.body.metadata.resourceVersion };
          this.log(key, { kind: 'observed', state: observed });
          this.model.set(key, observed);
          this.ctx.tally.add('resync');
          return;
        }
      } catch {
        // the cluster is down: retry
      }
      if (this.ctx.stopped && attempt > 200) return;
      await sleep(100);
    }
  }
}

/** Increments counter objects with resourceVersion preconditions; every increment appends its id to `data.ops`. */
export class Incrementer {
  readonly acked = new Map<string, string[]>();
  readonly ambiguous = new Map<string, string[]>();
  private seq = 0;

  constructor(
    private readonly ctx: WorkloadContext,
    readonly name: string,
    private readonly counters: readonly string[],
  ) {
    for (const c of counters) {
      this.acked.set(c, []);
      this.ambiguous.set(c, []);
    }
  }

  async run(): Promise<void> {
    const { ctx } = this;
    while (!ctx.stopped) {
      const counter = this.counters[Math.floor(this.ctx.random() * this.counters.length)]!;
      const path = `${collection(ctx.namespace)}/${counter}`;
      let current: KubeObject | undefined;
      try {
        const got = await ctx.client.request<KubeObject>('GET', path);
        if (got.status === 200) current = got.body;
      } catch {
        // retry below
      }
      if (!current) {
        ctx.tally.add('increment-read-failed');
        await sleep(100);
        continue;
      }
      const id = `${this.name}.${++this.seq}`;
      const n = Number(current.data?.n ?? '0');
      const ops = current.data?.ops ?? '';
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: counter, resourceVersion: current.metadata.resourceVersion }, data: { n: String(n + 1), ops: ops === '' ? id : `${ops},${id}` } };
      let status = 0;
      let rv: string | undefined;
      try {
        const res = await ctx.client.request<KubeObject>('PUT', path, body);
        status = res.status;
        rv = res.body?.metadata?.resourceVersion;
      } catch {
        status = 0;
      }
      if (status === 200) {
        ack(ctx, rv);
        this.acked.get(counter)!.push(id);
        ctx.tally.add('increment');
      } else if (status === 409) {
        ctx.tally.add('increment-conflict');
      } else {
        this.ambiguous.get(counter)!.push(id);
        ctx.tally.add('increment-ambiguous');
        await sleep(50);
      }
    }
  }

  records(finals: Map<string, { n: number; ops: string[] } | undefined>, all: readonly Incrementer[]): CounterRecord[] {
    return this.counters.map((c) => ({
      name: c,
      acked: all.flatMap((i) => i.acked.get(c) ?? []),
      ambiguous: all.flatMap((i) => i.ambiguous.get(c) ?? []),
      final: finals.get(c),
    }));
  }
}

/** Lists the namespace (every other time in pages of 25) and records each list's revision against the writes acknowledged before it. */
export class Lister {
  readonly lists: ListRecord[] = [];
  readonly violations: string[] = [];

  constructor(private readonly ctx: WorkloadContext) {}

  async run(): Promise<void> {
    const { ctx } = this;
    let paged = false;
    while (!ctx.stopped) {
      paged = !paged;
      const ackedBefore = ctx.maxAcked;
      try {
        let cont = '';
        let first: string | undefined;
        for (;;) {
          const query = paged ? `?limit=25${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` : '';
          const res = await ctx.client.request<KubeList>('GET', `${collection(ctx.namespace)}${query}`);
          if (res.status !== 200) {
            // 410 for an expired continue token is allowed; anything else is a failed list.
            ctx.tally.add(res.status === 410 ? 'list-expired' : 'list-failed');
            break;
          }
          first ??= res.body.metadata.resourceVersion;
          if (res.body.metadata.resourceVersion !== first) this.violations.push(`paged list: page at ${res.body.metadata.resourceVersion}, first page at ${first}`);
          cont = res.body.metadata.continue ?? '';
          if (!cont) {
            this.lists.push({ resourceVersion: first, ackedBefore });
            ctx.tally.add(paged ? 'list-paged' : 'list');
            break;
          }
        }
      } catch {
        ctx.tally.add('list-failed');
      }
      await sleep(100);
    }
  }
}

/**
 * A watcher that lists, then watches with bookmarks from the list's resourceVersion, resumes
 * every ended watch from the last resourceVersion it saw, and re-lists on 410 (a new epoch).
 * Its store (name → resourceVersion) is an informer built on the raw protocol.
 */
export class RawWatcher {
  readonly epochs: WatchEpoch[] = [];
  readonly store = new Map<string, string>();
  events = 0;
  bookmarks = 0;
  relists = 0;
  resumes = 0;
  errors = 0;
  /** The first few distinct errors (ERROR events other than 410, failed watch requests). */
  readonly errorSamples = new Set<string>();
  lastResourceVersion = 0n;
  private current: WatchStream | undefined;
  private done = false;

  constructor(
    private readonly ctx: WorkloadContext,
    readonly name: string,
    private readonly baseUrl: string,
    private readonly clientCertificate?: { cert: string; key: string },
  ) {}

  private async list(): Promise<{ rv: string; items: KubeObject[] }> {
    for (;;) {
      try {
        const res = await this.ctx.client.request<KubeList>('GET', collection(this.ctx.namespace));
        if (res.status === 200) return { rv: res.body.metadata.resourceVersion, items: res.body.items };
      } catch {
        // retry
      }
      if (this.done) throw new Error('stopped');
      await sleep(200);
    }
  }

  async run(): Promise<void> {
    while (!this.done) {
      let listed: { rv: string; items: KubeObject[] };
      try {
        listed = await this.list();
      } catch {
        return;
      }
      this.store.clear();
      for (const item of listed.items) this.store.set(item.metadata.name, item.metadata.resourceVersion);
      const events: SeenEvent[] = [];
      const resumes: Resume[] = [];
      this.epochs.push({ watcher: this.name, startResourceVersion: listed.rv, events, resumes, listed: new Map(this.store) });
      let from = listed.rv;
      this.lastResourceVersion = BigInt(from);
      let expired = false;
      while (!this.done && !expired) {
        const timeout = 3 + Math.floor(this.ctx.random() * 6);
        const path = `${collection(this.ctx.namespace)}?watch=1&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=${timeout}`;
        this.current = openWatch<KubeObject & { code?: number }>(this.baseUrl, path, (event) => {
          if (event.type === 'ERROR') {
            if (event.object.code === 410) expired = true;
            else this.error(`ERROR event ${String(event.object.code)}: ${String((event.object as { message?: string }).message ?? '').slice(0, 120)}`);
            return;
          }
          const rv = event.object.metadata.resourceVersion;
          events.push({ type: event.type, name: event.object.metadata.name ?? '', resourceVersion: rv });
          if (event.type === 'BOOKMARK') this.bookmarks++;
          else {
            this.events++;
            if (event.type === 'DELETED') this.store.delete(event.object.metadata.name);
            else this.store.set(event.object.metadata.name, rv);
          }
          if (BigInt(rv) > this.lastResourceVersion) this.lastResourceVersion = BigInt(rv);
        }, {}, this.clientCertificate);
        const end = await this.current.done;
        if (end.status === 410) expired = true;
        else if (end.status !== 200) {
          this.error(end.status === 0 ? `no response: ${end.error?.message ?? end.reason}` : `HTTP ${end.status}: ${(end.body ?? '').slice(0, 120)}`);
          await sleep(200);
        }
        if (expired) {
          this.relists++;
          break;
        }
        from = String(this.lastResourceVersion);
        if (!this.done) {
          resumes.push({ from, afterEvents: events.length });
          this.resumes++;
        }
      }
    }
  }

  private error(message: string): void {
    this.errors++;
    if (this.errorSamples.size < 6) this.errorSamples.add(message.replace(/\d+/g, 'N'));
  }

  stop(): void {
    this.done = true;
    this.current?.kill();
  }
}

/** A @kubernetes/client-node informer through the balancer, restarted after errors as its docs say. */
export class NodeInformer {
  readonly informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;
  errors = 0;
  lists = 0;
  adds = 0;
  updates = 0;
  deletes = 0;
  private stopped = false;

  constructor(kubeconfig: string, private readonly namespace: string) {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const api = kc.makeApiClient(CoreV1Api);
    this.informer = makeInformer<V1ConfigMap>(kc, collection(namespace), () => {
      this.lists++;
      return api.listNamespacedConfigMap({ namespace });
    });
    this.informer.on('add', () => this.adds++);
    this.informer.on('update', () => this.updates++);
    this.informer.on('delete', () => this.deletes++);
    this.informer.on('error', () => {
      this.errors++;
      setTimeout(() => {
        if (!this.stopped) void this.informer.start().catch(() => undefined);
      }, 200).unref();
    });
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  store(): Map<string, string> {
    return new Map(this.informer.list(this.namespace).map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
  }
}
