import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Storage, Watch, WatchEvent, Watcher } from '../interface.js';
import { StorageError, type StorageErrorCode } from '../errors.js';
import type { RawStore } from './raw-store.js';

/** What each conformance test gets: the storage, a key prefix of its own, and raw access. */
export interface ConformanceContext {
  storage: Storage;
  /** Unique to this test; starts with "/" and has no trailing "/". */
  prefix: string;
  /** Present when the backend offers it; tests declared `raw` only run when it is. */
  raw?: RawStore;
  /** The storage's watch (when it implements `Watcher`); tests declared `watch` only run when it does. */
  watcher?: Watcher;
  /** How long the bookmark cases wait for a BOOKMARK on a quiet watch (ConformanceSetup.bookmarkTimeoutMs). */
  bookmarkTimeoutMs: number;
}

/** A conformance case. `raw` cases need `ConformanceContext.raw`; `watch` cases need `ConformanceContext.watcher`. */
export interface ConformanceCase {
  name: string;
  raw?: boolean;
  watch?: boolean;
  run(ctx: ConformanceContext): Promise<void>;
}

/** `<prefix>/configmaps/<namespace>/<name>`. */
export function keyFor(prefix: string, name: string, namespace = 'default', resource = 'configmaps'): string {
  return `${prefix}/${resource}/${namespace}/${name}`;
}

/** A ConfigMap-shaped test object. */
export function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: `uid-${name}` },
    data,
  };
}

/** Creates `names` under `<prefix>/configmaps/default/` and returns the stored objects. */
export async function createAll(ctx: ConformanceContext, names: string[], namespace = 'default'): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const name of names) out.push(await ctx.storage.create(keyFor(ctx.prefix, name, namespace), configMap(name)));
  return out;
}

export function namesOf(items: KubeObject[]): string[] {
  return items.map((item) => item.metadata.name ?? '');
}

/** Asserts that `promise` rejects with a StorageError of `code` (and, if given, `message`). */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: StorageErrorCode,
  message?: string | RegExp,
): Promise<StorageError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, `expected a StorageError ${code}, but the call succeeded`);
  assert.ok(caught instanceof StorageError, `expected a StorageError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, `expected ${code}, got ${caught.code}: ${caught.message}`);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}

/** The raw store, which `raw` cases may rely on. */
export function rawOf(ctx: ConformanceContext): RawStore {
  assert.ok(ctx.raw, 'this case needs raw store access');
  return ctx.raw;
}

/** The storage's watch, which `watch` cases may rely on. */
export function watcherOf(ctx: ConformanceContext): Watcher {
  assert.ok(ctx.watcher, 'this case needs a storage that implements Watcher');
  return ctx.watcher;
}

/**
 * Reads a watch one event at a time with a deadline per event. A read that times out stays
 * pending and is picked up by the next call, so no event is lost between calls.
 */
export class EventReader {
  private readonly iterator: AsyncIterator<WatchEvent>;
  private pending: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(readonly watch: Watch) {
    this.iterator = watch[Symbol.asyncIterator]();
  }

  /** The next event, `'done'` when the stream ended, or `'timeout'`. */
  async next(timeoutMs = 5000): Promise<WatchEvent | 'done' | 'timeout'> {
    this.pending ??= this.iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([this.pending, timedOut]);
    clearTimeout(timer);
    if (result === 'timeout') return result;
    this.pending = undefined;
    return result.done ? 'done' : result.value;
  }

  /** The next event, failing the test when the stream ends or nothing comes within `timeoutMs`. */
  async expectEvent(timeoutMs = 5000): Promise<WatchEvent> {
    const event = await this.next(timeoutMs);
    assert.ok(event !== 'done', 'the watch ended while an event was expected');
    assert.ok(event !== 'timeout', `no watch event within ${timeoutMs} ms`);
    return event;
  }

  /** The next `n` events. */
  async take(n: number, timeoutMs = 5000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    while (out.length < n) out.push(await this.expectEvent(timeoutMs));
    return out;
  }

  /** The next event that is not a BOOKMARK. */
  async nextChange(timeoutMs = 5000): Promise<WatchEvent> {
    for (;;) {
      const event = await this.expectEvent(timeoutMs);
      if (event.type !== 'BOOKMARK') return event;
    }
  }

  /** The next BOOKMARK, skipping changes. */
  async nextBookmark(timeoutMs: number): Promise<WatchEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await this.expectEvent(Math.max(1, deadline - Date.now()));
      if (event.type === 'BOOKMARK') return event;
    }
  }

  /** Asserts that the stream ends (after at most `timeoutMs`). */
  async expectDone(timeoutMs = 5000): Promise<void> {
    const event = await this.next(timeoutMs);
    assert.equal(event, 'done', `expected the watch to end, got ${typeof event === 'string' ? event : event.type}`);
  }

  stop(): void {
    this.watch.stop();
  }
}
