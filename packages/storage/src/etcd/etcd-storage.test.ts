import { runStorageConformance, etcdRawStore } from '../conformance/index.js';
import { startEtcd, uniquePrefix } from '../testing/index.js';
import { createEtcdStorage } from './etcd-storage.js';

runStorageConformance('etcd', async () => {
  // Short progress notifications, so quiet watches get BOOKMARKs within a second.
  const etcd = await startEtcd({ watchProgressNotifyIntervalMs: 250 });
  const storage = createEtcdStorage({ endpoints: etcd.endpoints });
  return {
    storage,
    prefix: uniquePrefix(),
    raw: etcdRawStore(storage.client),
    bookmarkTimeoutMs: 2000,
    async cleanup() {
      await storage.close();
      await etcd.stop();
    },
  };
});
