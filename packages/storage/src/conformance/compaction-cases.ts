import assert from 'node:assert/strict';
import type { ConformanceCase } from './context.js';
import { configMap, createAll, keyFor, namesOf, rawOf, rejectsWith } from './context.js';
import { continueTooOldMessage, listTooOldMessage } from '../messages.js';

export const compactionCases: ConformanceCase[] = [
  {
    name: 'compaction: an Exact list at a compacted revision fails with Expired',
    raw: true,
    async run(ctx) {
      await createAll(ctx, ['a']);
      const old = await ctx.storage.list(`${ctx.prefix}/configmaps`);
      await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
      await rawOf(ctx).compact(await rawOf(ctx).revision());
      await rejectsWith(
        ctx.storage.list(`${ctx.prefix}/configmaps`, { resourceVersion: old.resourceVersion, resourceVersionMatch: 'Exact' }),
        'Expired',
        listTooOldMessage,
      );
    },
  },
  {
    name: 'compaction: a continue token at a compacted revision fails with Expired and an rv -1 token',
    raw: true,
    async run(ctx) {
      await createAll(ctx, ['a', 'b', 'c']);
      const key = `${ctx.prefix}/configmaps`;
      const first = await ctx.storage.list(key, { limit: 1 });
      await ctx.storage.create(keyFor(ctx.prefix, 'd'), configMap('d'));
      await rawOf(ctx).compact(await rawOf(ctx).revision());
      const err = await rejectsWith(ctx.storage.list(key, { limit: 1, continue: first.continue! }), 'Expired', continueTooOldMessage);
      assert.ok(err.inconsistentContinue);
      // The rv -1 token continues after the same key at the latest revision.
      const rest = await ctx.storage.list(key, { continue: err.inconsistentContinue });
      assert.deepEqual(namesOf(rest.items), ['b', 'c', 'd']);
      assert.equal(rest.resourceVersion, String(await rawOf(ctx).revision()));
      const paged = await ctx.storage.list(key, { limit: 1, continue: err.inconsistentContinue });
      assert.deepEqual(namesOf(paged.items), ['b']);
      const next = await ctx.storage.list(key, { limit: 5, continue: paged.continue! });
      assert.deepEqual(namesOf(next.items), ['c', 'd']);
      assert.equal(next.resourceVersion, paged.resourceVersion);
    },
  },
];
