/**
 * A reflector over one RestResource (client-go's ListAndWatch, in process): lists every
 * object (resourceVersion "0", so the watch cache answers; `initialListResourceVersion: ""`
 * makes the first list consistent), hands the list to `onList`,
 * then watches from the list's resourceVersion with bookmarks and hands each
 * ADDED/MODIFIED/DELETED event to `onEvent`. A watch that ends is resumed from the last
 * resourceVersion seen (events and bookmarks); an ERROR event (410 Expired: the
 * resourceVersion was compacted or fell out of the cache's window) or a failed call makes
 * it list again — after an expiry with a consistent (quorum) list, as client-go does — and
 * `onList` gets the complete state, which the consumer reconciles with what it holds
 * (objects missing from it were deleted meanwhile). `synced` is true once the first list
 * has been handed over. Handlers are synchronous and must not throw.
 */
import type { KubeObject } from '@kapi/machinery';
import type { RestResource } from '../rest.js';
import { sleep } from './sleep.js';

export interface InformerHandlers {
  onList(items: readonly KubeObject[]): void;
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void;
}

export interface Informer {
  readonly resource: RestResource;
  /** True once the first list was delivered. */
  synced(): boolean;
  /** How many times it listed (1 after the first list; more after expiries). */
  readonly lists: number;
  stop(): Promise<void>;
}

export interface InformerOptions {
  readonly userAgent: string;
  /** Backoff after a failed list or watch start; default 200 ms doubling to 5 s. */
  readonly retryDelayMs?: number;
  /**
   * The resourceVersion of the first list: default "0" (the watch cache's current state);
   * "" for a consistent (quorum) list, so that everything stored before the start is in it.
   */
  readonly initialListResourceVersion?: string;
  /** Called with each failed list or watch (they are retried); not called once stopping. */
  readonly onError?: (err: unknown) => void;
}

export function startInformer(resource: RestResource, handlers: InformerHandlers, options: InformerOptions): Informer {
  const { lister, watcher } = resource;
  if (lister === undefined || watcher === undefined) throw new Error(`${resource.definition.plural} cannot be listed and watched`);
  const ctx = { namespace: '', userAgent: options.userAgent };
  const stopping = new AbortController();
  let hasSynced = false;
  let lists = 0;

  const loop = (async () => {
    let resourceVersion = '';
    let listFrom = options.initialListResourceVersion ?? '0';
    let delay = options.retryDelayMs ?? 200;
    const backoff = async (): Promise<void> => {
      await sleep(delay, stopping.signal);
      delay = Math.min(delay * 2, 5000);
    };
    while (!stopping.signal.aborted) {
      if (resourceVersion === '') {
        try {
          const list = await lister.list(ctx, { resourceVersion: listFrom });
          if (stopping.signal.aborted) return;
          resourceVersion = list.metadata.resourceVersion ?? '';
          lists++;
          handlers.onList(list.items);
          hasSynced = true;
        } catch (err) {
          if (!stopping.signal.aborted) options.onError?.(err);
          await backoff();
          continue;
        }
      }
      let watch;
      try {
        watch = await watcher.watch(ctx, { resourceVersion, allowWatchBookmarks: true, signal: stopping.signal });
      } catch (err) {
        if (!stopping.signal.aborted) options.onError?.(err);
        await backoff();
        continue;
      }
      let events = 0;
      try {
        for await (const event of watch) {
          events++;
          if (event.type === 'ERROR') {
            // Expired (or any other in-band failure): list again, consistently.
            resourceVersion = '';
            listFrom = '';
            break;
          }
          const obj = event.object as KubeObject;
          const rv = obj.metadata?.resourceVersion;
          if (typeof rv === 'string' && rv !== '') resourceVersion = rv;
          if (event.type !== 'BOOKMARK') handlers.onEvent(event.type, obj);
        }
      } catch (err) {
        if (!stopping.signal.aborted) options.onError?.(err);
        events = 0;
      } finally {
        watch.stop();
      }
      // A watch that failed or ended at once is not retried in a tight loop.
      if (events === 0 && resourceVersion !== '') await backoff();
      else delay = options.retryDelayMs ?? 200;
    }
  })();

  return {
    resource,
    synced: () => hasSynced,
    get lists() {
      return lists;
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
