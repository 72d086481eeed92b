import type { Watch, WatchEvent } from './interface.js';

export interface WatchQueueOptions {
  /** How many undelivered events the queue holds before it reports itself full; default 100. */
  capacity?: number;
  /** The queue reached `capacity`: the producer should stop producing (e.g. pause its stream). */
  onFull?: () => void;
  /** A full queue drained to half its capacity: the producer may go on. */
  onDrain?: () => void;
  /** Called once when the watch ends for any reason (stop, abort, the consumer breaking out of its loop, the end of the events). */
  onClose?: () => void;
  /** Aborting stops the watch. */
  signal?: AbortSignal;
}

/**
 * A `Watch` fed by a producer: an async iterable of events with a bounded queue for one
 * consumer. `push` never drops an event; it returns false once the queue holds `capacity`
 * events (and fires `onFull` once), so the producer can pause until `onDrain` (or
 * `waitForRoom`). `finish` ends the stream after the queued events; `stop` (also the abort
 * signal and the consumer's `break`) ends it at once and drops what is queued.
 */
export class WatchQueue implements Watch {
  private readonly buffer: WatchEvent[] = [];
  private readonly capacity: number;
  private readonly options: WatchQueueOptions;
  private waiting: ((result: IteratorResult<WatchEvent>) => void) | undefined;
  private roomWaiters: Array<() => void> = [];
  private full = false;
  private finished = false;
  private closed = false;
  private readonly abortListener: (() => void) | undefined;

  constructor(options: WatchQueueOptions = {}) {
    this.options = options;
    this.capacity = Math.max(1, options.capacity ?? 100);
    const signal = options.signal;
    if (signal) {
      this.abortListener = () => this.stop();
      if (signal.aborted) queueMicrotask(this.abortListener);
      else signal.addEventListener('abort', this.abortListener, { once: true });
    }
  }

  /** Whether the watch has ended (nothing more will be delivered). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** How many events wait for the consumer. */
  get size(): number {
    return this.buffer.length;
  }

  /** Queues `event`. Returns false when the queue is now full (the event is kept). Ignored after `finish`/`stop`. */
  push(event: WatchEvent): boolean {
    if (this.closed || this.finished) return false;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
      return true;
    }
    this.buffer.push(event);
    if (this.buffer.length >= this.capacity) {
      if (!this.full) {
        this.full = true;
        this.options.onFull?.();
      }
      return false;
    }
    return true;
  }

  /** Resolves once the queue has room (or the watch ended). */
  waitForRoom(): Promise<void> {
    if (this.closed || this.buffer.length < this.capacity) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** No more events: the iterator ends once the queued ones are consumed. */
  finish(): void {
    if (this.closed || this.finished) return;
    this.finished = true;
    if (this.buffer.length === 0) this.close();
  }

  /** Ends the watch now; queued events are dropped. Idempotent. */
  stop(): void {
    this.buffer.length = 0;
    this.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.buffer.shift();
    if (event !== undefined) {
      this.afterTake();
      return Promise.resolve({ value: event, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    if (this.waiting) return Promise.reject(new Error('a watch has one consumer; next() called while another is pending'));
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private afterTake(): void {
    if (this.finished && this.buffer.length === 0) {
      this.close();
      return;
    }
    if (this.buffer.length < this.capacity) this.releaseRoomWaiters();
    if (this.full && this.buffer.length <= this.capacity / 2) {
      this.full = false;
      this.options.onDrain?.();
    }
  }

  private releaseRoomWaiters(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.finished = true;
    if (this.abortListener) this.options.signal?.removeEventListener('abort', this.abortListener);
    this.releaseRoomWaiters();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.options.onClose?.();
  }
}
