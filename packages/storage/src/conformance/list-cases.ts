import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { ListOptions, Predicate } from '../interface.js';
import type { ConformanceCase, ConformanceContext } from './context.js';
import { configMap, createAll, keyFor, namesOf, rejectsWith } from './context.js';

const names = (n: number, stem = 'item') => Array.from({ length: n }, (_, i) => `${stem}-${String(i).padStart(2, '0')}`);

/** Matches objects whose name ends in an even digit. */
const evenNames: Predicate = {
  empty: false,
  matches: (obj: KubeObject) => Number((obj.metadata.name ?? '').slice(-1)) % 2 === 0,
};

/** Follows continue tokens to the end; returns every item and each page's result. */
async function listAll(ctx: ConformanceContext, key: string, options: ListOptions) {
  const pages = [];
  let token: string | undefined;
  do {
    const page = await ctx.storage.list(key, { ...options, ...(token ? { continue: token } : {}) });
    pages.push(page);
    token = page.continue;
    assert.ok(pages.length < 1000, 'too many pages');
  } while (token);
  return { items: pages.flatMap((p) => p.items), pages };
}

export const listCases: ConformanceCase[] = [
  {
    name: 'list: items ordered by key, list resourceVersion = current revision',
    async run(ctx) {
      await createAll(ctx, ['c', 'a', 'b']);
      await ctx.storage.create(keyFor(ctx.prefix, 'a', 'other'), configMap('a', {}, 'other'));
      const result = await ctx.storage.list(`${ctx.prefix}/configmaps`);
      assert.deepEqual(
        result.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`),
        ['default/a', 'default/b', 'default/c', 'other/a'],
      );
      assert.equal(result.resourceVersion, String(await ctx.storage.currentRevision()));
      assert.equal(result.continue, undefined);
      assert.equal(result.remainingItemCount, undefined);
      for (const item of result.items) assert.match(item.metadata.resourceVersion ?? '', /^[1-9]\d*$/);
      const namespaced = await ctx.storage.list(`${ctx.prefix}/configmaps/other`);
      assert.deepEqual(namesOf(namespaced.items), ['a']);
    },
  },
  {
    name: 'list: an empty prefix gives no items and a revision',
    async run(ctx) {
      const result = await ctx.storage.list(`${ctx.prefix}/configmaps`);
      assert.deepEqual(result.items, []);
      assert.match(result.resourceVersion, /^[1-9]\d*$/);
    },
  },
  {
    name: 'list: listing /a does not return keys under /ab',
    async run(ctx) {
      await ctx.storage.create(`${ctx.prefix}/a/x`, configMap('x'));
      await ctx.storage.create(`${ctx.prefix}/ab/y`, configMap('y'));
      await ctx.storage.create(`${ctx.prefix}/a`, configMap('self'));
      assert.deepEqual(namesOf((await ctx.storage.list(`${ctx.prefix}/a`)).items), ['x']);
      assert.deepEqual(namesOf((await ctx.storage.list(`${ctx.prefix}/a/`)).items), ['x']);
    },
  },
  {
    name: 'list: recursive=false reads only the single key',
    async run(ctx) {
      await createAll(ctx, ['a', 'ab']);
      const key = keyFor(ctx.prefix, 'a');
      const one = await ctx.storage.list(key, { recursive: false });
      assert.deepEqual(namesOf(one.items), ['a']);
      assert.equal(one.continue, undefined);
      const none = await ctx.storage.list(keyFor(ctx.prefix, 'zz'), { recursive: false });
      assert.deepEqual(none.items, []);
    },
  },
  {
    name: 'list: limit pages at the revision pinned by the first page; later writes do not appear',
    async run(ctx) {
      await createAll(ctx, names(5));
      const key = `${ctx.prefix}/configmaps`;
      const first = await ctx.storage.list(key, { limit: 2 });
      assert.deepEqual(namesOf(first.items), ['item-00', 'item-01']);
      assert.ok(first.continue);
      assert.equal(first.remainingItemCount, 3);

      // Writes after the first page: a new key inside the range, a change, a delete.
      await ctx.storage.create(keyFor(ctx.prefix, 'item-02a'), configMap('item-02a'));
      await ctx.storage.guaranteedUpdate(keyFor(ctx.prefix, 'item-03'), (cur) => ({ ...cur!, data: { changed: 'yes' } }));
      await ctx.storage.delete(keyFor(ctx.prefix, 'item-04'));

      const second = await ctx.storage.list(key, { limit: 2, continue: first.continue });
      assert.equal(second.resourceVersion, first.resourceVersion);
      assert.deepEqual(namesOf(second.items), ['item-02', 'item-03']);
      assert.deepEqual(second.items[1]!.data, {});
      assert.equal(second.remainingItemCount, 1);
      const third = await ctx.storage.list(key, { limit: 2, continue: second.continue! });
      assert.deepEqual(namesOf(third.items), ['item-04']);
      assert.equal(third.continue, undefined);
      assert.equal(third.remainingItemCount, undefined);
      assert.equal(third.resourceVersion, first.resourceVersion);
    },
  },
  {
    name: 'list: a limit equal to the number of items gives no continue token',
    async run(ctx) {
      await createAll(ctx, names(3));
      const result = await ctx.storage.list(`${ctx.prefix}/configmaps`, { limit: 3 });
      assert.equal(result.items.length, 3);
      assert.equal(result.continue, undefined);
      assert.equal(result.remainingItemCount, undefined);
    },
  },
  {
    name: 'list: a predicate filters items, fills pages and omits remainingItemCount',
    async run(ctx) {
      await createAll(ctx, names(11));
      const key = `${ctx.prefix}/configmaps`;
      const first = await ctx.storage.list(key, { limit: 2, predicate: evenNames });
      assert.deepEqual(namesOf(first.items), ['item-00', 'item-02']);
      assert.ok(first.continue);
      assert.equal(first.remainingItemCount, undefined);
      const all = await listAll(ctx, key, { limit: 2, predicate: evenNames });
      assert.deepEqual(namesOf(all.items), ['item-00', 'item-02', 'item-04', 'item-06', 'item-08', 'item-10']);
      for (const page of all.pages) assert.ok(page.items.length <= 2);
      const unpaged = await ctx.storage.list(key, { predicate: evenNames });
      assert.equal(unpaged.items.length, 6);
    },
  },
  {
    name: 'list: a sparse predicate still fills the page by reading on',
    async run(ctx) {
      await createAll(ctx, names(40));
      const onlyLast: Predicate = { empty: false, matches: (o) => o.metadata.name === 'item-37' };
      const page = await ctx.storage.list(`${ctx.prefix}/configmaps`, { limit: 1, predicate: onlyLast });
      assert.deepEqual(namesOf(page.items), ['item-37']);
      if (page.continue) {
        const rest = await ctx.storage.list(`${ctx.prefix}/configmaps`, { limit: 1, predicate: onlyLast, continue: page.continue });
        assert.deepEqual(rest.items, []);
        assert.equal(rest.continue, undefined);
      }
    },
  },
  {
    name: 'list: Exact resourceVersion reads the state at that revision',
    async run(ctx) {
      await createAll(ctx, ['a', 'b']);
      const before = await ctx.storage.list(`${ctx.prefix}/configmaps`);
      await ctx.storage.create(keyFor(ctx.prefix, 'c'), configMap('c'));
      await ctx.storage.delete(keyFor(ctx.prefix, 'a'));
      const old = await ctx.storage.list(`${ctx.prefix}/configmaps`, {
        resourceVersion: before.resourceVersion,
        resourceVersionMatch: 'Exact',
      });
      assert.equal(old.resourceVersion, before.resourceVersion);
      assert.deepEqual(old.items, before.items);
      // Legacy: an RV with a limit and no match is Exact too.
      const legacy = await ctx.storage.list(`${ctx.prefix}/configmaps`, { resourceVersion: before.resourceVersion, limit: 10 });
      assert.deepEqual(namesOf(legacy.items), ['a', 'b']);
      const now = await ctx.storage.list(`${ctx.prefix}/configmaps`, { resourceVersion: before.resourceVersion, resourceVersionMatch: 'NotOlderThan' });
      assert.deepEqual(namesOf(now.items), ['b', 'c']);
      assert.ok(Number(now.resourceVersion) > Number(before.resourceVersion));
    },
  },
  {
    name: 'list: NotOlderThan beyond the store fails with TooLargeResourceVersion',
    async run(ctx) {
      const current = await ctx.storage.currentRevision();
      const requested = current + 1000;
      for (const options of [
        { resourceVersion: String(requested), resourceVersionMatch: 'NotOlderThan' as const },
        { resourceVersion: String(requested) },
      ]) {
        const err = await rejectsWith(
          ctx.storage.list(`${ctx.prefix}/configmaps`, options),
          'TooLargeResourceVersion',
          new RegExp(`^Too large resource version: ${requested}, current: \\d+$`),
        );
        assert.equal(err.requestedRevision, requested);
        assert.ok((err.currentRevision ?? 0) >= current);
      }
    },
  },
  {
    name: 'list: Exact resourceVersion in the future fails with TooLargeResourceVersion',
    async run(ctx) {
      const requested = (await ctx.storage.currentRevision()) + 1000;
      await rejectsWith(
        ctx.storage.list(`${ctx.prefix}/configmaps`, { resourceVersion: String(requested), resourceVersionMatch: 'Exact' }),
        'TooLargeResourceVersion',
      );
    },
  },
  {
    name: 'list: a resourceVersion with a continue token, or a malformed token, fails with InvalidContinue',
    async run(ctx) {
      await createAll(ctx, names(3));
      const first = await ctx.storage.list(`${ctx.prefix}/configmaps`, { limit: 1 });
      await rejectsWith(
        ctx.storage.list(`${ctx.prefix}/configmaps`, { limit: 1, continue: first.continue!, resourceVersion: first.resourceVersion }),
        'InvalidContinue',
        'specifying resource version is not allowed when using continue',
      );
      // "0" is allowed with a continue token.
      const second = await ctx.storage.list(`${ctx.prefix}/configmaps`, { limit: 1, continue: first.continue!, resourceVersion: '0' });
      assert.deepEqual(namesOf(second.items), ['item-01']);
      await rejectsWith(ctx.storage.list(`${ctx.prefix}/configmaps`, { continue: '%%%not-a-token' }), 'InvalidContinue', /^invalid continue token: /);
    },
  },
  {
    name: 'list: a malformed resourceVersion fails with InvalidError',
    async run(ctx) {
      await rejectsWith(ctx.storage.list(`${ctx.prefix}/configmaps`, { resourceVersion: '12x' }), 'InvalidError');
    },
  },
];
