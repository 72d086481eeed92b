/**
 * A client-go style informer (its reflector), reduced to what the restart scenario measures:
 * LIST (resourceVersion=0 the first time), then WATCH from the list's resourceVersion with
 * bookmarks. A watch that times out cleanly is re-opened at once from the last
 * resourceVersion; a broken one (server gone) makes the reflector back off and LIST again at
 * the last resourceVersion it synced, then watch; a 410 Gone (HTTP or an ERROR event) makes it
 * LIST with resourceVersion unset. Failed attempts back off as client-go's reflector does:
 * 800 ms doubling to 30 s, jitter 1.0.
 */
import type { Dispatcher } from 'undici';
import { authHeaders, poolFor } from './target.js';

export interface InformerStats {
  /** Lists done (the first one included). */
  lists: number;
  /** Watches that answered 200. */
  watches: number;
  /** 410 Gone answers (HTTP or ERROR event) that forced a relist. */
  gone: number;
  /** Failed attempts (connection refused, 5xx, 429…). */
  failures: number;
  /** Watch streams that ended or broke after they were established. */
  broken: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

interface ListBody {
  metadata?: { resourceVersion?: string };
  items?: unknown[];
}

/** One informer on a collection path (e.g. `/api/v1/namespaces/x/configmaps`). */
export class Informer {
  readonly stats: InformerStats = { lists: 0, watches: 0, gone: 0, failures: 0, broken: 0 };
  /** Items of the last list. */
  items = 0;
  /** performance.now() when the current watch was established (undefined while not watching). */
  watchingSince: number | undefined;
  /** Called each time a watch is established (after a list or a resume). */
  onWatching: ((informer: Informer) => void) | undefined;
  /** Called for each non-bookmark event with its resourceVersion and arrival time. */
  onEvent: ((resourceVersion: number, arrival: number) => void) | undefined;
  private resourceVersion = '';
  private readonly controller = new AbortController();
  private readonly pool: Dispatcher;
  private readonly headers: Record<string, string>;
  private running: Promise<void> | undefined;

  constructor(
    url: string,
    private readonly path: string,
    pool?: Dispatcher,
  ) {
    this.pool = pool ?? poolFor(url, 2);
    this.headers = { accept: 'application/json', ...authHeaders(url) };
  }

  /** Starts the list/watch loop; resolves once the first watch is established. */
  start(): Promise<void> {
    return new Promise((resolve) => {
      const first = this.onWatching;
      this.onWatching = (i) => {
        this.onWatching = first;
        first?.(i);
        resolve();
      };
      this.running = this.loop();
    });
  }

  /** Stops the loop and the current watch. */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.running;
  }

  private async list(mode: 'zero' | 'last' | 'consistent'): Promise<void> {
    const rv = mode === 'zero' ? '&resourceVersion=0' : mode === 'last' && this.resourceVersion !== '' ? `&resourceVersion=${this.resourceVersion}` : '';
    const res = await this.pool.request({ method: 'GET', path: `${this.path}?limit=0${rv}`, headers: this.headers, signal: this.controller.signal });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new HttpError(res.statusCode, text);
    const body = JSON.parse(text) as ListBody;
    this.items = body.items?.length ?? 0;
    this.resourceVersion = body.metadata?.resourceVersion ?? '';
    this.stats.lists++;
  }

  /** One watch from `resourceVersion`; resolves when it ends (returns 'gone' after a 410). */
  private async watch(): Promise<'ended' | 'broken' | 'gone'> {
    const res = await this.pool.request({
      method: 'GET',
      path: `${this.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.resourceVersion}`,
      headers: this.headers,
      signal: this.controller.signal,
    });
    if (res.statusCode === 410) {
      await res.body.dump();
      return 'gone';
    }
    if (res.statusCode !== 200) throw new HttpError(res.statusCode, await res.body.text());
    this.stats.watches++;
    this.watchingSince = performance.now();
    this.onWatching?.(this);
    let pending = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const arrival = performance.now();
        pending += chunk.toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.trim() === '') continue;
          const event = JSON.parse(line) as { type: string; object?: { code?: number; metadata?: { resourceVersion?: string } } };
          if (event.type === 'ERROR') return event.object?.code === 410 ? 'gone' : 'ended';
          const rv = event.object?.metadata?.resourceVersion;
          if (rv !== undefined) this.resourceVersion = rv;
          if (event.type !== 'BOOKMARK' && rv !== undefined) this.onEvent?.(Number(rv), arrival);
        }
      }
    } catch {
      // the stream broke (server gone)
      return 'broken';
    } finally {
      this.watchingSince = undefined;
    }
    return 'ended';
  }

  private async loop(): Promise<void> {
    const signal = this.controller.signal;
    let backoff = 800;
    let list: 'zero' | 'last' | 'consistent' | undefined = 'zero';
    while (!signal.aborted) {
      try {
        if (list !== undefined) {
          await this.list(list);
          list = undefined;
          backoff = 800;
        }
        const outcome = await this.watch();
        if (signal.aborted) return;
        if (outcome === 'gone') {
          this.stats.gone++;
          list = 'consistent';
          continue;
        }
        if (outcome === 'ended') continue;
        this.stats.broken++;
        list = 'last';
        await sleep(backoff * (1 + Math.random()), signal);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof HttpError && err.status === 410) {
          this.stats.gone++;
          list = 'consistent';
          continue;
        }
        this.stats.failures++;
        await sleep(backoff * (1 + Math.random()), signal);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status} ${body.slice(0, 200)}`);
  }
}
