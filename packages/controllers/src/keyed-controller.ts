/**
 * A reconcile loop over string keys, the shape of most of kube-controller-manager's
 * controllers: changes seen by the informer caches enqueue keys while a term lasts; each
 * dirty key is reconciled once per wake; a failed key is retried after a second.
 */
import type { KubeObject } from '@kapi/machinery';
import type { TermController } from './controller.js';
import type { ChangeSource } from './object-cache.js';

const RETRY_MS = 1000;

export interface KeyedControllerOptions {
  readonly caches: readonly ChangeSource[];
  /** The keys a change of `obj` concerns. */
  keysOf(obj: KubeObject, deleted: boolean): string[];
  /** Every key (a term's start, a re-list). */
  allKeys(): string[];
  reconcile(key: string): Promise<void>;
  onError(err: unknown): void;
  /** Every key again this often while a term lasts (kube's resync period); default never. */
  readonly resyncMs?: number;
}

/** A reconcile loop over keys: changes enqueue keys while a term lasts; each key is reconciled once per wake. */
export function keyedController(options: KeyedControllerOptions): TermController {
  const dirty = new Set<string>();
  let active = false;
  let wake: (() => void) | undefined;
  const timers = new Set<NodeJS.Timeout>();
  // A change that concerns no key (most do not) leaves the loop asleep.
  const enqueue = (keys: readonly string[]) => {
    if (!active || keys.length === 0) return;
    for (const key of keys) dirty.add(key);
    wake?.();
  };
  const unsubscribe = options.caches.map((cache) => cache.onChange((obj, deleted) => enqueue(obj === undefined ? options.allKeys() : options.keysOf(obj, deleted))));
  const synced = () => options.caches.every((c) => c.synced());
  return {
    synced,
    async run(term) {
      active = true;
      enqueue(options.allKeys());
      const resync = options.resyncMs !== undefined ? setInterval(() => enqueue(options.allKeys()), options.resyncMs) : undefined;
      term.addEventListener('abort', () => clearInterval(resync), { once: true });
      while (!term.aborted) {
        if (dirty.size === 0 || !synced()) {
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              term.removeEventListener('abort', done);
              resolve();
            };
            const timer = setTimeout(done, synced() ? 60_000 : 50);
            wake = done;
            term.addEventListener('abort', done, { once: true });
          });
          wake = undefined;
          continue;
        }
        const keys = [...dirty];
        dirty.clear();
        for (const key of keys) {
          if (term.aborted) break;
          try {
            await options.reconcile(key);
          } catch (err) {
            options.onError(err);
            const timer = setTimeout(() => {
              timers.delete(timer);
              enqueue([key]);
            }, RETRY_MS);
            timers.add(timer);
          }
        }
      }
      active = false;
      dirty.clear();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
    stop() {
      for (const u of unsubscribe) u();
      for (const timer of timers) clearTimeout(timer);
      return Promise.resolve();
    },
  };
}

