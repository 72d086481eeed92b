/**
 * Test support: a raw HTTP watch client over node:http, so tests control the socket (pause
 * reading, disconnect) and see the stream exactly as clients do: status, headers, one JSON
 * document per line, and whether it ended cleanly.
 */
import { get, type IncomingMessage, type ClientRequest } from 'node:http';

export interface WatchEventJson {
  type: string;
  object: Record<string, unknown> & { metadata?: Record<string, unknown> };
}

export interface WatchClient {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** Every event received so far, in order. */
  readonly events: WatchEventJson[];
  /** The next event not yet taken by `next`; rejects after `timeoutMs` or if the stream ends first. */
  next(timeoutMs?: number): Promise<WatchEventJson>;
  /** Takes events with `next` until `count` were taken. */
  take(count: number, timeoutMs?: number): Promise<WatchEventJson[]>;
  /** Resolves when the server ended the stream: `clean` when it ended with a complete last line. */
  readonly ended: Promise<{ clean: boolean }>;
  /** Stops reading from the socket (the server's writes back up). */
  pause(): void;
  resume(): void;
  /** Disconnects. */
  close(): void;
}

/** A non-watch response (an error before the stream started). */
export interface RefusedWatch {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/**
 * Opens `GET <url><path>` and resolves once the response headers arrived: a WatchClient for a
 * 200, or the decoded body for anything else.
 */
export function openWatch(url: string, path: string): Promise<WatchClient | RefusedWatch> {
  return new Promise((resolve, reject) => {
    const request: ClientRequest = get(url + path, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }));
        return;
      }
      resolve(watchClient(request, res));
    });
    request.on('error', reject);
  });
}

export function isWatchClient(value: WatchClient | RefusedWatch): value is WatchClient {
  return 'next' in value;
}

function watchClient(request: ClientRequest, res: IncomingMessage): WatchClient {
  const events: WatchEventJson[] = [];
  let taken = 0;
  let buffer = '';
  let done = false;
  let waiter: (() => void) | undefined;
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  const ended = new Promise<{ clean: boolean }>((resolve) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, newline)) as WatchEventJson);
        buffer = buffer.slice(newline + 1);
      }
      wake();
    });
    const finish = (clean: boolean) => {
      if (done) return;
      done = true;
      wake();
      resolve({ clean: clean && buffer === '' });
    };
    res.on('end', () => finish(true));
    res.on('close', () => finish(res.complete));
    res.on('error', () => finish(false));
  });

  const next = async (timeoutMs = 10_000): Promise<WatchEventJson> => {
    const deadline = Date.now() + timeoutMs;
    while (taken >= events.length) {
      if (done) throw new Error(`the watch ended after ${events.length} events`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms (got ${events.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return events[taken++]!;
  };

  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    events,
    next,
    async take(count, timeoutMs) {
      const out: WatchEventJson[] = [];
      for (let i = 0; i < count; i++) out.push(await next(timeoutMs));
      return out;
    },
    ended,
    pause: () => res.pause(),
    resume: () => res.resume(),
    close: () => request.destroy(),
  };
}
