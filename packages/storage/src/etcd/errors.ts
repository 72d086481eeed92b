import { isBrokenCircuitError } from 'cockatiel';
// etcd3's error classes alone: its index loads @grpc/grpc-js and parses etcd's .proto files (see client.ts).
import { ClientClosedError, GRPCDeadlineExceededError, GRPCUnavailableError, GRPCCancelledError } from 'etcd3/lib/errors.js';
import { StorageError } from '../errors.js';
import { isRequestTooLarge, requestTooLargeMessage } from './request-size.js';

/**
 * The one place where errors from the etcd3 client (gRPC status errors, etcd server errors,
 * cockatiel circuit-breaker errors) are classified. Two questions are answered here:
 *
 * 1. Does the failure say anything about the member's connection? (`isConnectionFailure`,
 *    used by the client's per-member fault handling and by watch streams.)
 * 2. Which StorageError does the caller get? (`toStorageError`)
 */

/** gRPC status codes (grpc/status.proto) that this file looks at. */
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_UNAVAILABLE = 14;

/** Failure texts that come without a status code (from the connection, or in a message). */
const connectionFailureText = [
  'No connection established',
  'ECONNREFUSED',
  'ECONNRESET',
  'connect ETIMEDOUT',
  'Connection dropped',
  'etcdserver: request timed out',
  'etcdserver: leader changed',
  'etcdserver: no leader',
];

/**
 * True when the member's connection could not carry the call: gRPC UNAVAILABLE (refused,
 * reset or dropped connections, and etcd's own "cannot serve now": no leader, leader changed,
 * stopping, timed out inside raft) or a closed client. Only these count against the member
 * (its circuit breaker) and let the client rebuild the member's channels.
 *
 * Everything else is the answer to that one request, and the member and its connection are
 * fine: a request too large (etcd's `request is too large`, gRPC's RESOURCE_EXHAUSTED "message
 * larger than max"), a quota (`database space exceeded`, `too many requests`), a compacted or
 * future revision, an invalid argument, INTERNAL/UNKNOWN for one stream, CANCELLED by the
 * caller, and DEADLINE_EXCEEDED: a call's deadline passing says that call was slow, not that
 * the connection is gone (kube's Go client does not act on it either). A member that hangs
 * is found by the connection's keepalive (see client.ts), which fails its calls as
 * UNAVAILABLE.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof GRPCUnavailableError || err instanceof ClientClosedError) return true;
  if ((err as { code?: unknown }).code === GRPC_UNAVAILABLE) return true;
  return connectionFailureText.some((text) => err.message.includes(text));
}

/**
 * Casts an etcd3 client error to a StorageError:
 *
 * - a connection failure (above), DEADLINE_EXCEEDED, CANCELLED, an open circuit breaker, a
 *   closed client → `Unreachable` (retrying later may help; readiness checks look for it);
 * - a request etcd refuses for its size (or the client's send limit) → `RequestTooLarge`
 *   with the text kube-apiserver answers (see request-size.ts);
 * - `mvcc: required revision has been compacted` → `Expired`;
 * - `mvcc: required revision is a future revision` → `TooLargeResourceVersion`;
 * - anything else → `Internal`.
 *
 * A StorageError passes through unchanged. Callers add wire messages for Expired and
 * TooLargeResourceVersion where they know the request (see list.ts).
 */
export function toStorageError(err: unknown, key: string): StorageError {
  if (err instanceof StorageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (isCompacted(err)) return new StorageError('Expired', key, message, { cause: err });
  if (isFutureRevision(err)) return new StorageError('TooLargeResourceVersion', key, message, { cause: err });
  if (isRequestTooLarge(err)) return new StorageError('RequestTooLarge', key, requestTooLargeMessage(err), { cause: err });
  if (isUnreachable(err)) return new StorageError('Unreachable', key, `etcd is unreachable: ${message}`, { cause: err });
  return new StorageError('Internal', key, message, { cause: err });
}

function isCompacted(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision has been compacted');
}

function isFutureRevision(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision is a future revision');
}

function isUnreachable(err: unknown): boolean {
  if (isConnectionFailure(err) || isBrokenCircuitError(err)) return true;
  return err instanceof GRPCDeadlineExceededError || err instanceof GRPCCancelledError || (err as { code?: unknown }).code === GRPC_DEADLINE_EXCEEDED;
}
