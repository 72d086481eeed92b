/**
 * kapi's own etcd client: the unary KV calls (Range, Put, DeleteRange, Txn, Compact),
 * Lease.LeaseGrant and Maintenance.Status, and Watch streams (watch-call.ts), all over one
 * h2-connection.ts connection per member (or node:http2: see `transport`, `watchTransport`): gRPC with the static
 * codecs of kv-messages.ts (and lease-messages.ts, maintenance-messages.ts,
 * watch-messages.ts), instead of etcd3 over @grpc/grpc-js
 * (which costs kapi about twice the CPU per call: generic protobuf reflection, metadata
 * objects, interceptors, a promise chain per call). Requests and responses keep the etcd3
 * client's shapes, and failures its error classes, so the code above it is the same for both.
 *
 * Failover is the etcd3 client's as client.ts configures it: with several members, each has a
 * circuit breaker that a connection failure opens for a second (calls go to the others); a
 * call is retried on another member, with a short backoff that outlasts an election, only
 * when it provably never reached etcd (`neverReachedServer`), and calls carry `hasleader` so
 * that a member cut off from the majority refuses them at once. With one member there is
 * nothing to fail over to: no breaker, no retry.
 */
import {
  ConsecutiveBreaker,
  ExponentialBackoff,
  CircuitState,
  circuitBreaker,
  handleWhen,
  isBrokenCircuitError,
  retry,
  type CircuitBreakerPolicy,
  type RetryPolicy,
} from 'cockatiel';
import type {
  ICompactionRequest,
  ICompactionResponse,
  IDeleteRangeRequest,
  IDeleteRangeResponse,
  ILeaseGrantRequest,
  ILeaseGrantResponse,
  IPutRequest,
  IPutResponse,
  IRangeRequest,
  IRangeResponse,
  IStatusResponse,
  ITxnRequest,
  ITxnResponse,
} from 'etcd3';
import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http2';
import { isConnectionFailure } from '../errors.js';
import { DEFAULT_MAX_REQUEST_BYTES, maxSendMessageBytes } from '../request-size.js';
import {
  decodeDeleteRangeResponse,
  decodePutResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeDeleteRangeRequest,
  encodePutRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  type MessageDecoder,
  type MessageEncoder,
} from './kv-messages.js';
import { decodeLeaseGrantResponse, encodeLeaseGrantRequest } from './lease-messages.js';
import { decodeCompactionResponse, decodeStatusResponse, encodeCompactionRequest, encodeStatusRequest } from './maintenance-messages.js';
import { framedUnaryCall } from './framed-call.js';
import { Member, type MemberOptions } from './member.js';
import { FRAME_HEADER_BYTES, Status, grpcError, requestHeaders, unaryCall } from './unary-call.js';
import { FramedWatchCall, WATCH_PATH, type WatchCall } from './watch-call.js';
import { Http2WatchCall } from './watch-call-http2.js';

/**
 * The etcd calls kapi makes; each unary call takes its deadline relative to now and goes to a
 * member as described above (failover, breakers, retry only when etcd never saw it).
 */
export interface EtcdUnaryClient {
  range(req: IRangeRequest, timeoutMs: number): Promise<IRangeResponse>;
  put(req: IPutRequest, timeoutMs: number): Promise<IPutResponse>;
  deleteRange(req: IDeleteRangeRequest, timeoutMs: number): Promise<IDeleteRangeResponse>;
  txn(req: ITxnRequest, timeoutMs: number): Promise<ITxnResponse>;
  compact(req: ICompactionRequest, timeoutMs: number): Promise<ICompactionResponse>;
  /** Grants a lease; nothing keeps it alive (keys put under it expire with it). */
  leaseGrant(req: ILeaseGrantRequest, timeoutMs: number): Promise<ILeaseGrantResponse>;
  /** Maintenance.Status of whichever member answers. */
  status(timeoutMs: number): Promise<IStatusResponse>;
  /**
   * Maintenance.Status of the member at `host` (one of `hosts`): one attempt, no failover, and
   * its circuit breaker neither consulted nor tripped (a check of that member, not a call that
   * needs an answer from anyone).
   */
  memberStatus(host: string, timeoutMs: number): Promise<IStatusResponse>;
  /** The members' `host:port`, in the order of the endpoints. */
  readonly hosts: readonly string[];
  /**
   * Opens a Watch call on `preferredHost` (`host:port` of one of the endpoints) when given,
   * else on a member picked at random past those whose circuit breaker is open (any member
   * when all are). A connection failure of the call opens its member's breaker, as one of a
   * unary call does. Returns the call and its member's `host:port`.
   */
  watch(preferredHost?: string): { call: WatchCall; host: string };
  /** Closes every connection; calls in flight fail with UNAVAILABLE, later calls too. */
  close(): void;
}

export interface EtcdUnaryClientOptions {
  /** How long making a connection may take. Default 5000 ms. */
  readonly dialTimeoutMs?: number;
  /** etcd's `--max-request-bytes`: no message over it plus 512 KiB is sent (see request-size.ts). */
  readonly maxRequestBytes?: number;
  /** TLS files (kube's --etcd-cafile/--etcd-certfile/--etcd-keyfile), read now. */
  readonly tls?: { readonly caFile?: string; readonly certFile?: string; readonly keyFile?: string };
  /** Keepalive: ping a busy connection idle this long (default 10 s), close it if unanswered in this long (default 5 s). */
  readonly keepaliveTimeMs?: number;
  readonly keepaliveTimeoutMs?: number;
  /**
   * What carries the unary calls: `frames` (h2-connection.ts, a minimal HTTP/2 client of its
   * own, one connection per member shared with the watches; about a quarter of node:http2's CPU
   * per call, scripts/bench-etcd-client.mjs) or `http2` (node:http2, on a session per member,
   * shared with the watches when `watchTransport` is `http2` too). Default
   * `$KAPI_ETCD_UNARY_TRANSPORT` or `frames`.
   */
  readonly transport?: 'http2' | 'frames';
  /**
   * What carries the Watch streams: `frames` (watch-call.ts, on the member's h2-connection.ts
   * connection, the unary calls' by default, so one connection per member) or `http2`
   * (watch-call-http2.ts, on a node:http2 session). Default `$KAPI_ETCD_WATCH_TRANSPORT` or `frames`.
   */
  readonly watchTransport?: 'http2' | 'frames';
}

/**
 * True for a failure that proves etcd never processed the call (see client.ts, which says the
 * same for the etcd3 client): no connection could be made, the member has no leader, or every
 * member's breaker was open.
 */
export function neverReachedServer(err: unknown): boolean {
  if (isBrokenCircuitError(err)) return true;
  const message = err instanceof Error ? err.message : String(err);
  return /No connection established|ECONNREFUSED|connect EHOSTUNREACH|Failed to connect|etcdserver: no leader/i.test(message);
}

const KV_RANGE = '/etcdserverpb.KV/Range';
const KV_PUT = '/etcdserverpb.KV/Put';
const KV_DELETE_RANGE = '/etcdserverpb.KV/DeleteRange';
const KV_TXN = '/etcdserverpb.KV/Txn';
const KV_COMPACT = '/etcdserverpb.KV/Compact';
const LEASE_GRANT = '/etcdserverpb.Lease/LeaseGrant';
const MAINTENANCE_STATUS = '/etcdserverpb.Maintenance/Status';

function readPem(file: string | undefined): Buffer | undefined {
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`open ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
}

export function createEtcdUnaryClient(endpoints: readonly string[], options: EtcdUnaryClientOptions = {}): EtcdUnaryClient {
  if (endpoints.length === 0) throw new Error('no etcd endpoints');
  const tls = options.tls;
  if ((tls?.certFile ?? '') === '' !== ((tls?.keyFile ?? '') === '')) {
    throw new Error(`KeyFile and CertFile must both be present[key: ${tls?.keyFile ?? ''}, cert: ${tls?.certFile ?? ''}]`);
  }
  const ca = readPem(tls?.caFile);
  const cert = readPem(tls?.certFile);
  const key = readPem(tls?.keyFile);
  const memberOptions: MemberOptions = {
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    dialTimeoutMs: options.dialTimeoutMs ?? 5000,
    keepaliveTimeMs: options.keepaliveTimeMs ?? 10_000,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? 5_000,
  };
  const members = endpoints.map((endpoint) => new Member(/^https?:\/\//.test(endpoint) ? endpoint : `http://${endpoint}`, memberOptions));
  const sendLimit = maxSendMessageBytes(options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
  const metadata: OutgoingHttpHeaders | undefined = members.length > 1 ? { hasleader: 'true' } : undefined;

  // One request-header object per method, remade when the method's deadline changes (kapi's
  // calls use a few fixed deadlines, so it almost never is).
  const headersByMethod = new Map<string, { timeoutMs: number; headers: OutgoingHttpHeaders }>();
  const headersFor = (method: string, timeoutMs: number): OutgoingHttpHeaders => {
    const known = headersByMethod.get(method);
    if (known !== undefined && known.timeoutMs === timeoutMs) return known.headers;
    const headers = requestHeaders(method, timeoutMs, metadata);
    headersByMethod.set(method, { timeoutMs, headers });
    return headers;
  };

  const transport = options.transport ?? (process.env.KAPI_ETCD_UNARY_TRANSPORT === 'http2' ? 'http2' : 'frames');
  const watchTransport = options.watchTransport ?? (process.env.KAPI_ETCD_WATCH_TRANSPORT === 'http2' ? 'http2' : 'frames');
  const metadataFields: Array<[string, string]> = metadata !== undefined ? [['hasleader', 'true']] : [];

  /** One attempt on one member. */
  const callOn =
    transport === 'frames'
      ? <Res>(member: Member, method: string, frame: Buffer, decode: MessageDecoder<Res>, timeoutMs: number): Promise<Res> =>
          framedUnaryCall(member.framedConnection(), member.headerBlock(method, timeoutMs, metadataFields), frame, decode, timeoutMs)
      : <Res>(member: Member, method: string, frame: Buffer, decode: MessageDecoder<Res>, timeoutMs: number): Promise<Res> =>
          unaryCall(member.session(), headersFor(method, timeoutMs), frame, decode, timeoutMs);

  let call: <Req, Res>(method: string, encode: MessageEncoder<Req>, decode: MessageDecoder<Res>, req: Req, timeoutMs: number) => Promise<Res>;
  const encodeChecked = <Req>(encode: MessageEncoder<Req>, req: Req): Buffer => {
    const frame = encode(req, FRAME_HEADER_BYTES);
    const size = frame.length - FRAME_HEADER_BYTES;
    if (size > sendLimit) throw grpcError(Status.RESOURCE_EXHAUSTED, `Attempted to send message with a size larger than ${sendLimit}`);
    return frame;
  };

  let breakers: Map<Member, CircuitBreakerPolicy> | undefined;
  const watch = (preferredHost?: string): { call: WatchCall; host: string } => {
    let member = preferredHost !== undefined ? members.find((m) => new URL(m.endpoint).host === preferredHost) : undefined;
    if (member === undefined) {
      const closed = breakers === undefined ? members : members.filter((m) => breakers!.get(m)!.state !== CircuitState.Open);
      const from = closed.length > 0 ? closed : members;
      member = from[Math.floor(Math.random() * from.length)]!;
    }
    const call: WatchCall =
      watchTransport === 'frames' ? new FramedWatchCall(member.framedConnection(), member.headerBlock(WATCH_PATH, undefined, metadataFields)) : new Http2WatchCall(member.session(), metadata);
    const breaker = breakers?.get(member);
    if (breaker !== undefined) {
      call.on('error', (err: Error) => {
        if (isConnectionFailure(err) && !/etcdserver: no leader/.test(err.message)) {
          breaker
            .execute(() => {
              throw err;
            })
            .catch(() => undefined);
        }
      });
    }
    return { call, host: new URL(member.endpoint).host };
  };

  if (members.length === 1) {
    const only = members[0]!;
    call = (method, encode, decode, req, timeoutMs) => {
      let frame: Buffer;
      try {
        frame = encodeChecked(encode, req);
        return callOn(only, method, frame, decode, timeoutMs);
      } catch (err) {
        return Promise.reject(err as Error);
      }
    };
  } else {
    breakers = new Map<Member, CircuitBreakerPolicy>(
      members.map((m) => [m, circuitBreaker(handleWhen(isConnectionFailure), { halfOpenAfter: 1000, breaker: new ConsecutiveBreaker(1) })]),
    );
    const global: RetryPolicy = retry(handleWhen(neverReachedServer), {
      maxAttempts: members.length * 2,
      backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 800 }),
    });
    call = async (method, encode, decode, req, timeoutMs) => {
      const frame = encodeChecked(encode, req);
      const order = shuffled(members);
      let next = 0;
      return global.execute(async () => {
        // As etcd3's pool: try members in turn; one whose breaker is open is skipped, a call
        // that went through ends the attempt with its outcome.
        let lastError: unknown;
        for (let i = 0; i < members.length; i++) {
          const member = order[next++ % order.length]!;
          let calledThrough = false;
          try {
            return await breakers!.get(member)!.execute(() => {
              calledThrough = true;
              return callOn(member, method, frame, decode, timeoutMs);
            });
          } catch (err) {
            if (calledThrough) throw err;
            lastError = err;
          }
        }
        throw lastError;
      });
    };
  }

  const hosts = members.map((m) => new URL(m.endpoint).host);
  return {
    hosts,
    range: (req, timeoutMs) => call(KV_RANGE, encodeRangeRequest, decodeRangeResponse, req, timeoutMs),
    put: (req, timeoutMs) => call(KV_PUT, encodePutRequest, decodePutResponse, req, timeoutMs),
    deleteRange: (req, timeoutMs) => call(KV_DELETE_RANGE, encodeDeleteRangeRequest, decodeDeleteRangeResponse, req, timeoutMs),
    txn: (req, timeoutMs) => call(KV_TXN, encodeTxnRequest, decodeTxnResponse, req, timeoutMs),
    compact: (req, timeoutMs) => call(KV_COMPACT, encodeCompactionRequest, decodeCompactionResponse, req, timeoutMs),
    leaseGrant: (req, timeoutMs) => call(LEASE_GRANT, encodeLeaseGrantRequest, decodeLeaseGrantResponse, req, timeoutMs),
    status: (timeoutMs) => call(MAINTENANCE_STATUS, encodeStatusRequest, decodeStatusResponse, {}, timeoutMs),
    memberStatus: async (host, timeoutMs) => {
      const member = members[hosts.indexOf(host)];
      if (member === undefined) throw new Error(`${host} is not one of the etcd endpoints`);
      return callOn(member, MAINTENANCE_STATUS, encodeChecked(encodeStatusRequest, {}), decodeStatusResponse, timeoutMs);
    },
    watch,
    close: () => {
      for (const member of members) member.close();
    },
  };
}

/** A random order of `items` (Fisher–Yates), as etcd3 picks members. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
