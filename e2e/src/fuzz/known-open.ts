/**
 * Known open failure classes: bugs that are reported and not fixed yet. A finding that
 * matches one is counted under it instead of failing the run; nothing is skipped silently
 * (the report prints every class with its count and its first case). When a fix merges,
 * delete its row: the suite then fails if the bug is still there. (The rows of issue 17's
 * list — YAML decoding stalls, strict YAML duplicates, garbage protobuf, values the Go types
 * cannot hold, oversize objects, idle sockets, metric cardinality, watch=abc, absurd continue
 * tokens, a JSON patch moving the root into itself, writes just over etcd's request limit,
 * a 100 Continue inside a pipelined response, unknown methods dropped on a reused connection
 * — are gone: their fixes merged and the suite holds them.)
 */
import { METHODS } from 'node:http';
import type { Finding, InvariantId } from './invariants.js';
import { statusOf } from './invariants.js';

export interface KnownOpenClass {
  readonly id: string;
  /** The bug, in one line. */
  readonly description: string;
  /** The invariants this bug breaks. */
  readonly invariants: readonly InvariantId[];
  /** Whether a finding is this bug (its request, suspects, response or detail). */
  matches(finding: Finding): boolean;
}

export const KNOWN_OPEN: readonly KnownOpenClass[] = [
  {
    id: 'hang-up-on-a-reused-connection',
    description: 'found by this suite, not explained yet (also on a DELETE with resourceVersion=99999999999 that does not wait, 894 ms after it was sent 1 ms behind a PUT answered at once, in a clean-clone make test): a GET waiting for a resourceVersion ahead of the store (kube waits 3 s, then 504) on a reused keep-alive TLS connection sometimes ends in "socket hang up" during the wait — the connection closes with no answer (5 times in ~305,000 requests, once in the 155,000 of two 600 s runs after the fixes above; e.g. 1.4 s into the wait, the request before it a POST answered 422 at once; not reproduced alone or in pairs). Ruled out: the 100-continue mis-ordering and the unanswered parser errors (both fixed), the connection cap, Node\'s keep-alive and request timers (kapi keeps idle connections 90 s, kube\'s IdleTimeout, and the fuzz reuses them within milliseconds, so it is not the client racing an idle close); 390 request pairs on one keep-alive TLS connection (each fuzz header variant before a waiting GET, a DELETE with a future resourceVersion and a list) never hung up, nor did 12,196 fuzz requests in a 600 s run. A finding now says when the server\'s FIN came, whether the fuzz client destroyed the socket itself for another request, and carries the server\'s last output. Also ruled out (read against Node 20.20\'s http server): the connection guard\'s first-request timer (on TLS the request\'s socket maps to the accepted TCP socket through `_parent`, checked, so the first request clears it; an `Expect: 100-continue` request reaches the \'request\' listeners too); Node\'s keep-alive timer (set in resOnFinish only when no pipelined response waits, and reset to server.timeout, 0, when the next request\'s headers are parsed); Node\'s connectionsCheckingInterval expiry (headersTimeout/requestTimeout apply only to a connection whose current message is still incomplete: a GET whose headers were parsed is complete, and the bounds are 32 s and request-timeout + 32 s, not ~1 s)',
    invariants: ['no-response'],
    // Not only GETs: a clean-clone `make test` met the same hang-up on a DELETE carrying
    // resourceVersion=99999999999 (which a DELETE does not wait for), 894 ms after it was sent
    // 1 ms behind a PUT answered at once; so the wait may not be the cause. Any method counts.
    // (A method Node's parser refuses is answered since client-errors.ts: not this class.)
    matches: (f) => f.response?.error === 'socket hang up' && f.response.previousOnConnection !== undefined && METHODS.includes(f.request?.method ?? ''),
  },
];

/** The known-open class a finding belongs to, if any. */
export function knownOpenClass(finding: Finding): KnownOpenClass | undefined {
  return KNOWN_OPEN.find((k) => k.invariants.includes(finding.invariant) && k.matches(finding));
}

/** A grouping key for findings of one kind: invariant, status, reason and the message with its particulars blanked. */
export function signature(f: Finding): string {
  const status = f.response ? statusOf(f.response) : undefined;
  const text = (status?.message ?? f.detail)
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 160);
  return `${f.invariant} ${f.response?.status ?? ''} ${status?.reason ?? ''} ${text}`.replace(/\s+/g, ' ').trim();
}
