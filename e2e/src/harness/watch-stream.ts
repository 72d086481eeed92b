import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeObject } from './rest.js';

/** One event of a JSON watch stream. */
export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** How a watch stream ended. */
export interface WatchEnd {
  /** The HTTP status (0 when the connection failed before a response). */
  status: number;
  /** The response Content-Type. */
  contentType: string | undefined;
  /** `server`: the server ended the response; `killed`: {@link WatchStream.kill}; `error`: a socket error. */
  reason: 'server' | 'killed' | 'error';
  /** The socket error, for `reason: 'error'`. */
  error?: Error;
  /** The body when the status was not 200 (a Status, usually). */
  body?: string;
  /** Lines that were not one JSON event each (must stay empty: clients parse line by line). */
  badLines: string[];
}

export interface WatchStream {
  /** Resolves when the stream ends, however it ends. Never rejects. */
  readonly done: Promise<WatchEnd>;
  /** Destroys the socket mid-stream, as a dying client or a broken network does. */
  kill(): void;
}

/**
 * Opens `GET <baseUrl><path>` (the path carries `watch=1` and the other query parameters)
 * and calls `onEvent` for every newline-terminated JSON event, in order. TLS verification is
 * off (loopback test servers). A new connection per watch (no agent), so killing it affects
 * nothing else.
 */
export function openWatch<T = KubeObject>(
  baseUrl: string,
  path: string,
  onEvent: (event: WatchEvent<T>) => void,
  headers: Record<string, string> = {},
  clientCertificate?: { cert: string; key: string },
): WatchStream {
  const send = baseUrl.startsWith('https:') ? httpsRequest : httpRequest;
  let killed = false;
  let req: ClientRequest | undefined;
  const done = new Promise<WatchEnd>((resolve) => {
    const badLines: string[] = [];
    let status = 0;
    let contentType: string | undefined;
    let settled = false;
    const finish = (end: Omit<WatchEnd, 'status' | 'contentType' | 'badLines'>): void => {
      if (settled) return;
      settled = true;
      resolve({ status, contentType, badLines, ...end, ...(killed ? { reason: 'killed' as const } : {}) });
    };
    req = send(`${baseUrl}${path}`, { method: 'GET', agent: false, rejectUnauthorized: false, ...clientCertificate, headers: { ...headers, accept: 'application/json' } }, (res) => {
      status = res.statusCode ?? 0;
      contentType = res.headers['content-type'];
      if (status !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => finish({ reason: 'server', body }));
        res.on('error', (error) => finish({ reason: 'error', error }));
        return;
      }
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (line.trim() === '') continue;
          let event: WatchEvent<T>;
          try {
            event = JSON.parse(line) as WatchEvent<T>;
          } catch {
            badLines.push(line.slice(0, 200));
            continue;
          }
          onEvent(event);
        }
      });
      res.on('end', () => {
        if (pending.trim() !== '') badLines.push(`(unterminated) ${pending.slice(0, 200)}`);
        finish({ reason: 'server' });
      });
      res.on('error', (error) => finish({ reason: 'error', error }));
      res.on('close', () => finish({ reason: 'error', error: new Error('connection closed before the response ended') }));
    });
    req.on('error', (error) => finish({ reason: 'error', error }));
    req.end();
  });
  return {
    done,
    kill() {
      killed = true;
      req?.destroy();
    },
  };
}
