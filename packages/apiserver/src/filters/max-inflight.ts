/**
 * kube's max-in-flight filter (`--max-requests-inflight`, `--max-mutating-requests-inflight`):
 * two pools of seats, read-only (get, list, watch and non-resource GETs) and mutating. A
 * request that finds its pool full is refused at once with 429, `Retry-After: 1` and kube's
 * plain-text body. Long-running requests (watches) hold a read-only seat only while they
 * initialize (until their response headers go out). A limit of 0 means no limit.
 */
import type { ServerResponse } from 'node:http';
import type { RequestKind } from '../metrics.js';

/** kube's body for a request refused by the inflight limits (written with http.Error). */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

export interface InflightLimits {
  /** --max-requests-inflight (default 400); 0 = no limit. */
  readonly maxRequestsInflight: number;
  /** --max-mutating-requests-inflight (default 200); 0 = no limit. */
  readonly maxMutatingRequestsInflight: number;
}

export interface InflightLimiter {
  /** A seat of `kind`, or undefined when the pool is full. The returned release is idempotent. */
  tryAcquire(kind: RequestKind): (() => void) | undefined;
  /** Seats in use now. */
  inUse(kind: RequestKind): number;
}

export function createInflightLimiter(limits: InflightLimits): InflightLimiter {
  const used: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  const max: Record<RequestKind, number> = { readOnly: limits.maxRequestsInflight, mutating: limits.maxMutatingRequestsInflight };
  return {
    tryAcquire(kind) {
      if (max[kind] > 0 && used[kind] >= max[kind]) return undefined;
      used[kind]++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        used[kind]--;
      };
    },
    inUse: (kind) => used[kind],
  };
}

/** kube's non-mutating verbs are get, list and watch: by method, GET and HEAD (and OPTIONS) read. */
export function requestKind(method: string): RequestKind {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'readOnly' : 'mutating';
}

/**
 * Go's http.Error as kube's filters use it: the message and a newline as text/plain, with
 * `X-Content-Type-Options: nosniff`.
 */
export function writePlainError(res: ServerResponse, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${message}\n`;
  res.writeHead(code, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** 429 `Too many requests, please try again later.` with `Retry-After: 1`. */
export function writeTooManyRequests(res: ServerResponse): void {
  writePlainError(res, 429, TOO_MANY_REQUESTS_MESSAGE, { 'Retry-After': '1' });
}
