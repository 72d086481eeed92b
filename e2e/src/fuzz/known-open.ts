/**
 * Known open failure classes: bugs that are reported and not fixed yet. A finding that
 * matches one is counted under it instead of failing the run; nothing is skipped silently
 * (the report prints every class with its count and its first case). When a fix merges,
 * delete its row: the suite then fails if the bug is still there. (The rows of issue 17's
 * list — YAML decoding stalls, strict YAML duplicates, garbage protobuf, values the Go types
 * cannot hold, oversize objects, idle sockets, metric cardinality, watch=abc, absurd continue
 * tokens — are gone: their fixes merged and the suite holds them.)
 */
import { METHODS } from 'node:http';
import type { Finding, InvariantId } from './invariants.js';
import { statusOf } from './invariants.js';
import { queryValue } from './query.js';

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
    id: 'json-patch-move-root-into-itself',
    description: 'found by this suite: a JSON patch that moves "" (the whole object) into a path below it answers 500 "Maximum call stack size exceeded" (e.g. [{"op":"move","from":"","path":"/x"}] after other operations)',
    invariants: ['server-error'],
    matches: (f) => (f.response !== undefined && statusOf(f.response)?.message?.includes('Maximum call stack size exceeded')) === true,
  },
  {
    id: 'etcd-request-too-large',
    description: 'found by this suite: a write just over etcd\'s 1.5 MiB request limit (a protobuf Secret of 1,573,137 bytes) reaches etcd and answers 500 "etcdserver: request is too large" instead of being refused before it is sent',
    invariants: ['server-error'],
    matches: (f) => (f.response !== undefined && statusOf(f.response)?.message?.includes('etcdserver: request is too large')) === true,
  },
  {
    id: 'bytes-before-the-status-line',
    description: 'found by this suite, not explained yet: the response to a request sent right after a GET that waited for a resourceVersion ahead of the store (504) on the same keep-alive connection does not start with "HTTP/" (Node: Parse Error: Expected HTTP/) — bytes beyond the previous response; perhaps the same bug as the hang-up below',
    invariants: ['no-response'],
    matches: (f) => (f.response?.error ?? '').startsWith('Parse Error: Expected HTTP/'),
  },
  {
    id: 'node-unknown-method-reused-connection',
    description: 'a method Node\'s parser does not know (FUZZ, PROPFIND is known) on a reused keep-alive connection, sent just after the previous response, is dropped without an answer (Node writes its 400 only when no response is still finishing on the socket; kube answers 404/405)',
    invariants: ['no-response'],
    matches: (f) => f.request !== undefined && !METHODS.includes(f.request.method) && f.response?.previousOnConnection !== undefined,
  },
  {
    id: 'hang-up-while-waiting-for-resource-version',
    description: 'found by this suite, not explained yet: a GET waiting for a resourceVersion ahead of the store (kube waits 3 s, then 504) on a reused keep-alive connection sometimes ends in "socket hang up" — the server closes the connection without an answer (4 times in ~150,000 requests, not reproduced alone)',
    invariants: ['no-response'],
    matches: (f) => f.response?.error === 'socket hang up' && f.request?.method === 'GET' && /^\d{11,}$/.test(queryValue(f.request.path, 'resourceVersion') ?? ''),
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
