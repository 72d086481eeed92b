import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Etcd3, IOptions } from 'etcd3';
import { ConsecutiveBreaker, ExponentialBackoff, circuitBreaker, handleWhen, isBrokenCircuitError, noop, retry } from 'cockatiel';
import { isConnectionFailure } from './errors.js';
import { MemberFaultHandling } from './member-fault-handling.js';
import { DEFAULT_MAX_REQUEST_BYTES, maxSendMessageBytes } from './request-size.js';

/**
 * True for a failure that proves etcd never processed the call — no connection could be made,
 * the member refused it up front because it has no leader (`etcdserver: no leader`, the
 * answer to a call that requires one), or every member's circuit breaker was open so it was
 * never sent (after an election, when each member answered "no leader" for a moment, the
 * breakers stay open for their half-open delay although a leader is back) — so sending it
 * (again) cannot apply it twice.
 */
export function neverReachedServer(err: unknown): boolean {
  if (isBrokenCircuitError(err)) return true;
  const message = err instanceof Error ? err.message : String(err);
  return /No connection established|ECONNREFUSED|connect EHOSTUNREACH|Failed to connect|etcdserver: no leader/i.test(message);
}

interface GrpcMetadata {
  set(key: string, value: string): void;
}

/**
 * Every call carries etcd's `hasleader: true` (Go's `clientv3.WithRequireLeader`): a member
 * cut off from the majority answers `etcdserver: no leader` at once (and ends its watch
 * streams) instead of holding linearizable reads and writes until their deadline. The etcd3
 * client has no per-call metadata, so this wraps the metadata its pool attaches to each call;
 * a client shaped otherwise is left as it is.
 */
function requireLeader(client: Etcd3): void {
  const authenticator = (client as unknown as { pool?: { authenticator?: { getMetadata?: () => Promise<GrpcMetadata> } } }).pool?.authenticator;
  const getMetadata = authenticator?.getMetadata;
  if (authenticator === undefined || typeof getMetadata !== 'function') return;
  authenticator.getMetadata = async () => {
    const metadata = await getMetadata.call(authenticator);
    metadata.set('hasleader', 'true');
    return metadata;
  };
}

export interface EtcdClientOptions {
  /** The client's dial timeout. Default 5000 ms. */
  readonly dialTimeoutMs?: number;
  /**
   * The etcd cluster's `--max-request-bytes` (default 1.5 MiB, etcd's default). The client
   * sends no gRPC message larger than what etcd's gRPC server reads: this plus 512 KiB (2 MiB
   * by default, the Go client's default send limit).
   */
  readonly maxRequestBytes?: number;
  /**
   * TLS to etcd (kube's --etcd-cafile, --etcd-certfile, --etcd-keyfile): the authorities that
   * sign etcd's serving certificate (default the system's) and the client certificate and key
   * presented to an etcd that requires client certificates. Certificate and key go together.
   */
  readonly tls?: EtcdTlsFiles;
}

/** PEM files for TLS to etcd; each may be empty. */
export interface EtcdTlsFiles {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/**
 * The gRPC credentials for `tls`, read now so that a missing or unreadable file fails the
 * start with its name (kube: "open <file>: no such file or directory"), undefined when no file is given.
 */
export function etcdCredentials(tls: EtcdTlsFiles | undefined): IOptions['credentials'] | undefined {
  const caFile = tls?.caFile ?? '';
  const certFile = tls?.certFile ?? '';
  const keyFile = tls?.keyFile ?? '';
  if (caFile === '' && certFile === '' && keyFile === '') return undefined;
  if ((certFile === '') !== (keyFile === '')) throw new Error(`KeyFile and CertFile must both be present[key: ${keyFile}, cert: ${certFile}]`);
  const read = (file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`open ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
    }
  };
  // An empty root list means "the system's authorities" to gRPC, as an unset --etcd-cafile does to kube.
  return {
    rootCertificate: caFile === '' ? (undefined as unknown as Buffer) : read(caFile),
    ...(certFile !== '' ? { certChain: read(certFile), privateKey: read(keyFile) } : {}),
  };
}

/**
 * Creates the etcd3 client the backend uses when none is given. With several members, each
 * member has a circuit breaker: one connection failure sets it aside for a second, so calls go
 * to the members that are up (kube's client balances the same way). Calls require a leader
 * (see `requireLeader`), so a partitioned member refuses them at once and is set aside too. A
 * call is retried on another member, with a short backoff that outlasts a leader election,
 * only when it provably was never processed; any other failure fails at once
 * and is reported as Unreachable (retrying a conditional write blindly could misreport its
 * outcome). With a single member there is nothing to fail over to, so no breaker either: a
 * restarted etcd is used again as soon as it answers. Only connection failures count against
 * a member or rebuild its channels (see member-fault-handling.ts): a request etcd refuses
 * (too large, say) leaves the connection, its watch streams and the breaker as they were.
 *
 * A per-call deadline, keepalive pings (a member that stops answering them within 5 s has
 * its connection closed and its calls fail as UNAVAILABLE), and short reconnect backoff so
 * that a restarted etcd is used again within about a second. Responses may be as large as
 * etcd sends them (2 GiB - 1, as the Go client): gRPC's default 4 MiB would fail a list of a
 * few thousand objects, or a watch catching up on many events (etcd sends a lagging
 * watcher's backlog in one response; neither is bounded by `--max-request-bytes`). Requests
 * are bounded by what etcd reads (see `EtcdClientOptions.maxRequestBytes`).
 */
/**
 * The etcd3 module, loaded on first use: loading it loads @grpc/grpc-js and parses etcd's
 * .proto files (about 26 MiB of heap and half a second of CPU), which a server on kapi's own
 * client never needs.
 */
function etcd3Module(): typeof import('etcd3') {
  return createRequire(import.meta.url)('etcd3') as typeof import('etcd3');
}

export function createEtcdClient(endpoints: string[], clientOptions: EtcdClientOptions = {}): Etcd3 {
  const maxRequestBytes = clientOptions.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const credentials = etcdCredentials(clientOptions.tls);
  const options: IOptions = {
    hosts: endpoints,
    ...(credentials !== undefined ? { credentials } : {}),
    dialTimeout: clientOptions.dialTimeoutMs ?? 5000,
    faultHandling:
      endpoints.length > 1
        ? {
            host: () =>
              new MemberFaultHandling(circuitBreaker(handleWhen(isConnectionFailure), { halfOpenAfter: 1000, breaker: new ConsecutiveBreaker(1) })),
            global: retry(handleWhen(neverReachedServer), {
              maxAttempts: endpoints.length * 2,
              backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 800 }),
            }),
          }
        : { host: () => new MemberFaultHandling(), global: noop },
    grpcOptions: {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.max_receive_message_length': 2 ** 31 - 1,
      'grpc.max_send_message_length': maxSendMessageBytes(maxRequestBytes),
    },
  };
  const client = new (etcd3Module().Etcd3)(options);
  if (endpoints.length > 1) requireLeader(client);
  return client;
}
