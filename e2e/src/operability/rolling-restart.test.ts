/**
 * A rolling restart of three replicas (SIGTERM with a shutdown delay and a watch termination
 * grace period, then start again) under a steady load of writes and watches through a
 * client-side balancer: no acknowledged write is lost, every watcher ends with exactly the
 * final state, and no client sees a 5xx other than 503 with Retry-After.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import type { KubeList, KubeObject } from '../harness/rest.js';
import { openWatch, type WatchEvent } from '../harness/watch-stream.js';
import { Balancer } from './balancer.js';

const namespace = 'rolling';
const collection = `/api/v1/namespaces/${namespace}/configmaps`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Entry {
  rv: string;
  value: string | undefined;
}

/** A watcher that lists, watches from the list's resourceVersion, and resumes on another replica (never re-lists unless told 410). */
class ResumingWatcher {
  readonly state = new Map<string, Entry>();
  rv = '';
  resumes = 0;
  relists = 0;
  readonly errors: string[] = [];
  private stopped = false;
  private current: { kill(): void } | undefined;
  readonly done: Promise<void>;

  constructor(private readonly lb: Balancer) {
    this.done = this.run();
  }

  private async list(): Promise<void> {
    const res = await this.lb.request('GET', collection);
    if (res.status !== 200) throw new Error(`list: ${res.status} ${res.body}`);
    const list = JSON.parse(res.body) as KubeList;
    this.state.clear();
    for (const item of list.items) this.state.set(item.metadata.name, { rv: item.metadata.resourceVersion, value: item.data?.['v'] });
    this.rv = list.metadata.resourceVersion;
  }

  private async run(): Promise<void> {
    await this.list();
    while (!this.stopped) {
      let expired = false;
      const stream = openWatch(this.lb.pick(), `${collection}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.rv}`, (event: WatchEvent) => {
        if (event.type === 'ERROR') {
          const status = event.object as unknown as { code?: number; message?: string };
          if (status.code === 410) expired = true;
          else this.errors.push(`ERROR event ${status.code}: ${status.message}`);
          return;
        }
        const meta = event.object.metadata;
        this.rv = meta.resourceVersion;
        if (event.type === 'BOOKMARK') return;
        if (event.type === 'DELETED') this.state.delete(meta.name);
        else this.state.set(meta.name, { rv: meta.resourceVersion, value: event.object.data?.['v'] });
      });
      this.current = stream;
      const end = await stream.done;
      if (this.stopped) break;
      if (end.status !== 200 && end.status !== 0 && end.status !== 429 && !(end.status === 503)) this.errors.push(`watch answered ${end.status}: ${end.body ?? ''}`);
      if (end.badLines.length > 0) this.errors.push(`bad lines: ${end.badLines.join(' | ')}`);
      if (expired) {
        this.relists++;
        await this.list();
      } else {
        this.resumes++;
      }
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.kill();
    await this.done;
  }
}

void describe('rolling restart of three replicas under writes and watches', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster({
      replicas: 3,
      server: { insecure: true, extraArgs: ['--shutdown-delay-duration=1s', '--shutdown-watch-termination-grace-period=1s'] },
    });
  });
  after(async () => {
    await cluster.stop();
  });

  void it('loses no acknowledged write, every watcher ends with the exact final state, no 5xx but 503 + Retry-After', async (t) => {
    const lb = new Balancer(cluster.servers.map((s) => s.insecureUrl!));
    const ns = await lb.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    assert.ok(ns.status === 201 || ns.status === 409, ns.body);

    // Writers: each owns its names; creates, then unconditional updates; the last acknowledged value per name is what must survive.
    const acknowledged = new Map<string, string>();
    let writing = true;
    let writes = 0;
    const writer = async (w: number): Promise<void> => {
      const names: string[] = [];
      for (let n = 0; writing; n++) {
        const value = `${w}-${n}`;
        if (names.length < 10 || n % 3 === 0) {
          const name = `w${w}-${names.length}`;
          const res = await lb.request('POST', collection, { metadata: { name }, data: { v: value } });
          // A 409 after a retry: the first attempt was applied (only this writer writes this name).
          if (res.status === 201 || (res.status === 409 && res.attempts > 1)) {
            acknowledged.set(name, value);
            names.push(name);
          } else {
            throw new Error(`create ${name}: ${res.status} ${res.body}`);
          }
        } else {
          const name = names[n % names.length]!;
          const res = await lb.request('PUT', `${collection}/${name}`, { metadata: { name }, data: { v: value } });
          if (res.status !== 200) throw new Error(`update ${name}: ${res.status} ${res.body}`);
          acknowledged.set(name, value);
        }
        writes++;
        await sleep(10);
      }
    };
    const writers = [0, 1, 2, 3].map((w) => writer(w));
    const watchers = [0, 1, 2].map(() => new ResumingWatcher(lb));
    await sleep(1000);

    // Rolling restart: one replica at a time, SIGTERM and start again (the harness waits for readyz).
    for (const server of cluster.servers) {
      await server.restart();
      await sleep(1000);
    }
    await sleep(500);
    writing = false;
    await Promise.all(writers);

    // The final state, read by a quorum list.
    const finalRes = await lb.request('GET', collection);
    assert.equal(finalRes.status, 200);
    const finalList = JSON.parse(finalRes.body) as KubeList;
    const finalState = new Map(finalList.items.map((i: KubeObject) => [i.metadata.name, { rv: i.metadata.resourceVersion, value: i.data?.['v'] }]));
    for (const [name, value] of acknowledged) {
      assert.equal(finalState.get(name)?.value, value, `acknowledged write ${name}=${value} lost`);
    }
    // (the namespace also holds kube-root-ca.crt, published by the root CA controller; watchers see it too)
    assert.equal([...finalState.keys()].filter((n) => n !== 'kube-root-ca.crt').length, acknowledged.size);

    // Every watcher converges on exactly the final state (names, values and resourceVersions).
    const deadline = Date.now() + 20_000;
    const expected = JSON.stringify([...finalState].sort());
    for (const watcher of watchers) {
      while (JSON.stringify([...watcher.state].sort()) !== expected && Date.now() < deadline) await sleep(100);
    }
    await Promise.all(watchers.map((w) => w.stop()));
    for (const watcher of watchers) {
      assert.equal(JSON.stringify([...watcher.state].sort()), expected);
      assert.deepEqual(watcher.errors, []);
    }
    lb.close();
    assert.deepEqual(lb.violations, []);
    t.diagnostic(
      `${writes} acknowledged writes over ${acknowledged.size} objects; watcher resumes ${watchers.map((w) => w.resumes).join('/')}, relists ${watchers.map((w) => w.relists).join('/')}; retries ${JSON.stringify(Object.fromEntries(lb.retries))}`,
    );
    assert.ok(watchers.every((w) => w.resumes >= 1), 'every watcher resumed at least once');
  });
});
