import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '@kapi/machinery';
import type { IndexedMatch, Predicate } from '@kapi/storage';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { Reader, configMap, names, startCacheFixture } from './testing/cache-fixture.js';

/** ConfigMaps "scheduled" to a node by data.node, selected as pods are by spec.nodeName. */
const nodeOf = (obj: KubeObject): string => {
  const data = obj['data'] as Record<string, string> | undefined;
  return data?.['node'] ?? '';
};

function onNode(node: string, indexed = true): Predicate {
  const index: IndexedMatch = { field: 'data.node', value: node, valueOf: nodeOf };
  return { empty: false, matches: (obj) => nodeOf(obj) === node, ...(indexed ? { index } : {}) };
}

const placed = (name: string, node: string, namespace = 'default') => configMap(name, { node }, namespace);

void describe('watch cache field index', { concurrency: false }, () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });

  void test('indexed watchers get exactly what predicate-tested watchers get, moves included', async () => {
    const f = await startCacheFixture(etcd);
    try {
      const start = String(await f.cache.currentRevision());
      const a = new Reader(await f.cache.watch(f.resource, { resourceVersion: start, predicate: onNode('a') }));
      const b = new Reader(await f.cache.watch(f.resource, { resourceVersion: start, predicate: onNode('b') }));
      const plainA = new Reader(await f.cache.watch(f.resource, { resourceVersion: start, predicate: onNode('a', false) }));
      const otherNamespace = new Reader(await f.cache.watch(`${f.resource}/other`, { resourceVersion: start, predicate: onNode('a') }));
      await f.cache.create(f.key('x'), placed('x', 'a'));
      await f.cache.create(f.key('y'), placed('y', 'c'));
      await f.cache.guaranteedUpdate(f.key('x'), (cur) => ({ ...cur!, data: { node: 'b' } }));
      await f.cache.delete(f.key('x'));
      await f.cache.create(f.key('z', 'other'), placed('z', 'a', 'other'));

      const seen = async (r: Reader, n: number) => (await r.changes(n)).map((e) => `${e.type} ${(e.object as KubeObject).metadata.name}/${nodeOf(e.object as KubeObject)}`);
      // Leaving node a is a DELETED of the state that matched, at the move's revision.
      assert.deepEqual(await seen(a, 3), ['ADDED x/a', 'DELETED x/a', 'ADDED z/a']);
      assert.deepEqual(await seen(plainA, 3), ['ADDED x/a', 'DELETED x/a', 'ADDED z/a']);
      assert.deepEqual(await seen(b, 2), ['ADDED x/b', 'DELETED x/b']);
      // The scope still applies to indexed watchers.
      assert.deepEqual(await seen(otherNamespace, 1), ['ADDED z/a']);
      assert.equal(await b.next(300), 'timeout');
      assert.equal(await otherNamespace.next(300), 'timeout');
      for (const r of [a, b, plainA, otherNamespace]) r.watch.stop();
      // A stopped indexed watcher is forgotten: further writes reach nobody and nothing fails.
      await f.cache.create(f.key('w'), placed('w', 'a'));
    } finally {
      await f.close();
    }
  });

  void test('lists with an index hint return what a full scan returns, pages and later changes included', async () => {
    const f = await startCacheFixture(etcd);
    try {
      for (let i = 0; i < 12; i++) await f.cache.create(f.key(`p${String(i).padStart(2, '0')}`), placed(`p${i}`, `n${i % 3}`));
      await f.cache.create(f.key('q', 'other'), placed('q', 'n1', 'other'));
      const list = async (predicate: Predicate, key = f.resource) => names((await f.cache.list(key, { resourceVersion: '0', predicate })).items);
      assert.deepEqual(await list(onNode('n1')), await list(onNode('n1', false)));
      assert.deepEqual(await list(onNode('n1')), ['p1', 'p4', 'p7', 'p10', 'q']);
      assert.deepEqual(await list(onNode('n1'), `${f.resource}/default`), ['p1', 'p4', 'p7', 'p10']);
      assert.deepEqual(await list(onNode('none')), []);
      // Served from the index: only the candidates are tested.
      let listTested = 0;
      const counting = onNode('n1');
      await list({ ...counting, matches: (obj) => (listTested++, counting.matches(obj)) });
      assert.equal(listTested, 5);
      // The index follows changes after it was built: a move, a delete, a create.
      await f.cache.guaranteedUpdate(f.key('p04'), (cur) => ({ ...cur!, data: { node: 'n2' } }));
      await f.cache.delete(f.key('p07'));
      await f.cache.create(f.key('p99'), placed('p99', 'n1'));
      assert.deepEqual(await list(onNode('n1')), ['p1', 'p10', 'p99', 'q']);
      assert.deepEqual(await list(onNode('n2')), await list(onNode('n2', false)));
      // Pages of 2 through continue tokens (served from the snapshot they are pinned to).
      const paged: string[] = [];
      let token: string | undefined;
      do {
        const page = await f.cache.list(`${f.resource}/default`, { resourceVersion: '0', limit: 2, predicate: onNode('n1'), ...(token !== undefined ? { continue: token } : {}) });
        paged.push(...names(page.items));
        token = page.continue;
      } while (token !== undefined);
      assert.deepEqual(paged, ['p1', 'p10', 'p99']);
      // A watch's initial events come from the index too.
      let tested = 0;
      const base = onNode('n1');
      const initial = new Reader(await f.cache.watch(f.resource, { resourceVersion: '0', predicate: { ...base, matches: (obj) => (tested++, base.matches(obj)) } }));
      assert.deepEqual(names((await initial.changes(4)).map((e) => e.object as KubeObject)), ['p1', 'p10', 'p99', 'q']);
      assert.equal(tested, 4);
      initial.watch.stop();
    } finally {
      await f.close();
    }
  });
});
