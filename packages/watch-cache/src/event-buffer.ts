import type { CacheEvent } from './cache-event.js';

export interface EventBufferOptions {
  /** Smallest capacity (kube: 100). */
  minCapacity: number;
  /** Largest capacity (kube: 100 * 1024). */
  maxCapacity: number;
  /** How long events should stay servable (kube: 75 s, the bookmark period plus a margin). */
  windowMs: number;
  now: () => number;
  /** Told of every capacity change (for metrics). */
  onResize?: (from: number, to: number) => void;
}

/**
 * The cache's ring buffer of recent events, sized by a time window as kube's is:
 * - full and the oldest event is younger than the window → capacity doubles (up to the max);
 * - full and the event a quarter of the capacity back from the newest is older than the
 *   window → capacity halves (down to the min), evicting the oldest events;
 * - otherwise the oldest event is evicted.
 * Events are in strictly increasing revision order.
 */
export class EventBuffer {
  private items: (CacheEvent | undefined)[];
  private start = 0;
  private count = 0;

  constructor(private readonly options: EventBufferOptions) {
    this.items = new Array<CacheEvent | undefined>(options.minCapacity);
  }

  get capacity(): number {
    return this.items.length;
  }

  get size(): number {
    return this.count;
  }

  /** The i-th buffered event, oldest first. */
  at(i: number): CacheEvent {
    return this.items[(this.start + i) % this.items.length]!;
  }

  oldest(): CacheEvent | undefined {
    return this.count === 0 ? undefined : this.at(0);
  }

  newest(): CacheEvent | undefined {
    return this.count === 0 ? undefined : this.at(this.count - 1);
  }

  /** Appends `event`; returns the events evicted to make room (oldest first). */
  push(event: CacheEvent): CacheEvent[] {
    let evicted: CacheEvent[] = [];
    if (this.count === this.items.length) {
      const now = this.options.now();
      const capacity = this.items.length;
      if (capacity < this.options.maxCapacity && now - this.at(0).recordTime < this.options.windowMs) {
        this.resize(Math.min(capacity * 2, this.options.maxCapacity));
      } else if (
        capacity > this.options.minCapacity &&
        now - this.at(this.count - Math.floor(capacity / 4)).recordTime > this.options.windowMs
      ) {
        const target = Math.max(Math.floor(capacity / 2), this.options.minCapacity);
        evicted = this.evict(this.count - target + 1);
        this.resize(target);
      } else {
        evicted = this.evict(1);
      }
    }
    this.items[(this.start + this.count) % this.items.length] = event;
    this.count++;
    return evicted;
  }

  /** The index of the first event with revision > `revision` (`size` when none). */
  firstAfter(revision: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Buffered events from index `from` on, oldest first (a copy of references). */
  slice(from: number): CacheEvent[] {
    const out: CacheEvent[] = [];
    for (let i = from; i < this.count; i++) out.push(this.at(i));
    return out;
  }

  /** Drops every event and returns to the minimum capacity. */
  clear(): void {
    const before = this.items.length;
    this.items = new Array<CacheEvent | undefined>(this.options.minCapacity);
    this.start = 0;
    this.count = 0;
    if (before !== this.items.length) this.options.onResize?.(before, this.items.length);
  }

  private evict(n: number): CacheEvent[] {
    const out: CacheEvent[] = [];
    for (let i = 0; i < n && this.count > 0; i++) {
      out.push(this.items[this.start]!);
      this.items[this.start] = undefined;
      this.start = (this.start + 1) % this.items.length;
      this.count--;
    }
    return out;
  }

  private resize(capacity: number): void {
    const before = this.items.length;
    const items = new Array<CacheEvent | undefined>(capacity);
    for (let i = 0; i < this.count; i++) items[i] = this.at(i);
    this.items = items;
    this.start = 0;
    if (before !== capacity) this.options.onResize?.(before, capacity);
  }
}
