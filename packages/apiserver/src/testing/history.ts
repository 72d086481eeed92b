/**
 * Test support: the writes a test made, by resourceVersion, so that any list the server
 * returns can be checked against the exact state at the list's resourceVersion.
 */
import assert from 'node:assert/strict';
import type { Response, TestServer } from './fixture.js';

interface Version {
  readonly rv: number;
  readonly data: Record<string, string> | undefined;
  readonly deleted: boolean;
}

export interface ItemJson {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

export class History {
  private readonly versions = new Map<string, Version[]>();

  constructor(
    private readonly t: TestServer,
    readonly namespace: string,
  ) {}

  get collection(): string {
    return `/api/v1/namespaces/${this.namespace}/configmaps`;
  }

  private record(name: string, res: Response, deleted: boolean): number {
    assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.text}`);
    let rv: number;
    if (deleted) {
      // Deletes answer a Status: read the deleting revision from a quorum list afterwards.
      rv = -1;
    } else {
      rv = Number((res.json['metadata'] as { resourceVersion: string }).resourceVersion);
    }
    const list = this.versions.get(name) ?? [];
    list.push({ rv, data: deleted ? undefined : (res.json['data'] as Record<string, string>), deleted });
    this.versions.set(name, list);
    return rv;
  }

  async create(name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<number> {
    const res = await this.t.request('POST', this.collection, { body: { metadata: { name, ...(labels ? { labels } : {}) }, data } });
    return this.record(name, res, false);
  }

  async update(name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<number> {
    const res = await this.t.request('PUT', `${this.collection}/${name}`, { body: { metadata: { name, ...(labels ? { labels } : {}) }, data } });
    return this.record(name, res, false);
  }

  /** Deletes and returns the deleting revision (read from etcd: the first revision without the key). */
  async delete(name: string): Promise<number> {
    const before = this.versions.get(name)?.at(-1)?.rv ?? 0;
    const res = await this.t.request('DELETE', `${this.collection}/${name}`);
    this.record(name, res, true);
    const rv = await this.deletingRevision(`${this.t.etcdPrefix}/configmaps/${this.namespace}/${name}`, before);
    const list = this.versions.get(name)!;
    list[list.length - 1] = { rv, data: undefined, deleted: true };
    return rv;
  }

  /**
   * The revision that deleted `key`, last written at `written`: a binary search over etcd's
   * history for the first revision at which the key is absent (other writes in the cluster —
   * controllers, leases — may come between, so the current revision is not it).
   */
  private async deletingRevision(key: string, written: number): Promise<number> {
    const range = async (revision?: number): Promise<{ present: boolean; revision: number }> => {
      const body = { key: Buffer.from(key).toString('base64'), count_only: true, ...(revision !== undefined ? { revision: String(revision) } : {}) };
      const res = await fetch(`${this.t.etcd.endpoints[0]}/v3/kv/range`, { method: 'POST', body: JSON.stringify(body) });
      const json = (await res.json()) as { header: { revision: string }; count?: string };
      return { present: Number(json.count ?? 0) > 0, revision: Number(json.header.revision) };
    };
    const now = await range();
    assert.ok(!now.present, `${key} is still in etcd`);
    let [lo, hi] = [written, now.revision]; // present at lo, absent at hi
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await range(mid)).present) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /** Names and versions of the objects as they were at revision `rv`, ordered by name. */
  stateAt(rv: number): { name: string; rv: number; data: Record<string, string> | undefined }[] {
    const out: { name: string; rv: number; data: Record<string, string> | undefined }[] = [];
    for (const [name, versions] of [...this.versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const latest = versions.filter((v) => v.rv <= rv).at(-1);
      if (latest !== undefined && !latest.deleted) out.push({ name, rv: latest.rv, data: latest.data });
    }
    return out;
  }

  /** Asserts that `items` are exactly the objects as they were at `rv`. */
  assertStateAt(items: readonly ItemJson[], rv: number, message = ''): void {
    const actual = items.map((i) => ({ name: i.metadata.name, rv: Number(i.metadata.resourceVersion), data: i.data }));
    assert.deepEqual(actual, this.stateAt(rv), `state at ${rv} ${message}`);
  }
}

/** The items and resourceVersion of a list response. */
export function listOf(res: Response): { items: ItemJson[]; rv: number; continue?: string; remainingItemCount?: number } {
  assert.equal(res.status, 200, res.text);
  const meta = res.json['metadata'] as { resourceVersion: string; continue?: string; remainingItemCount?: number };
  return {
    items: res.json['items'] as ItemJson[],
    rv: Number(meta.resourceVersion),
    ...(meta.continue !== undefined ? { continue: meta.continue } : {}),
    ...(meta.remainingItemCount !== undefined ? { remainingItemCount: meta.remainingItemCount } : {}),
  };
}

/** Asserts a Status error response: code, reason and the exact message. */
export function assertStatusResponse(res: Response, code: number, reason: string, message: string | RegExp): void {
  assert.equal(res.status, code, res.text);
  assert.equal(res.json['kind'], 'Status', res.text);
  assert.equal(res.json['status'], 'Failure');
  assert.equal(res.json['code'], code);
  assert.equal(res.json['reason'], reason);
  if (typeof message === 'string') assert.equal(res.json['message'], message);
  else assert.match(String(res.json['message']), message);
}
