import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeContinue, type KubeObject } from '@kapi/machinery';
import { pageFromCache } from './cacher-reads.js';
import { SortedMap } from './sorted-map.js';

const object = (name: string, rv: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(rv) } });
const key = (name: string) => `/configmaps/ns/${name}`;
const state = (entries: [string, number][], revision: number) => ({
  map: SortedMap.fromSorted(entries.map(([n]) => key(n)), entries.map(([n, rv]) => object(n, rv))),
  revision,
});

void test('pageFromCache: the cached objects of a page etcd lists, with its continue token and remaining count', () => {
  const s = state([['a', 5], ['b', 6], ['c', 7]], 7);
  const page = pageFromCache(s, '/configmaps/ns', { keys: [{ key: key('a'), modRevision: 5 }, { key: key('b'), modRevision: 6 }], count: 3, revision: 9 });
  assert.ok(page !== undefined);
  assert.equal(page.items[0], s.map.get(key('a')));
  assert.equal(page.items[1], s.map.get(key('b')));
  assert.equal(page.resourceVersion, '9');
  assert.equal(page.remainingItemCount, 1);
  assert.deepEqual(decodeContinue(page.continue!, '/configmaps/ns/'), { fromKey: `${key('b')}\u0000`, resourceVersion: 9 });
});

void test('pageFromCache: a last page has no token; a key missing or at another revision is no proof', () => {
  const s = state([['a', 5], ['b', 6]], 8);
  const last = pageFromCache(s, '/configmaps/ns', { keys: [{ key: key('a'), modRevision: 5 }, { key: key('b'), modRevision: 6 }], count: 2, revision: 8 });
  assert.equal(last?.continue, undefined);
  assert.equal(last?.remainingItemCount, undefined);
  // etcd has b at 9 (the cache is behind), or a key the cache has not seen, or the cache is past a change.
  assert.equal(pageFromCache(s, '/configmaps/ns', { keys: [{ key: key('a'), modRevision: 5 }, { key: key('b'), modRevision: 9 }], count: 3, revision: 9 }), undefined);
  assert.equal(pageFromCache(s, '/configmaps/ns', { keys: [{ key: key('a'), modRevision: 5 }, { key: key('c'), modRevision: 9 }], count: 3, revision: 9 }), undefined);
  assert.equal(pageFromCache(s, '/configmaps/ns', { keys: [{ key: key('a'), modRevision: 4 }], count: 2, revision: 4 }), undefined);
});
