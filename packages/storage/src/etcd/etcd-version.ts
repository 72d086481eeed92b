import type { Etcd3 } from 'etcd3';
import { createEtcdClient, type EtcdTlsFiles } from './client.js';
import { isEtcd3, type EtcdClient } from './etcd-calls.js';

/**
 * Whether an etcd server version answers on-demand progress requests only after every event
 * sent before them (etcd issue #15220; fixed in 3.4.31 and 3.5.13, and in every 3.6+). kube's
 * feature check uses the same thresholds for `RequestWatchProgress`. Unparsable → false.
 */
export function progressRequestsOrdered(version: string): boolean {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!match) return false;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor >= 6;
}

/**
 * Asks every member for its version through the Maintenance Status RPC (the own client: each
 * of its members in turn; an etcd3 client given with one endpoint or none: that client; with
 * several endpoints: a short-lived etcd3 client per endpoint, as a pooled client picks any
 * one). Trusted only when every member is new enough. Rejects when a member cannot be asked
 * (the caller may ask again later).
 */
export async function checkProgressRequestsOrdered(client: EtcdClient, endpoints: readonly string[], timeoutMs: number, tls?: EtcdTlsFiles): Promise<boolean> {
  if (!isEtcd3(client)) {
    const versions = await Promise.all(client.hosts.map(async (host) => (await client.memberStatus(host, timeoutMs)).version));
    return versions.every(progressRequestsOrdered);
  }
  const ask = async (c: Etcd3) => (await c.maintenance.status({ deadline: Date.now() + timeoutMs })).version;
  if (endpoints.length <= 1) return progressRequestsOrdered(await ask(client));
  const versions = await Promise.all(
    endpoints.map(async (endpoint) => {
      const single = createEtcdClient([endpoint], tls !== undefined ? { tls } : {});
      try {
        return await ask(single);
      } finally {
        single.close();
      }
    }),
  );
  return versions.every(progressRequestsOrdered);
}
