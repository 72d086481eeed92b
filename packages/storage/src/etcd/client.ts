import { Etcd3, type IOptions } from 'etcd3';
import { noop } from 'cockatiel';

/**
 * Creates the etcd3 client the backend uses when none is given: no client-side retries and no
 * circuit breaker (a failing call fails at once and is reported as Unreachable; retrying a
 * conditional write blindly could misreport its outcome), a per-call deadline, and short
 * reconnect backoff so that a restarted etcd is used again within about a second. Responses
 * may be as large as etcd sends them (2 GiB - 1, as the Go client): gRPC's default 4 MiB
 * would fail a list of a few thousand objects, or a watch catching up on many events (etcd
 * sends a lagging watcher's backlog in one response).
 */
export function createEtcdClient(endpoints: string[], dialTimeoutMs = 5000): Etcd3 {
  const options: IOptions = {
    hosts: endpoints,
    dialTimeout: dialTimeoutMs,
    faultHandling: { host: () => noop, global: noop },
    grpcOptions: {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.max_receive_message_length': 2 ** 31 - 1,
    },
  };
  return new Etcd3(options);
}
