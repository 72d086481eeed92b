import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { ConformanceCase } from './context.js';
import { configMap, keyFor, rawOf, rejectsWith } from './context.js';

const withData = (obj: KubeObject | undefined, data: Record<string, string>): KubeObject => ({ ...obj!, data });

export const guaranteedUpdateCases: ConformanceCase[] = [
  {
    name: 'guaranteedUpdate: applies the update and returns it with the new resourceVersion',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a', { v: '1' }));
      let seen: KubeObject | undefined;
      const updated = await ctx.storage.guaranteedUpdate(key, (cur) => {
        seen = cur;
        return withData(cur, { v: '2' });
      });
      assert.deepEqual(seen, created);
      assert.deepEqual(updated.data, { v: '2' });
      const stored = await rawOf(ctx).read(key);
      assert.equal(updated.metadata.resourceVersion, String(stored!.modRevision));
      assert.ok(Number(updated.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
      assert.deepEqual(await ctx.storage.get(key), updated);
    },
  },
  {
    name: 'guaranteedUpdate: tryUpdate gets a private copy and a resourceVersion on the result is not stored',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a'));
      const updated = await ctx.storage.guaranteedUpdate(key, (cur) => {
        cur!.metadata.labels = { mutated: 'true' };
        return { ...cur!, metadata: { ...cur!.metadata, resourceVersion: '999999' } };
      });
      assert.deepEqual(updated.metadata.labels, { mutated: 'true' });
      assert.notEqual(updated.metadata.resourceVersion, '999999');
      assert.equal(created.metadata.labels, undefined);
      assert.equal((await rawOf(ctx).read(key))!.value.toString().includes('999999'), false);
    },
  },
  {
    name: 'guaranteedUpdate: concurrent conflicting updates are each applied exactly once',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'counter');
      await ctx.storage.create(key, configMap('counter', { n: '0' }));
      const writers = 10;
      let calls = 0;
      const results = await Promise.all(
        Array.from({ length: writers }, () =>
          ctx.storage.guaranteedUpdate(key, async (cur) => {
            calls++;
            await new Promise((resolve) => setTimeout(resolve, 1));
            return withData(cur, { n: String(Number((cur!.data as Record<string, string>).n) + 1) });
          }),
        ),
      );
      const final = await ctx.storage.get(key);
      assert.deepEqual(final!.data, { n: String(writers) });
      assert.ok(calls > writers, `expected retries after conflicts, tryUpdate ran ${calls} times`);
      assert.equal(new Set(results.map((r) => r.metadata.resourceVersion)).size, writers);
      assert.deepEqual(results.map((r) => (r.data as Record<string, string>).n).sort((a, b) => Number(a) - Number(b)),
        Array.from({ length: writers }, (_, i) => String(i + 1)));
    },
  },
  {
    name: 'guaranteedUpdate: uid and resourceVersion preconditions',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a'));
      const rv = created.metadata.resourceVersion!;
      await rejectsWith(
        ctx.storage.guaranteedUpdate(key, (cur) => withData(cur, { x: '1' }), { preconditions: { uid: 'other' } }),
        'InvalidObj',
        'Precondition failed: UID in precondition: other, UID in object meta: uid-a',
      );
      await rejectsWith(
        ctx.storage.guaranteedUpdate(key, (cur) => withData(cur, { x: '1' }), { preconditions: { resourceVersion: '1' } }),
        'InvalidObj',
        `Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${rv}`,
      );
      assert.deepEqual(await ctx.storage.get(key), created);
      const ok = await ctx.storage.guaranteedUpdate(key, (cur) => withData(cur, { x: '1' }), {
        preconditions: { uid: 'uid-a', resourceVersion: rv },
      });
      assert.deepEqual(ok.data, { x: '1' });
    },
  },
  {
    name: 'guaranteedUpdate: an unchanged object writes nothing and keeps its resourceVersion',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a', { v: '1' }));
      const before = await rawOf(ctx).revision();
      const result = await ctx.storage.guaranteedUpdate(key, (cur) => cur!);
      assert.deepEqual(result, created);
      const copy = await ctx.storage.guaranteedUpdate(key, (cur) => structuredClone(cur!));
      assert.equal(copy.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(await rawOf(ctx).revision(), before);
    },
  },
  {
    name: 'guaranteedUpdate: an error from tryUpdate aborts and nothing is written',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a'));
      const before = await rawOf(ctx).revision();
      const boom = new Error('refused by tryUpdate');
      await assert.rejects(
        ctx.storage.guaranteedUpdate(key, () => {
          throw boom;
        }),
        (err) => err === boom,
      );
      await assert.rejects(ctx.storage.guaranteedUpdate(key, () => Promise.reject(boom)), (err) => err === boom);
      assert.equal(await rawOf(ctx).revision(), before);
      assert.deepEqual(await ctx.storage.get(key), created);
    },
  },
  {
    name: 'guaranteedUpdate: returning null deletes the key in the same transaction',
    raw: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a', { v: '1' }));
      const deleted = await ctx.storage.guaranteedUpdate(key, () => null);
      assert.equal(deleted.metadata.name, 'a');
      assert.deepEqual(deleted.data, created.data);
      assert.equal(deleted.metadata.resourceVersion, String(await rawOf(ctx).revision()));
      assert.equal(await rawOf(ctx).read(key), undefined);
    },
  },
  {
    name: 'guaranteedUpdate: an absent key fails with KeyNotFound unless ignoreNotFound, which creates it',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      await rejectsWith(ctx.storage.guaranteedUpdate(key, () => configMap('a')), 'KeyNotFound');
      let seen: unknown = 'not called';
      const created = await ctx.storage.guaranteedUpdate(
        key,
        (cur) => {
          seen = cur;
          return configMap('a', { made: 'yes' });
        },
        { ignoreNotFound: true },
      );
      assert.equal(seen, undefined);
      assert.deepEqual(created.data, { made: 'yes' });
      assert.deepEqual(await ctx.storage.get(key), created);
    },
  },
  {
    name: 'guaranteedUpdate: a stale cachedExisting is replaced by the current object',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const stale = await ctx.storage.create(key, configMap('a', { v: '1' }));
      const fresh = await ctx.storage.guaranteedUpdate(key, (cur) => withData(cur, { v: '2' }));
      const seen: Array<string | undefined> = [];
      const result = await ctx.storage.guaranteedUpdate(
        key,
        (cur) => {
          seen.push(cur!.metadata.resourceVersion);
          return withData(cur, { ...(cur!.data as Record<string, string>), w: 'x' });
        },
        { cachedExisting: stale, preconditions: { resourceVersion: fresh.metadata.resourceVersion! } },
      );
      assert.deepEqual(result.data, { v: '2', w: 'x' });
      assert.equal(seen.at(-1), fresh.metadata.resourceVersion);
      // A no-op computed from a stale cached copy is checked against the store, not trusted.
      const noop = await ctx.storage.guaranteedUpdate(key, (cur) => cur!, { cachedExisting: stale });
      assert.deepEqual(noop, result);
    },
  },
  {
    name: 'guaranteedUpdate: a precondition failing on a current cachedExisting fails',
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const created = await ctx.storage.create(key, configMap('a'));
      await rejectsWith(
        ctx.storage.guaranteedUpdate(key, (cur) => withData(cur, { x: '1' }), {
          cachedExisting: created,
          preconditions: { uid: 'nope' },
        }),
        'InvalidObj',
      );
    },
  },
];
