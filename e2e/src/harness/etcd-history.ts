import { Etcd3 } from 'etcd3';
import type { AcknowledgedWrite } from './churn.js';
import type { EtcdCredentials } from './etcd-credentials.js';

/**
 * The ground truth a watch must reproduce, read from etcd itself (etcd3 gRPC watch, not
 * through kapi): every change of a key under `keyPrefix` with a revision in
 * (`afterRevision`, `untilRevision`], as watch events — a put whose create_revision equals its
 * mod_revision is ADDED, any other put MODIFIED, a delete DELETED at the deleting revision —
 * named by the key's last segment. Rejects after `timeoutMs` or when the revisions were compacted.
 */
export async function etcdHistory(endpoints: string[], keyPrefix: string, afterRevision: bigint, untilRevision: bigint, timeoutMs = 30_000, credentials?: EtcdCredentials): Promise<AcknowledgedWrite[]> {
  const client = new Etcd3({ hosts: endpoints, ...(credentials !== undefined ? { credentials } : {}) });
  const events: AcknowledgedWrite[] = [];
  const nameOf = (key: Buffer | string | undefined) => String(key ?? '').slice(keyPrefix.length);
  try {
    const watcher = await client.watch().prefix(keyPrefix).startRevision(String(afterRevision + 1n)).create();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`etcd history up to ${untilRevision}: only reached ${events.at(-1)?.resourceVersion ?? afterRevision} in ${timeoutMs} ms`)), timeoutMs);
      const seen = (revision: string) => {
        if (BigInt(revision) >= untilRevision) {
          clearTimeout(timer);
          resolve();
        }
      };
      watcher.on('put', (kv) => {
        if (BigInt(kv.mod_revision) > untilRevision) return;
        events.push({ type: kv.create_revision === kv.mod_revision ? 'ADDED' : 'MODIFIED', name: nameOf(kv.key), resourceVersion: kv.mod_revision });
        seen(kv.mod_revision);
      });
      watcher.on('delete', (kv) => {
        if (BigInt(kv.mod_revision) > untilRevision) return;
        events.push({ type: 'DELETED', name: nameOf(kv.key), resourceVersion: kv.mod_revision });
        seen(kv.mod_revision);
      });
      watcher.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    await watcher.cancel();
    return events;
  } finally {
    client.close();
  }
}

/** Compacts etcd's history up to its current revision (physical) and returns that revision. */
export async function compactEtcd(endpoints: string[], credentials?: EtcdCredentials): Promise<bigint> {
  const client = new Etcd3({ hosts: endpoints, ...(credentials !== undefined ? { credentials } : {}) });
  try {
    const revision = (await client.get('/kapi-e2e/compact-probe').exec()).header.revision;
    await client.kv.compact({ revision, physical: true });
    return BigInt(revision);
  } finally {
    client.close();
  }
}

/**
 * Writes one key outside the server's prefix, so that etcd's revision is past 1 before a
 * server starts: like any etcd that has lived, a watch from resourceVersion 1 then asks for
 * history older than the servers' caches (410 Expired), as it would on kube-apiserver. On a
 * fresh etcd a cache lists at revision 1 and serves such a watch from memory, as kube's does.
 */
export async function advanceEtcdRevision(endpoints: string[], credentials?: EtcdCredentials): Promise<void> {
  const client = new Etcd3({ hosts: endpoints, ...(credentials !== undefined ? { credentials } : {}) });
  try {
    await client.put('/kapi-e2e/lived').value('yes').exec();
  } finally {
    client.close();
  }
}
