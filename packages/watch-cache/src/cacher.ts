import type { KubeObject } from '@kapi/machinery';
import type { Change, ChangeFeed, FeedHandle, Predicate, Storage, WatchEvent } from '@kapi/storage';
import { isStorageError } from '@kapi/storage';
import { CacheEvent } from './cache-event.js';
import { CacheWatcher, bookmarkEvent } from './cache-watcher.js';
import { EventBuffer } from './event-buffer.js';
import { ObjectIndex, WatcherIndex } from './field-index.js';
import { listAll } from './initial-list.js';
import { listPrefix } from './cache-list.js';
import type { CacheMetrics } from './metrics.js';
import { defaultWatcherQueueSize, type ResolvedOptions } from './options.js';
import { SortedMap } from './sorted-map.js';
import { RevisionWaiters } from './revision-waiters.js';

/** kube sends a watch's last bookmark this long before its deadline. */
const BOOKMARK_BEFORE_DEADLINE_MS = 2000;

/** The cache's objects at one revision. */
export interface CacheState {
  readonly map: SortedMap<KubeObject>;
  readonly revision: number;
}

export type FeedBackend = Storage & ChangeFeed;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * One resource's cache (kube's Cacher): the objects under `prefix` ordered by key, kept
 * current by the backend's change feed after a paged list; a snapshot per revision for Exact
 * and continue reads (trimmed with buffer evictions and at the compacted revision); the ring
 * buffer of recent events; the registered watchers.
 *
 * `revision` is the newest revision the cache is known to reflect exactly: it advances with
 * events and with trusted progress reports, never from `confirmUnchanged` (a confirmation
 * only lets one read answer "as of" a later revision).
 *
 * When the feed fails for good, every watcher is ended (clients re-watch from their last
 * revision), the cache is marked not ready and re-lists (retrying every `relistIntervalMs`).
 */
export class Cacher {
  /** The resource's key prefix (no trailing "/"). */
  readonly prefix: string;
  readonly name: string;
  map = SortedMap.empty<KubeObject>();
  revision = 0;
  /** Bumped on every (re-)initialization; a feed callback of an older generation is ignored. */
  generation = 0;
  readonly buffer: EventBuffer;
  /** The revision and state of the last list, while no event has been evicted since. */
  private listState: CacheState | undefined;
  private evictedSinceList = false;
  /** The last state a confirmation proved current at a later revision (serves Exact reads at it). */
  private confirmed: CacheState | undefined;
  /** The newest revision a confirmation proved the cache's state current at (for error messages). */
  private proven = 0;
  private ready = false;
  private everReady = false;
  private closed = false;
  private feed: FeedHandle | undefined;
  private progressTrusted = false;
  private lastWrite = 0;
  private readonly watchers = new Map<string, Set<CacheWatcher>>();
  /** Watchers with an index hint (e.g. pods by spec.nodeName), found by the changed object's value instead of by scope. */
  private readonly indexedWatchers = new WatcherIndex<CacheWatcher>();
  /** The current map's keys by indexed field value, for lists with an index hint. */
  private readonly objectIndex = new ObjectIndex();
  private readonly waiters: RevisionWaiters;
  private readyWaiters: (() => void)[] = [];
  private readonly tickTimer: NodeJS.Timeout;
  private lastBookmark: WatchEvent | undefined;

  constructor(
    prefix: string,
    name: string,
    readonly backend: FeedBackend,
    readonly options: ResolvedOptions,
    readonly metrics: CacheMetrics,
  ) {
    this.prefix = prefix;
    this.name = name;
    this.buffer = new EventBuffer({ ...options.history, now: options.now, onResize: (from, to) => metrics.capacity(from, to) });
    metrics.capacity(0, this.buffer.capacity);
    this.waiters = new RevisionWaiters(() => this.revision, options.progressRequestIntervalMs);
    this.tickTimer = setInterval(() => this.tick(), options.tickMs);
    this.tickTimer.unref();
    void this.initialize(this.generation);
  }

  private lastListError: string | undefined;

  get isReady(): boolean {
    return this.ready;
  }

  /** Why the last (re-)list failed, while the cache is not ready; undefined otherwise. */
  get initializationError(): string | undefined {
    return this.ready ? undefined : this.lastListError;
  }

  /** Whether `key` belongs to this cache: the prefix itself or anything under it. */
  covers(key: string): boolean {
    return key === this.prefix || key.startsWith(`${this.prefix}/`);
  }

  /** Resolves when the cache is ready (at once if it is). */
  whenReady(): Promise<void> {
    if (this.ready || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /**
   * Whether the cache can serve: ready, or (before its first initialization only) ready within
   * `initialReadyWaitMs`. A re-initializing cache answers at once.
   */
  async readyForRequest(): Promise<boolean> {
    if (this.ready) return true;
    if (this.everReady || this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.whenReady(), new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.initialReadyWaitMs)))]);
    clearTimeout(timer);
    return this.ready;
  }

  current(): CacheState {
    return { map: this.map, revision: this.revision };
  }

  /** A cached copy for a write to start from (the backend re-reads it if it proves stale). */
  cachedObject(key: string): KubeObject | undefined {
    return this.ready ? this.map.get(key) : undefined;
  }

  /** What `anyState()` would show at once for `key` (ready, no own write pending); else undefined. */
  settledObject(key: string): KubeObject | undefined {
    if (!this.ready || (this.options.readYourWrites && this.lastWrite > this.revision)) return undefined;
    return this.map.get(key);
  }

  /** The cached object of `key` when the cache holds its value as written at `revision`; else undefined. */
  cachedAt(key: string, revision: number): KubeObject | undefined {
    if (!this.ready) return undefined;
    const obj = this.map.get(key);
    return obj !== undefined && obj.metadata.resourceVersion === String(revision) ? obj : undefined;
  }

  /** A write through this cache committed at `revision` (for read-your-writes on RV="0" reads). */
  noteWrite(revision: number): void {
    if (revision > this.lastWrite) this.lastWrite = revision;
  }

  /** The state for an RV="0" read: as it is, after waiting briefly for this replica's own writes. */
  async anyState(): Promise<CacheState> {
    if (this.options.readYourWrites && this.lastWrite > this.revision) {
      await this.waitForRevision(this.lastWrite, this.options.waitTimeoutMs);
    }
    return this.current();
  }

  /**
   * A state not older than `target`: the cache once it reaches `target` or, when progress
   * requests are not trusted, the cache's state proven unchanged up to a revision >= `target`
   * by `confirmUnchanged` (a quiet resource on a busy etcd). Undefined when neither happens
   * within `timeoutMs`.
   *
   * Untrusted path: first wait for this replica's own writes (their events are surely on the
   * way), then confirm; when the backend reports changes the cache has not seen yet, wait for
   * the cache to move and confirm again (pausing longer each time the proof falls short).
   */
  async freshState(target: number, timeoutMs: number): Promise<CacheState | undefined> {
    const started = process.hrtime.bigint();
    try {
      return await this.waitFresh(target, timeoutMs);
    } finally {
      this.metrics.readWait(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private async waitFresh(target: number, timeoutMs: number): Promise<CacheState | undefined> {
    // Read-your-writes here too: a NotOlderThan read whose target the cache has passed still
    // waits (briefly) for this replica's own acknowledged writes, as RV="0" reads do.
    if (this.options.readYourWrites && this.lastWrite > this.revision && this.revision >= target) {
      await this.waitForRevision(this.lastWrite, Math.min(timeoutMs, this.options.waitTimeoutMs));
      return this.current();
    }
    if (this.revision >= target) return this.current();
    if (this.progressTrusted) {
      return (await this.waitForRevision(target, timeoutMs)) ? this.current() : undefined;
    }
    const now = this.options.now;
    const deadline = now() + timeoutMs;
    if (this.lastWrite > this.revision && (await this.waitForRevision(Math.min(this.lastWrite, target), timeoutMs)) && this.revision >= target) {
      return this.current();
    }
    let pause = this.options.progressRequestIntervalMs;
    while (now() < deadline) {
      if (this.revision >= target) return this.current();
      const state = this.current();
      const generation = this.generation;
      let proof: { unchanged: boolean; revision: number } | undefined;
      if (this.ready) {
        try {
          proof = await this.backend.confirmUnchanged(this.prefix, state.revision, state.map.size);
        } catch {
          proof = undefined;
        }
      }
      if (this.revision >= target) return this.current();
      const valid = proof !== undefined && generation === this.generation;
      if (valid && proof!.unchanged) {
        if (state.revision === this.revision) this.proven = Math.max(this.proven, proof!.revision);
        if (proof!.revision >= target) return (this.confirmed = { map: state.map, revision: proof!.revision });
      }
      const remaining = deadline - now();
      if (remaining <= 0) break;
      if (valid && !proof!.unchanged) {
        // Changes are in flight: confirm again once the cache has moved.
        await this.waitForRevision(Math.min(state.revision + 1, target), Math.min(remaining, pause));
      } else {
        // The target is beyond the backend (or it could not be asked): wait a while.
        await this.waitForRevision(target, Math.min(remaining, pause));
      }
      pause *= 2;
    }
    return this.revision >= target ? this.current() : undefined;
  }

  /** Whether progress replies are ordered after earlier events (etcd >= 3.4.31 / 3.5.13), so a wait for a revision ends by progress alone. */
  trustsProgress(): boolean {
    return this.progressTrusted;
  }

  /**
   * Whether a state not older than `target` would have to be proven by `confirmUnchanged` —
   * progress reports are not trusted, and neither the cache nor this replica's own writes in
   * flight reach `target` — which reads every key of the prefix in etcd (a range filtered by
   * mod revision is not limited before the filter).
   */
  provenByReading(target: number): boolean {
    return !this.progressTrusted && this.revision < target && !(this.options.readYourWrites && this.lastWrite >= target);
  }

  /** The revision to report as current in a TooLargeResourceVersion error. */
  knownRevision(): number {
    return Math.max(this.revision, this.proven);
  }

  /** The state at exactly `revision`, if a snapshot still holds it. */
  snapshotAt(revision: number): CacheState | undefined {
    if (!this.ready || revision > this.revision) {
      return this.confirmed?.revision === revision ? this.confirmed : undefined;
    }
    const compacted = this.backend.compactedRevision();
    if (revision < compacted) return undefined;
    const index = this.buffer.firstAfter(revision) - 1;
    if (index >= 0) {
      const map = this.buffer.at(index).snapshot;
      return map === undefined ? undefined : { map, revision };
    }
    const list = this.listState;
    if (list !== undefined && !this.evictedSinceList && revision >= list.revision) return { map: list.map, revision };
    return undefined;
  }

  /**
   * A watch can resume from this revision minus one: the first revision after the last list
   * while nothing was evicted, else the oldest buffered event — and never from before the
   * backend's compacted revision (etcd would refuse it too).
   */
  oldestServableRevision(): number {
    const buffered = this.evictedSinceList ? (this.buffer.oldest()?.revision ?? this.revision + 1) : (this.listState?.revision ?? this.revision) + 1;
    return Math.max(buffered, this.backend.compactedRevision());
  }

  /** Resolves true once the cache reaches `target`, false after `timeoutMs`. */
  waitForRevision(target: number, timeoutMs: number): Promise<boolean> {
    return this.waiters.wait(target, timeoutMs);
  }

  /** Registers a watcher for live events and bookmarks; it unregisters itself when it closes. */
  register(watcher: CacheWatcher): void {
    watcher.nextBookmarkAt = this.nextBookmarkTime(watcher);
    const index = watcher.predicate.index;
    if (index !== undefined) {
      this.indexedWatchers.add(index, watcher);
      return;
    }
    let set = this.watchers.get(watcher.scope);
    if (set === undefined) this.watchers.set(watcher.scope, (set = new Set()));
    set.add(watcher);
  }

  unregister(watcher: CacheWatcher): void {
    const index = watcher.predicate.index;
    if (index !== undefined) {
      this.indexedWatchers.remove(index, watcher);
      return;
    }
    const set = this.watchers.get(watcher.scope);
    set?.delete(watcher);
    if (set?.size === 0) this.watchers.delete(watcher.scope);
  }

  /**
   * The sorted keys a list of `state` with `predicate` needs to look at, when the predicate
   * has an index hint and `state` is the current map (the only one indexed); else undefined
   * (scan everything).
   */
  indexedCandidates(state: CacheState, predicate: Predicate): string[] | undefined {
    const hint = predicate.index;
    if (hint === undefined || state.map !== this.map || !this.ready) return undefined;
    return this.objectIndex.keysFor(state.map, hint);
  }

  watcherQueueSize(): number {
    return this.options.watcherQueueSize ?? defaultWatcherQueueSize(this.buffer.capacity);
  }

  /** The scope a watch of `key` has: a prefix ending in "/" for a recursive watch, else the key. */
  scopeOf(key: string, recursive: boolean): string {
    return recursive ? listPrefix(key) : key;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ready = false;
    this.generation++;
    clearInterval(this.tickTimer);
    this.feed?.close();
    this.feed = undefined;
    for (const watcher of this.allWatchers()) watcher.close(false);
    this.waiters.close();
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  private async initialize(generation: number): Promise<void> {
    const started = process.hrtime.bigint();
    while (!this.closed && generation === this.generation) {
      try {
        // The trust check (an etcd version probe, once per process) and the list are
        // independent: the list does not wait for the probe's round trip.
        const [trusted, state] = await Promise.all([this.backend.progressRequestsTrusted(), listAll(this.backend, this.prefix, this.options.listPageSize)]);
        if (this.closed || generation !== this.generation) return;
        this.progressTrusted = trusted;
        this.map = state.map;
        this.revision = state.revision;
        this.listState = state;
        this.evictedSinceList = false;
        this.confirmed = undefined;
        this.proven = 0;
        this.lastBookmark = undefined;
        this.objectIndex.reset();
        this.buffer.clear();
        this.feed = this.backend.feed(this.prefix, state.revision, {
          onChanges: (changes) => {
            if (generation === this.generation) this.apply(changes);
          },
          onProgress: (revision) => {
            if (generation === this.generation) this.advance(revision);
          },
          onError: (err) => {
            if (generation === this.generation) this.reinitialize(err);
          },
        });
        this.waiters.setProgressRequester(trusted ? () => this.feed?.requestProgress() : undefined);
        this.ready = true;
        this.everReady = true;
        this.metrics.initialization();
        this.metrics.initEvents(state.map.size);
        this.metrics.initializationDuration(Number(process.hrtime.bigint() - started) / 1e9);
        this.metrics.resourceVersion(this.revision);
        for (const resolve of this.readyWaiters.splice(0)) resolve();
        this.wakeWaiters();
        return;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.lastListError = isStorageError(err, 'Corrupt') ? `unable to decode stored object at ${err.key}: ${message}` : message;
        this.metrics.initializationError();
        this.options.logger.warn(`watch cache ${this.name}: initial list failed, retrying in ${this.options.relistIntervalMs}ms: ${String(err instanceof Error ? err.message : err)}`);
        await sleep(this.options.relistIntervalMs);
      }
    }
  }

  private reinitialize(err: Error): void {
    this.options.logger.warn(`watch cache ${this.name}: the change feed failed (${err.message}); terminating all watchers and re-listing`);
    this.ready = false;
    this.generation++;
    this.feed?.close();
    this.feed = undefined;
    this.waiters.setProgressRequester(undefined);
    for (const watcher of this.allWatchers()) watcher.close(false);
    this.buffer.clear();
    this.listState = undefined;
    this.confirmed = undefined;
    void this.initialize(this.generation);
  }

  private apply(changes: readonly Change[]): void {
    const now = this.options.now();
    for (const change of changes) {
      // Changes of one etcd transaction share a revision; anything older was applied already.
      if (change.revision < this.revision) continue;
      const prev = this.map.get(change.key) ?? change.prevObject;
      this.map = change.type === 'put' ? this.map.set(change.key, change.object) : this.map.delete(change.key);
      this.objectIndex.update(change.key, change.type === 'put' ? change.object : undefined, prev, this.map);
      const event = new CacheEvent(change.type, change.key, change.object, prev, change.revision, now, this.map);
      for (const evicted of this.buffer.push(event)) {
        evicted.snapshot = undefined;
        this.evictedSinceList = true;
        this.listState = undefined;
      }
      this.revision = change.revision;
      this.metrics.eventsReceived();
      this.dispatch(event);
    }
    this.metrics.resourceVersion(this.revision);
    this.wakeWaiters();
  }

  /** Trusted progress: everything up to `revision` has been delivered. */
  private advance(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    this.metrics.resourceVersion(revision);
    this.wakeWaiters();
  }

  /** Offers `event` to the watchers whose scope holds its key: the key itself and each prefix. */
  private dispatch(event: CacheEvent): void {
    let offered = 0;
    const offer = (set: Set<CacheWatcher> | undefined) => {
      if (set === undefined) return;
      for (const watcher of set) watcher.dispatch(event);
      offered += set.size;
    };
    offer(this.watchers.get(event.key));
    for (let i = event.key.indexOf('/', this.prefix.length); i >= 0; i = event.key.indexOf('/', i + 1)) {
      offer(this.watchers.get(event.key.slice(0, i + 1)));
    }
    if (this.indexedWatchers.size > 0) {
      offered += this.indexedWatchers.forCandidates(event.object, event.prevObject, (watcher) => watcher.dispatch(event));
    }
    if (offered > 0) this.metrics.eventsDispatched(offered);
  }

  private wakeWaiters(): void {
    this.waiters.wake();
  }

  private *allWatchers(): Generator<CacheWatcher> {
    for (const set of [...this.watchers.values()]) yield* [...set];
    yield* [...this.indexedWatchers.all()];
  }

  /**
   * kube's schedule: the next bookmark is due after about one period, but no later than 2 s
   * before the watch's deadline; none once that moment has passed.
   */
  private nextBookmarkTime(watcher: CacheWatcher): number {
    const now = this.options.now();
    const periodic = now + this.options.bookmarkIntervalMs * (0.9 + Math.random() * 0.2);
    if (watcher.deadline === undefined) return periodic;
    const last = watcher.deadline - BOOKMARK_BEFORE_DEADLINE_MS;
    if (last <= now) return Infinity;
    return Math.min(periodic, last);
  }

  /** Periodic work: due bookmarks, and dropping snapshots older than the compacted revision. */
  private tick(): void {
    if (!this.ready) return;
    const now = this.options.now();
    for (const watcher of this.allWatchers()) {
      if (!watcher.allowBookmarks || now < watcher.nextBookmarkAt) continue;
      const last = watcher.deadline !== undefined && now >= watcher.deadline - BOOKMARK_BEFORE_DEADLINE_MS;
      watcher.nextBookmarkAt = this.nextBookmarkTime(watcher);
      if (this.lastBookmark?.revision !== this.revision) this.lastBookmark = bookmarkEvent(this.revision);
      watcher.bookmark(this.lastBookmark, last);
    }
    this.trimCompacted(this.backend.compactedRevision());
  }

  /** Frees snapshots that only serve revisions below `compacted` (such reads go to the backend). */
  private trimCompacted(compacted: number): void {
    if (compacted <= 0) return;
    if (this.listState !== undefined && (this.buffer.oldest()?.revision ?? Infinity) <= compacted) this.listState = undefined;
    if (this.confirmed !== undefined && this.confirmed.revision < compacted) this.confirmed = undefined;
    // Event i's snapshot serves [its revision, the next event's revision).
    for (let i = this.buffer.firstAfter(compacted) - 2; i >= 0; i--) {
      const event = this.buffer.at(i);
      if (event.snapshot === undefined) break;
      event.snapshot = undefined;
    }
  }
}
