/**
 * How large an etcd request may be, and what a client is told when one is larger.
 *
 * etcd refuses a request whose raft entry exceeds its `--max-request-bytes` (default 1.5 MiB)
 * with `etcdserver: request is too large`, and its gRPC server refuses any message over
 * `--max-request-bytes` + 512 KiB before reading it (RESOURCE_EXHAUSTED). kube-apiserver's etcd
 * client refuses to send more than 2 MiB (1.5 MiB + 512 KiB) itself. kube-apiserver passes
 * these errors through as a 500 without a reason, the error text as the message:
 *
 * - up to 2 MiB: `etcdserver: request is too large`;
 * - over 2 MiB: `rpc error: code = ResourceExhausted desc = trying to send message larger
 *   than max (<size> vs. 2097152)`.
 *
 * kapi checks a write's size before sending it (`checkRequestSize`, against the storage's
 * `maxRequestBytes`, the kapi flag `--etcd-max-request-bytes`), so that an oversize object is
 * refused with these texts without a round trip, and classifies the same refusals from etcd
 * (an etcd configured with a lower limit) the same way (`isRequestTooLarge`).
 *
 * What etcd measures against `--max-request-bytes` is not the gRPC message but the raft entry
 * it proposes: an InternalRaftRequest holding the txn (as etcd re-encodes it, zero fields
 * dropped) and a RequestHeader with a request ID the receiving member generates (its member
 * ID's low 16 bits over 48 bits of time and counter). `conditionalPutEntrySize` computes that
 * entry; `requestIdBytes` the ID's encoded size from the member ID every response names.
 */
import { StorageError } from '../errors.js';
import { exactInt64, varint64Size } from './grpc/protobuf.js';

/** etcd's default `--max-request-bytes`. */
export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/**
 * What etcd's gRPC server accepts above `--max-request-bytes` (its `grpcOverheadBytes`); the
 * Go client's default send limit, 2 MiB, is the default limit plus this.
 */
export const GRPC_OVERHEAD_BYTES = 512 * 1024;

/** The largest gRPC message a client may send to an etcd whose limit is `maxRequestBytes`. */
export function maxSendMessageBytes(maxRequestBytes: number): number {
  return maxRequestBytes + GRPC_OVERHEAD_BYTES;
}

const ETCD_REQUEST_TOO_LARGE = 'etcdserver: request is too large';

/** The two sizes of one write: the gRPC message the client sends, the raft entry etcd makes of it. */
export interface RequestSize {
  readonly messageBytes: number;
  readonly entryBytes: number;
}

/**
 * Throws `RequestTooLarge` (with kube-apiserver's answer as the message) when etcd would refuse
 * the request: its raft entry is over `maxRequestBytes` (etcd's text), or its message over the
 * client's send limit (the gRPC text, with the message size); returns otherwise.
 */
export function checkRequestSize(key: string, size: RequestSize, maxRequestBytes: number): void {
  if (size.entryBytes <= maxRequestBytes) return;
  const sendLimit = maxSendMessageBytes(maxRequestBytes);
  const message =
    size.messageBytes > sendLimit
      ? goStatusText('ResourceExhausted', `trying to send message larger than max (${size.messageBytes} vs. ${sendLimit})`)
      : ETCD_REQUEST_TOO_LARGE;
  throw new StorageError('RequestTooLarge', key, message);
}

/** gRPC's RESOURCE_EXHAUSTED status code. */
const GRPC_RESOURCE_EXHAUSTED = 8;

/**
 * True for etcd's and gRPC's refusals of a request for its size: etcd's `request is too
 * large`, etcd's gRPC server's "received message larger than max", the gRPC client's own
 * send limit. Each is about that one request.
 */
export function isRequestTooLarge(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  if (err.message.includes(ETCD_REQUEST_TOO_LARGE)) return true;
  return isResourceExhausted(err) && /received message larger than max|send message with a size larger than/i.test(err.message);
}

/** The text kube-apiserver shows for such a refusal: etcd's error as is, a gRPC status as Go prints it. */
export function requestTooLargeMessage(err: Error): string {
  if (err.message.includes(ETCD_REQUEST_TOO_LARGE)) return ETCD_REQUEST_TOO_LARGE;
  return goStatusText('ResourceExhausted', grpcDetails(err));
}

function isResourceExhausted(err: Error): boolean {
  return (err as { code?: unknown }).code === GRPC_RESOURCE_EXHAUSTED || /^(\w+Error: )?8 RESOURCE_EXHAUSTED: /.test(err.message);
}

/** The status description of a grpc-js error (whose message is `<code> <NAME>: <details>`). */
function grpcDetails(err: Error): string {
  const details = (err as { details?: unknown }).details;
  if (typeof details === 'string' && details !== '') return details;
  return err.message.replace(/^(\w+Error: )?\d+ [A-Z_]+: /, '');
}

/** A gRPC status error as Go's status package prints it (what kube-apiserver shows). */
function goStatusText(code: string, description: string): string {
  return `rpc error: code = ${code} desc = ${description}`;
}

/**
 * The encoded size of the TxnRequest `conditionalWrite` sends to put `valueBytes` at a key of
 * `keyBytes`: compare `mod_revision(key) == expectedRevision`, success `put(key, value)`,
 * failure `range(key)`. Protobuf's wire format, computed rather than encoded (the value is
 * not copied); the etcd3 client's encoder writes every field it is given, the compare's
 * EQUAL (0) included. It is the size etcd's gRPC server and the client's send limit measure.
 */
export function conditionalPutSize(keyBytes: number, expectedRevision: number, valueBytes: number, lease?: string): number {
  return conditionalPutTxnSize(keyBytes, expectedRevision, valueBytes, true, lease);
}

/**
 * The size of the raft entry etcd makes of `conditionalWrite`'s put (what it compares with its
 * `--max-request-bytes`): InternalRaftRequest{header: RequestHeader{ID}, txn}, the txn
 * re-encoded by etcd (gogo-protobuf drops the compare's EQUAL, 0; a oneof's 0 stays), the ID
 * taking `idBytes` (see `requestIdBytes`). The entry's own ID field is 0, so absent.
 */
export function conditionalPutEntrySize(keyBytes: number, expectedRevision: number, valueBytes: number, idBytes: number, lease?: string): number {
  const header = 1 + idBytes;
  // header is field 100: a two-byte tag; txn is field 6.
  return 2 + varintSize(header) + header + bytesField(conditionalPutTxnSize(keyBytes, expectedRevision, valueBytes, false, lease));
}

function conditionalPutTxnSize(keyBytes: number, expectedRevision: number, valueBytes: number, withZeroResult: boolean, lease?: string): number {
  // result EQUAL (when written), target MOD, key, mod_revision (a oneof: written even when 0)
  const compare = (withZeroResult ? scalarField(0) : 0) + scalarField(2) + bytesField(keyBytes) + scalarField(expectedRevision);
  // the lease ID (field 3, an int64 varint) when the put has one
  const put = bytesField(keyBytes) + bytesField(valueBytes) + (lease !== undefined && lease !== '0' ? 1 + varint64Size(exactInt64(lease)) : 0);
  const range = bytesField(keyBytes);
  // TxnRequest{compare, success: [RequestOp{request_put}], failure: [RequestOp{request_range}]}
  return bytesField(compare) + bytesField(bytesField(put)) + bytesField(bytesField(range));
}

/** The most a request ID can take encoded (a 64-bit varint); assumed until a member has answered. */
export const MAX_REQUEST_ID_BYTES = 10;

/**
 * The encoded size of the request IDs the member `memberId` (a decimal uint64, as response
 * headers carry it) generates: its low 16 bits sit above 48 bits of time and counter, so they
 * fix the length; with them all 0, up to 48 bits (7 bytes) are counted.
 */
export function requestIdBytes(memberId: string): number {
  let prefix: number;
  try {
    prefix = Number(BigInt(memberId) & 0xffffn);
  } catch {
    return MAX_REQUEST_ID_BYTES;
  }
  const bits = 48 + (prefix === 0 ? 0 : Math.floor(Math.log2(prefix)) + 1);
  return Math.ceil(bits / 7);
}

/** A varint field (an enum or an integer) with a one-byte tag (field numbers below 16). */
function scalarField(value: number): number {
  return 1 + varintSize(value);
}

/** A length-delimited field (bytes or an embedded message) with a one-byte tag. */
function bytesField(length: number): number {
  return 1 + varintSize(length) + length;
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}
