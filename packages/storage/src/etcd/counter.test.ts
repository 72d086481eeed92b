import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, uniquePrefix } from '../testing/index.js';
import { createEtcdStorage } from './etcd-storage.js';

void test('count: the number of objects under a resource prefix, not under sibling prefixes', async () => {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ endpoints: etcd.endpoints });
  try {
    const prefix = uniquePrefix();
    assert.equal(await storage.count(`${prefix}/pods`), 0);
    for (const name of ['a', 'b', 'c']) await storage.create(`${prefix}/pods/ns/${name}`, { metadata: { name } });
    await storage.create(`${prefix}/podsx/ns/d`, { metadata: { name: 'd' } });
    assert.equal(await storage.count(`${prefix}/pods`), 3);
    assert.equal(await storage.count(`${prefix}/pods/ns`), 3);
    await storage.delete(`${prefix}/pods/ns/a`);
    assert.equal(await storage.count(`${prefix}/pods`), 2);
  } finally {
    await storage.close();
    await etcd.stop();
  }
});
