import { createEtcdStorage } from '@kapi/storage';
import { conformanceCases, etcdRawStore, runStorageConformance, startEtcd, uniquePrefix } from '@kapi/storage/testing';
import { createWatchCache } from './watch-cache.js';

/**
 * The shared storage conformance suite against the watch cache over a real etcd. One cacher
 * per case prefix, started before the case writes anything (as the apiserver starts its
 * cachers at startup). Compaction in the suite goes through the raw store; here it also tells
 * the backend, as the compactor does in a server, so the cache learns the compacted revision.
 */
runStorageConformance(
  'watch cache over etcd',
  async () => {
    const etcd = await startEtcd({ watchProgressNotifyIntervalMs: 250 });
    let compacted = 0;
    const backend = createEtcdStorage({ endpoints: etcd.endpoints, compaction: { compactedRevision: () => compacted } });
    const prefix = uniquePrefix();
    const storage = createWatchCache(backend, {
      resources: conformanceCases.map((_, i) => ({ prefix: `${prefix}/case-${i + 1}`, resource: `case-${i + 1}` })),
      waitTimeoutMs: 500,
      bookmarkIntervalMs: 200,
      tickMs: 50,
      logger: { warn: () => undefined },
    });
    await storage.ready();
    const raw = etcdRawStore(backend.client);
    return {
      storage,
      prefix,
      raw: {
        ...raw,
        async compact(revision) {
          await raw.compact(revision);
          compacted = Math.max(compacted, revision);
        },
      },
      bookmarkTimeoutMs: 2000,
      async cleanup() {
        await storage.close();
        await etcd.stop();
      },
    };
  },
  {
    skips: {
      'get/list: a stored value that is not an object fails with a StorageError (Corrupt), not a crash':
        'a value that does not decode ends the cache\'s feed; the cache re-lists (failing while the value is there), and meanwhile a list without a limit gets TooManyRequests ("storage is (re)initializing"), as kube\'s cacher does, not the decode error',
    },
  },
);
