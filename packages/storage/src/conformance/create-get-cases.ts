import assert from 'node:assert/strict';
import type { ConformanceCase } from './context.js';
import { configMap, keyFor, rawOf, rejectsWith } from './context.js';

export const createAndGetCases: ConformanceCase[] = [
  {
    name: 'create: stores the object and returns it with resourceVersion = mod_revision',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a', { x: '1' }));
      const stored = await rawOf(ctx).read(key);
      assert.ok(stored);
      assert.equal(created.metadata.resourceVersion, String(stored.modRevision));
      assert.deepEqual(created.data, { x: '1' });
      assert.equal(created.metadata.name, 'a');
    },
  },
  {
    name: 'create: the raw key is <prefix>/<resource>/<ns>/<name> and the value has no resourceVersion',
    raw: true,
    async run(ctx) {
      await ctx.storage.create(keyFor(ctx.prefix, 'n1', 'ns1', 'widgets'), configMap('n1', {}, 'ns1'));
      await ctx.storage.create(`${ctx.prefix}/namespaces/n2`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n2' } });
      assert.deepEqual(await rawOf(ctx).keys(`${ctx.prefix}/`), [`${ctx.prefix}/namespaces/n2`, `${ctx.prefix}/widgets/ns1/n1`]);
      const stored = await rawOf(ctx).read(`${ctx.prefix}/widgets/ns1/n1`);
      assert.ok(stored);
      assert.equal(stored.value.toString().includes('resourceVersion'), false);
    },
  },
  {
    name: 'create: an existing key fails with KeyExists and is left unchanged',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const first = await ctx.storage.create(key, configMap('a', { v: '1' }));
      await rejectsWith(ctx.storage.create(key, configMap('a', { v: '2' })), 'KeyExists');
      const got = await ctx.storage.get(key);
      assert.deepEqual(got, first);
    },
  },
  {
    name: 'create: an object with resourceVersion set is rejected and nothing is written',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const obj = configMap('a');
      obj.metadata.resourceVersion = '5';
      await assert.rejects(ctx.storage.create(key, obj), /resourceVersion should not be set on objects to be created/);
      assert.equal(await ctx.storage.get(key, { ignoreNotFound: true }), undefined);
    },
  },
  {
    name: 'create: does not mutate the caller object',
    async run(ctx) {
      const obj = configMap('a');
      const before = structuredClone(obj);
      await ctx.storage.create(keyFor(ctx.prefix, 'a'), obj);
      assert.deepEqual(obj, before);
    },
  },
  {
    name: 'get: returns the stored object with its resourceVersion',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a', { k: 'v' }));
      assert.deepEqual(await ctx.storage.get(key), created);
      assert.deepEqual(await ctx.storage.get(key, { resourceVersion: '0' }), created);
      assert.deepEqual(await ctx.storage.get(key, { resourceVersion: created.metadata.resourceVersion! }), created);
    },
  },
  {
    name: 'get: an absent key fails with KeyNotFound, or gives undefined with ignoreNotFound',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'missing');
      await rejectsWith(ctx.storage.get(key), 'KeyNotFound');
      assert.equal(await ctx.storage.get(key, { ignoreNotFound: true }), undefined);
    },
  },
  {
    name: 'get: a resourceVersion beyond the store fails with TooLargeResourceVersion',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      await ctx.storage.create(key, configMap('a'));
      const current = await ctx.storage.currentRevision();
      const err = await rejectsWith(
        ctx.storage.get(key, { resourceVersion: String(current + 1000) }),
        'TooLargeResourceVersion',
        /^Too large resource version: \d+, current: \d+$/,
      );
      assert.equal(err.requestedRevision, current + 1000);
    },
  },
  {
    name: 'get: a malformed resourceVersion fails with InvalidError',
    async run(ctx) {
      await rejectsWith(ctx.storage.get(keyFor(ctx.prefix, 'a'), { resourceVersion: 'abc' }), 'InvalidError');
    },
  },
  {
    name: 'get/list: a stored value that is not an object fails with a StorageError (Corrupt), not a crash',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'bad');
      await rawOf(ctx).put(key, Buffer.from('{not json'));
      await rejectsWith(ctx.storage.get(key), 'Corrupt');
      await rejectsWith(ctx.storage.list(`${ctx.prefix}/configmaps`), 'Corrupt');
      await rawOf(ctx).put(key, Buffer.from('"a string"'));
      await rejectsWith(ctx.storage.get(key), 'Corrupt');
    },
  },
  {
    name: 'currentRevision: the store revision, advancing with each write',
    raw: true,
    async run(ctx) {
      const before = await ctx.storage.currentRevision();
      assert.equal(before, await rawOf(ctx).revision());
      const created = await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a'));
      const after = await ctx.storage.currentRevision();
      assert.ok(after > before);
      assert.equal(String(after), created.metadata.resourceVersion);
    },
  },
];
