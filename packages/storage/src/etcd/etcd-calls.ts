/**
 * The two etcd clients kapi can use, and the unary calls made on either. kapi's own client
 * (grpc/unary-client.ts) is the default everywhere; the etcd3 npm client (over @grpc/grpc-js)
 * remains for comparison (KAPI_ETCD_KV_CLIENT / KAPI_ETCD_WATCH_CLIENT=etcd3) and for callers
 * that pass one in. Both take the same requests and give the same responses and error
 * classes, so code written against `EtcdCalls` runs on either.
 */
import type { Etcd3 } from 'etcd3';
import type { EtcdUnaryClient } from './grpc/unary-client.js';

/** Either client. */
export type EtcdClient = Etcd3 | EtcdUnaryClient;

/** The unary calls, each with its deadline relative to now (see EtcdUnaryClient for each). */
export type EtcdCalls = Pick<EtcdUnaryClient, 'range' | 'put' | 'deleteRange' | 'txn' | 'compact' | 'leaseGrant' | 'status'>;

/** Told apart by shape (`memberStatus` is the own client's), so that the etcd3 module need not be loaded to ask. */
export function isEtcd3(client: EtcdClient): client is Etcd3 {
  return typeof (client as Partial<EtcdUnaryClient>).memberStatus !== 'function';
}

/** `client`'s calls: the own client itself, or the etcd3 client's (its pool's failover). */
export function etcdCalls(client: EtcdClient): EtcdCalls {
  if (!isEtcd3(client)) return client;
  const deadline = (timeoutMs: number) => ({ deadline: Date.now() + timeoutMs });
  return {
    range: (req, timeoutMs) => client.kv.range(req, deadline(timeoutMs)),
    put: (req, timeoutMs) => client.kv.put(req, deadline(timeoutMs)),
    deleteRange: (req, timeoutMs) => client.kv.deleteRange(req, deadline(timeoutMs)),
    txn: (req, timeoutMs) => client.kv.txn(req, deadline(timeoutMs)),
    compact: (req, timeoutMs) => client.kv.compact(req, deadline(timeoutMs)),
    leaseGrant: (req, timeoutMs) => client.leaseClient.leaseGrant(req, deadline(timeoutMs)),
    status: (timeoutMs) => client.maintenance.status(deadline(timeoutMs)),
  };
}
