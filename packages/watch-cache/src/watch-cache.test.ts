import { createEtcdStorage } from '@kapi/storage';
import { etcdRawStore, runStorageConformance, startEtcd, uniquePrefix } from '@kapi/storage/testing';
import { createWatchCache } from './watch-cache.js';

runStorageConformance('watch cache over etcd', async () => {
  const etcd = await startEtcd();
  const backend = createEtcdStorage({ endpoints: etcd.endpoints });
  const storage = createWatchCache(backend);
  return {
    storage,
    prefix: uniquePrefix(),
    raw: etcdRawStore(backend.client),
    async cleanup() {
      await storage.close();
      await etcd.stop();
    },
  };
});
