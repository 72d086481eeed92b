import { isBrokenCircuitError } from 'cockatiel';
import {
  ClientClosedError,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
  GRPCCancelledError,
} from 'etcd3';
import { StorageError } from '../errors.js';

/**
 * The one place where errors from the etcd3 client (gRPC status errors, etcd server errors,
 * cockatiel circuit-breaker errors) become StorageErrors:
 *
 * - connection failures, `UNAVAILABLE`, `DEADLINE_EXCEEDED`, an open circuit breaker, a closed
 *   client → `Unreachable` (retrying later may help; readiness checks look for this code);
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
  if (isConnectionFailure(err)) {
    return new StorageError('Unreachable', key, `etcd is unreachable: ${message}`, { cause: err });
  }
  return new StorageError('Internal', key, message, { cause: err });
}

function isCompacted(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision has been compacted');
}

function isFutureRevision(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision is a future revision');
}

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

function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof GRPCCancelledError ||
    err instanceof ClientClosedError ||
    isBrokenCircuitError(err)
  ) {
    return true;
  }
  const code = (err as { code?: unknown }).code;
  if (code === 14 || code === 4) return true;
  return connectionFailureText.some((text) => err.message.includes(text));
}
