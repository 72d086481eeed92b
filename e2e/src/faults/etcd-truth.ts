/**
 * Ground truth straight from etcd (gRPC, not through kapi): a recorder of every change of the
 * namespace's keys from a start revision on, the leader, compaction, and the final state.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Etcd3, type Watcher } from 'etcd3';
import { compactRevKey } from '@kapi/storage';
import type { HistoryEvent, KeyState } from './checker.js';
import type { EtcdCredentials } from '../harness/etcd-credentials.js';
import { decodeStoredObject } from '@kapi/storage';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An etcd3 client whose watch streams reconnect every 250 ms while etcd is unreachable (the
 * library's default backoff grows to 30 s: after a restart of every member the recorder would
 * lag that long, and the pending timers keep the process alive after `close()`).
 */
export function etcdClient(hosts: string[], credentials?: EtcdCredentials): Etcd3 {
  const constant = { duration: 250, next: () => constant };
  return new Etcd3({ hosts, faultHandling: { watchBackoff: constant }, ...(credentials !== undefined ? { credentials } : {}) });
}

/**
 * Records etcd's history of `keyPrefix` from `fromRevision` (exclusive) on, through member
 * failures, and the keys' state at `fromRevision` (`initial`, name → mod revision), so that
 * the state at any later revision can be rebuilt (checker.ts `stateAt`).
 */
export class HistoryRecorder {
  readonly events: HistoryEvent[] = [];
  errors = 0;
  private watcher: Watcher | undefined;
  private lastSeen: bigint;

  private constructor(
    readonly fromRevision: bigint,
    readonly initial: ReadonlyMap<string, string>,
  ) {
    this.lastSeen = fromRevision;
  }

  static async start(client: Etcd3, keyPrefix: string): Promise<HistoryRecorder> {
    const range = await client.getAll().prefix(keyPrefix).exec();
    const from = BigInt(range.header.revision);
    const recorder = new HistoryRecorder(from, new Map(range.kvs.map((kv) => [kv.key.toString().slice(keyPrefix.length), kv.mod_revision])));
    const watcher = await client.watch().prefix(keyPrefix).startRevision(String(from + 1n)).create();
    recorder.watcher = watcher;
    const name = (key: Buffer) => key.toString().slice(keyPrefix.length);
    watcher.on('put', (kv) => {
      recorder.events.push({ type: kv.create_revision === kv.mod_revision ? 'ADDED' : 'MODIFIED', name: name(kv.key), resourceVersion: kv.mod_revision });
    });
    watcher.on('delete', (kv) => recorder.events.push({ type: 'DELETED', name: name(kv.key), resourceVersion: kv.mod_revision }));
    watcher.on('data', (res) => {
      const rev = BigInt(res.header.revision);
      if (rev > recorder.lastSeen) recorder.lastSeen = rev;
    });
    watcher.on('error', () => recorder.errors++);
    return recorder;
  }

  /** The highest revision the recorder is known to have seen everything up to. */
  seenThrough(): bigint {
    const lastEvent = this.events.at(-1);
    const ev = lastEvent ? BigInt(lastEvent.resourceVersion) : 0n;
    return ev > this.lastSeen ? ev : this.lastSeen;
  }

  /** Waits until the recorder has seen revision `revision` (an event at or after it, or a progress notification). */
  async waitFor(revision: bigint, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.seenThrough() < revision) {
      if (Date.now() > deadline) throw new Error(`etcd history recorder reached only ${this.seenThrough()}, not ${revision}, in ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    await this.watcher?.cancel().catch(() => undefined);
  }
}

/** etcd's current revision (a linearizable range read). */
export async function currentRevision(client: Etcd3): Promise<bigint> {
  return BigInt((await client.get('/kapi-faults/probe').exec()).header.revision);
}

/**
 * Compacts (physically) at etcd's current revision and returns it. Like kube's (and kapi's)
 * compactor, it records the revision in `compact_rev_key`, which every replica watches: their
 * watch caches then refuse (410) watches from before it, as they would after a compaction of
 * their own. (A compaction nobody records leaves the caches serving the history they still
 * hold, as kube-apiserver's do.)
 */
export async function compactNow(client: Etcd3): Promise<bigint> {
  const revision = await currentRevision(client);
  await client.kv.compact({ revision: String(revision), physical: true });
  await client.put(compactRevKey).value(String(revision)).exec();
  return revision;
}

/** The keys under `keyPrefix` now: name → state (the JSON value's `data.v` / `data` as token) and name → revision. */
export async function finalState(client: Etcd3, keyPrefix: string): Promise<{ states: Map<string, KeyState & { exists: true }>; revisions: Map<string, string>; values: Map<string, Record<string, unknown>> }> {
  const res = await client.getAll().prefix(keyPrefix).exec();
  const states = new Map<string, KeyState & { exists: true }>();
  const revisions = new Map<string, string>();
  const values = new Map<string, Record<string, unknown>>();
  for (const kv of res.kvs) {
    const name = kv.key.toString().slice(keyPrefix.length);
    revisions.set(name, kv.mod_revision);
    let obj: Record<string, unknown> = {};
    try {
      obj = decodeStoredObject(kv.value, kv.key.toString()) as Record<string, unknown>;
    } catch {
      // not a stored object (encrypted, or not written by an API server): the token is unknown
    }
    values.set(name, obj);
    const data = (obj.data ?? {}) as Record<string, string>;
    states.set(name, { exists: true, token: data.v ?? '', resourceVersion: kv.mod_revision });
  }
  return { states, revisions, values };
}

/** POSTs `{}` to a path of etcd's JSON gateway (mutual TLS with `credentials`); the parsed answer, or undefined on any failure within 2 s. */
function gatewayPost(url: string, credentials: EtcdCredentials | undefined): Promise<unknown> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const tls = credentials !== undefined ? { ca: credentials.rootCertificate, cert: credentials.certChain, key: credentials.privateKey } : {};
    const req = request(target, { method: 'POST', timeout: 2000, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end('{}');
  });
}

/** The member whose /v3/maintenance/status names itself as leader, via etcd's JSON gateway. */
export async function findLeader(members: Record<string, string>, credentials?: EtcdCredentials): Promise<string | undefined> {
  for (const [name, url] of Object.entries(members)) {
    // down or partitioned: ask the next one
    const s = (await gatewayPost(`${url}/v3/maintenance/status`, credentials)) as { header: { member_id: string }; leader: string } | undefined;
    if (s !== undefined && s.leader === s.header.member_id) return name;
  }
  return undefined;
}
