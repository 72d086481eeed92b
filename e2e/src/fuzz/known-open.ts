/**
 * Known open failure classes: bugs that are reported and being fixed elsewhere. A finding
 * that matches one is counted under it instead of failing the run; nothing is skipped
 * silently (the report prints every class with its count). When a fix merges, delete its row:
 * the suite then fails if the bug is still there.
 */
import { METHODS } from 'node:http';
import type { Finding, InvariantId } from './invariants.js';
import { statusOf } from './invariants.js';
import type { FuzzRequest } from './requests.js';
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

const contentType = (req: FuzzRequest) => (req.headers['content-type'] ?? '').toLowerCase();
const isYaml = (req: FuzzRequest) => contentType(req).includes('yaml');

/** The deepest `{`/`[` nesting in a text (strings are not skipped: a bound, not a parse). */
function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** YAML with anchors or aliases, or flow collections nested deeper than 100. */
function isHardYaml(req: FuzzRequest): boolean {
  if (!isYaml(req) || req.body === undefined) return false;
  const text = req.body.toString('utf8');
  return /(^|[\s,[{:-])[&*][A-Za-z0-9_]/m.test(text) || flowDepth(text) > 100;
}

/** The requests a finding may be blamed on: the request itself, or those in flight. */
function blamed(f: Finding): readonly FuzzRequest[] {
  return [...(f.request ? [f.request] : []), ...(f.suspects ?? [])];
}

export const KNOWN_OPEN: readonly KnownOpenClass[] = [
  {
    id: 'yaml-decoder-stall',
    description: 'YAML bodies with deep flow mappings or anchors/aliases crash or stall the server while decoding',
    invariants: ['crash', 'no-response', 'readyz-slow', 'server-error'],
    matches: (f) => blamed(f).some(isHardYaml),
  },
  {
    id: 'protobuf-garbage-422',
    description: 'a protobuf body that does not decode is answered 422 Invalid instead of 400 BadRequest',
    invariants: ['undecodable-body'],
    matches: (f) => f.request !== undefined && contentType(f.request).startsWith('application/vnd.kubernetes.protobuf') && f.response?.status === 422,
  },
  {
    id: 'out-of-range-values-stored',
    description: 'out-of-range integers (1e29 in metadata.generation, > int32 in int32 fields), non-integers and unparsable timestamps are stored and then fail typed decoding',
    invariants: ['stored-undecodable'],
    matches: (f) => /cannot unmarshal number|of type u?int(32|64)|parsing time|cannot parse|into Go (struct field|value) .* of type (int|metav1\.Time|v1\.Time|v1\.MicroTime)/.test(f.detail),
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
  {
    id: 'yaml-strict-duplicate-keys',
    description: 'YAML duplicate keys on create/update are not rejected under fieldValidation=Strict (no invariant here observes it: an accepted body is not a failure of the invariants above)',
    invariants: [],
    matches: () => false,
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
