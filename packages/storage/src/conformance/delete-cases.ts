import assert from 'node:assert/strict';
import type { ConformanceCase } from './context.js';
import { configMap, keyFor, rawOf, rejectsWith } from './context.js';

export const deleteCases: ConformanceCase[] = [
  {
    name: 'delete: removes the key and returns the object with the deleting revision',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a', { v: '1' }));
      const deleted = await ctx.storage.delete(key);
      const revision = await rawOf(ctx).revision();
      assert.equal(deleted.metadata.resourceVersion, String(revision));
      assert.ok(revision > Number(created.metadata.resourceVersion));
      assert.deepEqual({ ...deleted, metadata: { ...deleted.metadata, resourceVersion: '' } }, {
        ...created,
        metadata: { ...created.metadata, resourceVersion: '' },
      });
      assert.equal(await rawOf(ctx).read(key), undefined);
      await rejectsWith(ctx.storage.get(key), 'KeyNotFound');
    },
  },
  {
    name: 'delete: an absent key fails with KeyNotFound',
    async run(ctx) {
      await rejectsWith(ctx.storage.delete(keyFor(ctx.prefix, 'missing')), 'KeyNotFound');
    },
  },
  {
    name: 'delete: uid and resourceVersion preconditions',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a'));
      await rejectsWith(
        ctx.storage.delete(key, { preconditions: { uid: 'other' } }),
        'InvalidObj',
        'Precondition failed: UID in precondition: other, UID in object meta: uid-a',
      );
      await rejectsWith(
        ctx.storage.delete(key, { preconditions: { resourceVersion: '1' } }),
        'InvalidObj',
        `Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
      );
      assert.deepEqual(await ctx.storage.get(key), created);
      await ctx.storage.delete(key, { preconditions: { uid: 'uid-a', resourceVersion: created.metadata.resourceVersion! } });
      await rejectsWith(ctx.storage.get(key), 'KeyNotFound');
    },
  },
  {
    name: 'delete: validateDeletion sees the current object and can refuse',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a'));
      const refusal = new Error('admission says no');
      let seen: unknown;
      await assert.rejects(
        ctx.storage.delete(key, {
          validateDeletion: (cur) => {
            seen = cur;
            throw refusal;
          },
        }),
        (err) => err === refusal,
      );
      assert.deepEqual(seen, created);
      assert.deepEqual(await ctx.storage.get(key), created);
      await ctx.storage.delete(key, { validateDeletion: async () => {} });
      await rejectsWith(ctx.storage.get(key), 'KeyNotFound');
    },
  },
  {
    name: 'delete: a stale cachedExisting is checked against the current object',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const stale = await ctx.storage.create(key, configMap('a', { v: '1' }));
      const fresh = await ctx.storage.guaranteedUpdate(key, (cur) => ({ ...cur!, data: { v: '2' } }));
      const deleted = await ctx.storage.delete(key, {
        cachedExisting: stale,
        preconditions: { resourceVersion: fresh.metadata.resourceVersion! },
      });
      assert.deepEqual(deleted.data, { v: '2' });
      await rejectsWith(ctx.storage.delete(key, { cachedExisting: stale }), 'KeyNotFound');
    },
  },
  {
    name: 'delete: concurrent deletes of one key — exactly one succeeds',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      await ctx.storage.create(key, configMap('a'));
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => ctx.storage.delete(key)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) {
        if (r.status === 'rejected') assert.equal((r.reason as { code?: string }).code, 'KeyNotFound');
      }
    },
  },
];
