/**
 * The invariants every answer must keep, and the 5xx answers that are documented behaviour
 * rather than failures.
 *
 * | invariant | violated by |
 * |---|---|
 * | `server-error` | any 5xx not in {@link ACCEPTED_SERVER_ERRORS} |
 * | `no-response` | a socket error, reset or no answer within 20 s while the process is up (but a write cut short for a body past kube's 3 MiB limit, which is answered 413 and closed) |
 * | `crash` | the server process exited |
 * | `undecodable-body` | a body that is not JSON (by `JSON.parse`) sent as `application/json`, or not protobuf (no `k8s\0` prefix) sent as protobuf, to a create or update (a POST or PUT under /api or /apis), answered with anything but 400 BadRequest (or 404/405/413/415/429, which kube decides before decoding, or the 504 Timeout of a `timeout` parameter that ran out first) |
 * | `readyz-slow` | a `/readyz` probe that took over 1 s, failed or got no answer (readyz-probe.ts); a late 200 while the server's thread ran under 1 s of CPU is the machine's load and only counted (server-cpu.ts) |
 * | `stored-undecodable` | a stored object that client-go's typed decoders reject (typed-check.ts) |
 * | `metrics-cardinality` | `/metrics` holding more than 5,000 request series (the fuzzer's bogus paths must not each add one) |
 */
import { parse as parseYaml } from 'yaml';
import { decodeObject, PROTOBUF_MAGIC } from '@kapi/machinery';
import type { FuzzRequest } from './requests.js';
import type { FuzzResponse } from './send.js';
import { queryValue } from './query.js';

export type InvariantId = 'server-error' | 'no-response' | 'crash' | 'undecodable-body' | 'readyz-slow' | 'stored-undecodable' | 'metrics-cardinality';

/** A broken invariant, before the known-open table is consulted. */
export interface Finding {
  readonly invariant: InvariantId;
  /** The request that broke it (for readyz-slow and crash: the requests in flight, the first one here). */
  readonly request?: FuzzRequest;
  readonly response?: FuzzResponse;
  /** Other requests that may be to blame (in flight during a slow probe or a crash). */
  readonly suspects?: readonly FuzzRequest[];
  /** What broke, in one line (a decode error, a probe's time, a Status message). */
  readonly detail: string;
}

const PROTOBUF_MAGIC_BYTES = Buffer.from(PROTOBUF_MAGIC);

export interface ResponseStatus {
  readonly reason?: string;
  readonly message?: string;
  readonly code?: number;
  readonly details?: { readonly kind?: string };
}

/** The Status in a response body (JSON or protobuf), if it holds one. */
export function statusOf(res: FuzzResponse): ResponseStatus | undefined {
  try {
    const contentType = String(res.headers['content-type'] ?? '');
    const parsed = (
      res.body.subarray(0, 4).equals(PROTOBUF_MAGIC_BYTES)
        ? decodeObject(res.body, { apiVersion: 'v1', kind: 'Status' }).object
        : contentType.includes('yaml')
          ? parseYaml(res.body.toString('utf8'))
          : JSON.parse(res.body.toString('utf8'))
    ) as ResponseStatus & { kind?: string };
    return parsed.kind === 'Status' || parsed.reason !== undefined ? parsed : undefined;
  } catch {
    return undefined;
  }
}


/** 5xx answers kube gives too, for requests that ask for them. */
export const ACCEPTED_SERVER_ERRORS: readonly { id: string; why: string; matches(req: FuzzRequest, res: FuzzResponse): boolean }[] = [
  {
    id: 'too-large-resource-version',
    why: 'kube answers 504 Timeout "Too large resource version: N, current: M" (Retry-After: 1) to a get, list or watch whose resourceVersion the store has not reached after waiting up to 3 s; client-go retries it',
    matches: (req, res) => {
      const rv = queryValue(req.path, 'resourceVersion');
      return res.status === 504 && rv !== undefined && /^\d+$/.test(rv) && (statusOf(res)?.message ?? '').includes('Too large resource version');
    },
  },
  {
    id: 'continue-token-ahead-of-store',
    why: 'a continue token whose resourceVersion the store has not reached: kube-apiserver 1.32.13 answers 500 with etcd\'s "mvcc: required revision is a future revision" (checked against one); kapi answers 504 Too large resource version with Retry-After, the answer for the same condition without a token',
    matches: (req, res) => res.status === 504 && queryValue(req.path, 'continue') !== undefined && (statusOf(res)?.message ?? '').includes('Too large resource version'),
  },
  {
    id: 'request-timeout',
    why: 'kube answers 504 Timeout when a request outlives its `timeout` query parameter (capped by --request-timeout)',
    matches: (req, res) => res.status === 504 && queryValue(req.path, 'timeout') !== undefined && (statusOf(res)?.message ?? '').includes('request did not complete within'),
  },
];

const requestTimeout = ACCEPTED_SERVER_ERRORS.find((a) => a.id === 'request-timeout')!;

const mediaType = (req: FuzzRequest) => (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** Whether the body certainly cannot be decoded as its Content-Type says (JSON syntax error, protobuf without magic). */
export function certainlyUndecodable(req: FuzzRequest): boolean {
  if (req.body === undefined || (req.method !== 'POST' && req.method !== 'PUT')) return false;
  // Only resource requests decode their body as an object; kube's non-REST mux (/debug/pprof,
  // /debug/flags/v, health) answers any method without reading it as one.
  if (!/^\/apis?\//.test(req.path)) return false;
  if (req.headers['content-encoding'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
  const type = mediaType(req);
  if (type === 'application/json' && !/charset=(?!utf-8)/i.test(req.headers['content-type'] ?? '')) {
    try {
      JSON.parse(req.body.toString('utf8'));
      return false;
    } catch {
      return true;
    }
  }
  if (type === 'application/vnd.kubernetes.protobuf') return !req.body.subarray(0, 4).equals(PROTOBUF_MAGIC_BYTES);
  return false;
}

/** kube's limit on a request body (3 MiB). */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

const DECIDED_BEFORE_DECODING = new Set([400, 404, 405, 406, 413, 415, 429]);

/** The invariant the answer to `req` breaks, if any (crashes and probes are judged by the runner). */
export function judge(req: FuzzRequest, res: FuzzResponse): Finding | undefined {
  if (res.status === -1) return undefined; // never sent: Node refused to write it
  // Past kube's 3 MiB body limit the server answers 413 and closes without reading the rest (as
  // Go's server does); Node's client then fails its write instead of reading that answer.
  if (res.status === 0 && (req.body?.length ?? 0) > MAX_BODY_BYTES && /EPIPE|ECONNRESET/.test(res.error ?? '')) return undefined;
  if (res.status === 0) return { invariant: 'no-response', request: req, response: res, detail: res.error ?? 'no response' };
  if (res.status >= 500 && !ACCEPTED_SERVER_ERRORS.some((a) => a.matches(req, res))) {
    const status = statusOf(res);
    return { invariant: 'server-error', request: req, response: res, detail: `${res.status} ${status?.reason ?? ''}: ${status?.message ?? res.body.toString('utf8', 0, 300)}` };
  }
  const status = statusOf(res);
  // kube validates the query's options (422 CreateOptions/UpdateOptions …) before it decodes the body.
  const optionsRejected = res.status === 422 && (status?.details?.kind ?? '').endsWith('Options');
  // A `timeout` shorter than the work before decoding (`timeout=1ns`) ends the request first: kube
  // answers such a POST of `{bad` with 504 Timeout too (checked against kube-apiserver 1.32.13).
  const timedOut = requestTimeout.matches(req, res);
  if (certainlyUndecodable(req) && !DECIDED_BEFORE_DECODING.has(res.status) && !optionsRejected && !timedOut) {
    return { invariant: 'undecodable-body', request: req, response: res, detail: `${res.status} ${status?.reason ?? ''} for a ${mediaType(req)} body that does not decode: ${status?.message ?? ''}` };
  }
  return undefined;
}
