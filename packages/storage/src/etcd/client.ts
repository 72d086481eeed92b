import { Etcd3, type IOptions } from 'etcd3';
import { noop } from 'cockatiel';

/**
 * Creates the etcd3 client the backend uses when none is given: no client-side retries and no
 * circuit breaker (a failing call fails at once and is reported as Unreachable; retrying a
 * conditional write blindly could misreport its outcome), a per-call deadline, and short
 * reconnect backoff so that a restarted etcd is used again within about a second.
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
    },
  };
  return new Etcd3(options);
}
