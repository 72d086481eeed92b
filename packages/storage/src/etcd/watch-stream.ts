import { isBrokenCircuitError } from 'cockatiel';
import type { Etcd3, IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { isEtcd3, type EtcdClient } from './etcd-calls.js';
import { StorageError } from '../errors.js';
import { isConnectionFailure, toStorageError } from './errors.js';
import { revisionOf } from './kv.js';
import type { EtcdUnaryClient } from './grpc/unary-client.js';

/**
 * Watches opened with kapi's own client (grpc/unary-client.ts) go over its Watch calls
 * (grpc/watch-call.ts), and its members' leader checks over its Maintenance.Status calls;
 * those opened with an etcd3 client over that client's grpc-js channels — unless
 * `useOwnWatchClient(client, own)` was called, which makes every watch opened with `client` use
 * `own` (which must have the same endpoints), leader checks included.
 */
const ownWatchClients = new WeakMap<Etcd3, EtcdUnaryClient>();

/** The own client that carries `client`'s watches, if any. */
function ownClientOf(client: EtcdClient): EtcdUnaryClient | undefined {
  return isEtcd3(client) ? ownWatchClients.get(client) : client;
}

export function useOwnWatchClient(client: Etcd3, own: EtcdUnaryClient): void {
  ownWatchClients.set(client, own);
}

/** Undoes `useOwnWatchClient(client, own)` (when no other own client took its place since). */
export function stopOwnWatchClient(client: Etcd3, own: EtcdUnaryClient): void {
  if (ownWatchClients.get(client) === own) ownWatchClients.delete(client);
}

/** What one etcd watch is created with. */
export interface WatchStreamRequest {
  /** The key, or the first key of the range. */
  key: Buffer;
  /** The end of the range (exclusive); absent = the single key. */
  rangeEnd?: Buffer;
  /** The first revision to deliver (etcd's start_revision, inclusive); 0 = from now. */
  startRevision: number;
  /** Ask for the previous key-value with every event. */
  prevKv: boolean;
  /** Ask etcd for periodic progress notifications (`--experimental-watch-progress-notify-interval`). */
  progressNotify: boolean;
  /**
   * With several members: how often the members are asked whether they have a leader
   * (Maintenance.Status, one call per member per interval for all the client's streams; see
   * `LeaderMonitor`). A member cut off from the majority keeps the stream open but receives no
   * new revisions; etcd itself cancels such a stream ("no leader") only after about three
   * election timeouts without a leader. When the check finds the stream's member without a
   * leader while another member has one, the stream ends with Unreachable, so that its owner
   * re-opens it from its last revision; the stream is opened on a member that had a leader at
   * the last check. 0 or absent: no check.
   */
  leaderCheckIntervalMs?: number;
}

export interface WatchStreamHandlers {
  /** The stream is live: etcd created the watch (header revision of the created reply). */
  onCreated?(revision: number): void;
  /** Events of one watch response, in revision order. */
  onEvents(events: readonly IEvent[], headerRevision: number): void;
  /**
   * A response without events: every change up to `revision` was sent before it. `onDemand`
   * is true for a reply to `requestProgress` (watch_id -1), false for a periodic notification
   * carrying this watch's own id.
   */
  onProgress(revision: number, onDemand: boolean): void;
  /** The start revision is compacted (etcd cancelled the watch; `compactRevision` is etcd's compacted revision). Terminal. */
  onCompacted(compactRevision: number): void;
  /** The stream broke (etcd gone, stream ended, watch cancelled for another reason). Terminal; a StorageError (usually Unreachable). */
  onError(err: StorageError): void;
}

/** One running etcd watch on its own gRPC stream. */
export interface WatchStream {
  /** Sends a progress request on this stream (answered through `onProgress(…, true)`). Before the watch is created it is sent once it is. */
  requestProgress(): void;
  /** Stops reading responses (HTTP/2 flow control then holds etcd back); `resume` reads again. */
  pause(): void;
  resume(): void;
  /** Cancels the watch. No handler is called afterwards. Idempotent. */
  close(): void;
  /** The member serving the stream (`host:port`), once it is open; undefined before, or when the client does not say. */
  member(): string | undefined;
}

/** The parts of the etcd3 client's connection pool and hosts used here (not in its typings). */
interface PoolHost {
  readonly host: string;
  getServiceClient(name: string): unknown;
}
interface GrpcMetadataLike {
  set(key: string, value: string): void;
}
interface Pool {
  hosts: PoolHost[];
  authenticator: { getMetadata(): Promise<GrpcMetadataLike> };
  withConnection<T>(service: string, fn: (args: { resource: PoolHost; client: unknown; metadata: GrpcMetadataLike }) => T): Promise<T>;
  markFailed(resource: PoolHost, error: Error): void;
}
interface WatchServiceClient {
  watch(metadata: GrpcMetadataLike): GrpcDuplex;
}
interface MaintenanceServiceClient {
  status(
    request: object,
    metadata: GrpcMetadataLike,
    options: { deadline: number },
    callback: (err: Error | null, res?: { leader?: string | number }) => void,
  ): void;
}

/** The client's connection pool when it has the shape this code relies on. */
function poolOf(client: Etcd3): Pool | undefined {
  const pool = (client as unknown as { pool?: Partial<Pool> }).pool;
  if (
    pool === undefined ||
    !Array.isArray(pool.hosts) ||
    typeof pool.withConnection !== 'function' ||
    typeof pool.markFailed !== 'function' ||
    typeof pool.authenticator?.getMetadata !== 'function'
  ) {
    return undefined;
  }
  return pool as Pool;
}

/** How long a stream of a multi-member client waits for etcd to confirm its watch: 3 leader checks, at least 3 s. */
export function createTimeoutMs(leaderCheckIntervalMs: number): number {
  return Math.max(3 * leaderCheckIntervalMs, 3000);
}

/** How many members the client knows (1 when it does not say). */
export function memberCount(client: EtcdClient): number {
  const own = ownClientOf(client);
  if (own !== undefined) return own.hosts.length;
  return (isEtcd3(client) ? poolOf(client)?.hosts.length : undefined) ?? 1;
}

/** Asks a member whether it has a leader: true / false when it says, undefined when the check failed otherwise. */
interface LeaderChecks {
  /** The members' `host:port`. */
  readonly hosts: readonly string[];
  hasLeader(host: string, timeoutMs: number): Promise<boolean | undefined>;
}

const leaderOf = (res: { leader?: string | number } | undefined): boolean => res?.leader !== undefined && String(res.leader) !== '0' && String(res.leader) !== '';
const noLeader = (err: unknown): false | undefined => (/etcdserver: no leader/.test(String((err as Error | undefined)?.message)) ? false : undefined);

function ownLeaderChecks(own: EtcdUnaryClient): LeaderChecks {
  return {
    hosts: own.hosts,
    hasLeader: (host, timeoutMs) => own.memberStatus(host, timeoutMs).then(leaderOf, noLeader),
  };
}

function poolLeaderChecks(pool: Pool): LeaderChecks {
  return {
    hosts: pool.hosts.map((h) => h.host),
    async hasLeader(host, timeoutMs) {
      let metadata: GrpcMetadataLike;
      let maintenance: MaintenanceServiceClient;
      try {
        metadata = await pool.authenticator.getMetadata();
        maintenance = pool.hosts.find((h) => h.host === host)!.getServiceClient('Maintenance') as MaintenanceServiceClient;
      } catch {
        return undefined;
      }
      return new Promise((resolve) => {
        maintenance.status({}, metadata, { deadline: Date.now() + timeoutMs }, (err, res) => resolve(err ? noLeader(err) : leaderOf(res)));
      });
    },
  };
}

/**
 * While any stream is registered, asks every member of the client, every `intervalMs`,
 * whether it has a leader (Maintenance.Status; the call carries `hasleader`, so a leaderless
 * member refuses it with "no leader", and one without the metadata answers leader 0). A check
 * that fails otherwise (timeout, connection refused) proves nothing: a dead connection ends
 * its streams by itself.
 *
 * The streams of a member without a leader are told to move only while another member has
 * one: during an election every member is leaderless for a moment, and a stream is better
 * left where it is (its member goes on once a leader is elected) than moved around. New
 * streams go to a member that had a leader at the last check (`preferredHost`).
 *
 * Circuit breakers are left alone: breakers open on every member during an election would
 * fail unary calls for their whole half-open delay.
 */
class LeaderMonitor {
  private readonly streams = new Map<string, Set<() => void>>();
  /** What the last check found per member: true/false, undefined when it could not tell. */
  private readonly known = new Map<string, boolean | undefined>();
  private checking = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly checks: LeaderChecks,
    private readonly intervalMs: number,
  ) {}

  /** Calls `onLeaderless` when `host` is found without a leader while another member has one; returns the unregister function. */
  add(host: string, onLeaderless: () => void): () => void {
    let set = this.streams.get(host);
    if (set === undefined) this.streams.set(host, (set = new Set()));
    set.add(onLeaderless);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.intervalMs);
      this.timer.unref();
    }
    return () => {
      const current = this.streams.get(host);
      current?.delete(onLeaderless);
      if (current?.size === 0) this.streams.delete(host);
      if (this.streams.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
        this.known.clear();
      }
    };
  }

  /** A member (at random) that had a leader at the last check; undefined when none is known to. */
  preferredHost(): string | undefined {
    const led = this.checks.hosts.filter((h) => this.known.get(h) === true);
    return led.length === 0 ? undefined : led[Math.floor(Math.random() * led.length)];
  }

  private tick(): void {
    if (this.checking) return;
    this.checking = true;
    const timeoutMs = Math.min(Math.max(this.intervalMs, 500), 2000);
    Promise.all(this.checks.hosts.map(async (host) => [host, await this.checks.hasLeader(host, timeoutMs)] as const))
      .then((results) => {
        for (const [host, leader] of results) this.known.set(host, leader);
        if (!results.some(([, leader]) => leader === true)) return;
        for (const [host, leader] of results) {
          if (leader !== false) continue;
          for (const onLeaderless of [...(this.streams.get(host) ?? [])]) onLeaderless();
        }
      })
      .finally(() => {
        this.checking = false;
      })
      .catch(() => undefined);
  }
}

/** One monitor per client and interval, for all of the client's streams. */
const monitors = new WeakMap<object, Map<number, LeaderMonitor>>();

function leaderMonitor(client: object, checks: () => LeaderChecks, intervalMs: number): LeaderMonitor {
  let byInterval = monitors.get(client);
  if (byInterval === undefined) monitors.set(client, (byInterval = new Map()));
  let monitor = byInterval.get(intervalMs);
  if (monitor === undefined) byInterval.set(intervalMs, (monitor = new LeaderMonitor(checks(), intervalMs)));
  return monitor;
}

/**
 * Opens a gRPC Watch stream as the etcd3 client's `watchClient.watch()` does, and says which
 * member it is on: on `preferred` when given (a member known to have a leader), else on a
 * member its pool picks (past members whose circuit breaker is open; any member when every
 * breaker is open). A stream error that says the connection failed (`isConnectionFailure`)
 * trips the member's breaker and resets its channels, as in etcd3; unlike etcd3, no other
 * error does (a status about this one stream), nor does a "no leader" refusal: the
 * connection is fine, and resetting it would also fail the unary calls in flight on it.
 */
async function openGrpcWatch(client: EtcdClient, preferredHost: string | undefined): Promise<{ stream: GrpcDuplex; host: string | undefined }> {
  const own = ownClientOf(client);
  if (own !== undefined) {
    const { call, host } = own.watch(preferredHost);
    return { stream: call as unknown as GrpcDuplex, host };
  }
  const etcd3 = client as Etcd3;
  const pool = poolOf(etcd3);
  if (pool === undefined) return { stream: (await etcd3.watchClient.watch()) as GrpcDuplex, host: undefined };
  const preferred = preferredHost !== undefined ? pool.hosts.find((h) => h.host === preferredHost) : undefined;
  const open = (host: PoolHost, service: unknown, metadata: GrpcMetadataLike) => {
    const stream = (service as WatchServiceClient).watch(metadata);
    stream.on('error', (err: Error) => {
      if ((stream as unknown as { writable?: boolean }).writable && isConnectionFailure(err) && !/etcdserver: no leader/.test(String(err?.message))) {
        pool.markFailed(host, err);
      }
    });
    return { stream, host: host.host };
  };
  if (preferred !== undefined) {
    try {
      return open(preferred, preferred.getServiceClient('Watch'), await pool.authenticator.getMetadata());
    } catch {
      // closed meanwhile: let the pool pick
    }
  }
  try {
    return await pool.withConnection('Watch', ({ resource, client: service, metadata }) => open(resource, service, metadata));
  } catch (err) {
    // Every member's breaker is open (unary calls were refused everywhere during an election,
    // say). A stream costs nothing to try: open it on any member; it fails fast if that is down.
    if (!isBrokenCircuitError(err)) throw err;
    const host = pool.hosts[Math.floor(Math.random() * pool.hosts.length)]!;
    return open(host, host.getServiceClient('Watch'), await pool.authenticator.getMetadata());
  }
}

/** The parts of grpc-js's duplex stream the etcd3 typings leave out. */
interface GrpcDuplex extends IDuplexStream<IWatchRequest, IWatchResponse> {
  pause?(): void;
  resume?(): void;
}

/**
 * Opens one etcd watch on a gRPC Watch stream of its own. The npm etcd3 client's watcher
 * cannot send progress requests, so this drives the raw stream: a create_request with
 * start_revision, prev_kv and progress_notify; progress_request on the same stream.
 *
 * Exactly one terminal handler (`onCompacted` or `onError`) is called unless `close` comes
 * first. The stream does not reconnect; callers decide (a watch resumes from its last
 * revision, a change feed reports the error so its consumer re-lists).
 *
 * Closing half-closes the stream before cancelling it, so that the etcd3 client does not
 * treat our own cancellation as a connection failure (which would reset its channels).
 *
 * With `leaderCheckIntervalMs`, a stream whose member is found without a leader ends with
 * Unreachable (see `LeaderMonitor`); the calls of a multi-member client carry `hasleader`
 * (client.ts), so etcd also cancels it by itself ("no leader"), but only after about three
 * election timeouts. A stream whose member has not confirmed the watch (etcd's `created`
 * reply, sent before any event) within `createTimeoutMs(leaderCheckIntervalMs)` ends with
 * Unreachable too: its member hangs, or took the stream in the middle of an election and sat
 * on it (seen in the local cluster for 5-8 s after a leader was cut off).
 */
export function openWatchStream(client: EtcdClient, request: WatchStreamRequest, handlers: WatchStreamHandlers): WatchStream {
  const keyText = request.key.toString();
  let stream: GrpcDuplex | undefined;
  let member: string | undefined;
  let unmonitor: (() => void) | undefined;
  let createTimer: NodeJS.Timeout | undefined;
  let watchId: string | undefined;
  let done = false;
  let paused = false;
  let progressWanted = false;

  const teardown = () => {
    unmonitor?.();
    unmonitor = undefined;
    if (createTimer !== undefined) clearTimeout(createTimer);
    createTimer = undefined;
    const s = stream;
    stream = undefined;
    if (!s) return;
    try {
      s.end();
      s.cancel();
    } catch {
      // already gone
    }
  };

  const fail = (err: StorageError) => {
    if (done) return;
    done = true;
    teardown();
    handlers.onError(err);
  };

  const compacted = (compactRevision: number) => {
    if (done) return;
    done = true;
    teardown();
    handlers.onCompacted(compactRevision);
  };

  const sendProgressRequest = () => {
    progressWanted = false;
    try {
      stream?.write({ progress_request: {} });
    } catch (err) {
      fail(toStorageError(err, keyText));
    }
  };

  const onResponse = (res: IWatchResponse) => {
    if (done) return;
    const headerRevision = revisionOf(res.header?.revision);
    const compactRevision = revisionOf(res.compact_revision);
    if (res.created && !res.canceled) {
      if (createTimer !== undefined) clearTimeout(createTimer);
      createTimer = undefined;
      watchId = res.watch_id;
      handlers.onCreated?.(headerRevision);
      if (progressWanted) sendProgressRequest();
      return;
    }
    if (compactRevision > 0) {
      compacted(compactRevision);
      return;
    }
    if (res.canceled) {
      const reason = res.cancel_reason || 'no reason given';
      fail(toStorageError(new Error(`etcd cancelled the watch: ${reason}`), keyText));
      return;
    }
    if (res.events.length > 0) {
      handlers.onEvents(res.events, headerRevision);
      return;
    }
    if (res.watch_id === watchId) handlers.onProgress(headerRevision, false);
    else if (res.watch_id === '-1') handlers.onProgress(headerRevision, true);
  };

  const guard = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      // A handler threw: the consumer cannot go on with this stream.
      fail(err instanceof StorageError ? err : new StorageError('Internal', keyText, String((err as Error)?.message ?? err), { cause: err }));
    }
  };

  const interval = request.leaderCheckIntervalMs ?? 0;
  const own = ownClientOf(client);
  const pool = own === undefined && isEtcd3(client) ? poolOf(client) : undefined;
  const monitor =
    interval <= 0 || memberCount(client) <= 1
      ? undefined
      : own !== undefined
        ? leaderMonitor(own, () => ownLeaderChecks(own), interval)
        : pool !== undefined
          ? leaderMonitor(client, () => poolLeaderChecks(pool), interval)
          : undefined;

  if (monitor !== undefined) {
    // Not while paused: the reply may wait, unread, behind the consumer's backpressure.
    const timeoutMs = createTimeoutMs(interval);
    const arm = () => {
      createTimer = setTimeout(() => {
        createTimer = undefined;
        if (paused) arm();
        else fail(new StorageError('Unreachable', keyText, `etcd is unreachable: member ${member ?? '(none yet)'} did not confirm the watch within ${timeoutMs} ms`));
      }, timeoutMs);
      createTimer.unref();
    };
    arm();
  }

  openGrpcWatch(client, monitor?.preferredHost()).then(
    ({ stream: opened, host }) => {
      if (done) {
        try {
          opened.end();
          opened.cancel();
        } catch {
          // already gone
        }
        return;
      }
      stream = opened;
      member = host;
      if (host !== undefined && monitor !== undefined) {
        unmonitor = monitor.add(host, () =>
          fail(new StorageError('Unreachable', keyText, `etcd is unreachable: member ${host} has no leader`)),
        );
      }
      opened.on('data', (res) => guard(() => onResponse(res)));
      opened.on('error', (err) => fail(toStorageError(err, keyText)));
      opened.on('end', () => fail(new StorageError('Unreachable', keyText, 'etcd is unreachable: the watch stream ended')));
      if (paused) stream.pause?.();
      const create: IWatchRequest['create_request'] = {
        key: request.key,
        start_revision: request.startRevision,
        prev_kv: request.prevKv,
        progress_notify: request.progressNotify,
      };
      if (request.rangeEnd) create.range_end = request.rangeEnd;
      try {
        opened.write({ create_request: create });
      } catch (err) {
        fail(toStorageError(err, keyText));
      }
    },
    (err: unknown) => fail(toStorageError(err, keyText)),
  );

  return {
    requestProgress() {
      if (done) return;
      if (stream && watchId !== undefined) sendProgressRequest();
      else progressWanted = true;
    },
    pause() {
      paused = true;
      stream?.pause?.();
    },
    resume() {
      paused = false;
      stream?.resume?.();
    },
    close() {
      if (done) return;
      done = true;
      teardown();
    },
    member: () => member,
  };
}
