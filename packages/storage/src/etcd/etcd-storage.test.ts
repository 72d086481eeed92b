import { runStorageConformance, etcdRawStore } from '../conformance/index.js';
import { startEtcd, uniquePrefix } from '../testing/index.js';
import { createEtcdStorage } from './etcd-storage.js';

runStorageConformance('etcd', async () => {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ endpoints: etcd.endpoints });
  return {
    storage,
    prefix: uniquePrefix(),
    raw: etcdRawStore(storage.client),
    async cleanup() {
      await storage.close();
      await etcd.stop();
    },
  };
});
