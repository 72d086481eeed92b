import type { Etcd3 } from 'etcd3';
import { createEtcdClient, type EtcdTlsFiles } from './client.js';

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
 * Asks every endpoint for its version through the Maintenance Status RPC (one endpoint: the
 * given client; several: a short-lived client per endpoint, as a pooled client picks any
 * one). Trusted only when every endpoint is new enough. Rejects when an endpoint cannot be
 * asked (the caller may ask again later).
 */
export async function checkProgressRequestsOrdered(client: Etcd3, endpoints: readonly string[], timeoutMs: number, tls?: EtcdTlsFiles): Promise<boolean> {
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
