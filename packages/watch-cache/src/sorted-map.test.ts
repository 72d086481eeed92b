import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SortedMap } from './sorted-map.js';
import { compareKeys } from './key-order.js';

function entries<V>(map: SortedMap<V>, from = ''): [string, V][] {
  const out: [string, V][] = [];
  map.forEachFrom(from, (k, v) => {
    out.push([k, v]);
    return true;
  });
  return out;
}

/** A tiny deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

void test('sorted map: random sets and deletes match a reference map, and old versions stay intact', () => {
  const random = rng(42);
  let map = SortedMap.empty<number>();
  const reference = new Map<string, number>();
  const versions: { map: SortedMap<number>; expected: [string, number][] }[] = [];
  for (let step = 0; step < 6000; step++) {
    const key = `/registry/pods/ns-${Math.floor(random() * 7)}/pod-${Math.floor(random() * 400)}`;
    if (random() < 0.35) {
      map = map.delete(key);
      reference.delete(key);
    } else {
      map = map.set(key, step);
      reference.set(key, step);
    }
    if (step % 500 === 0) {
      versions.push({ map, expected: [...reference.entries()].sort((a, b) => compareKeys(a[0], b[0])) });
    }
  }
  const expected = [...reference.entries()].sort((a, b) => compareKeys(a[0], b[0]));
  assert.deepEqual(entries(map), expected);
  assert.equal(map.size, expected.length);
  for (const v of versions) {
    assert.deepEqual(entries(v.map), v.expected);
    assert.equal(v.map.size, v.expected.length);
  }
  for (const [key, value] of expected) assert.equal(map.get(key), value);
  assert.equal(map.get('/registry/pods/none'), undefined);
  // countBelow and forEachFrom agree with the sorted reference at arbitrary start keys.
  for (let i = 0; i < 200; i++) {
    const probe = `/registry/pods/ns-${Math.floor(random() * 8)}/pod-${Math.floor(random() * 500)}`;
    const below = expected.filter(([k]) => compareKeys(k, probe) < 0).length;
    assert.equal(map.countBelow(probe), below);
    assert.deepEqual(entries(map, probe), expected.slice(below));
    // valuesFrom reads a range: the next `count` values, fewer at the end of the map.
    const count = Math.floor(random() * 300);
    assert.deepEqual(map.valuesFrom(probe, count), expected.slice(below, below + count).map(([, v]) => v));
  }
  assert.deepEqual(map.valuesFrom('', map.size + 5), expected.map(([, v]) => v));
  assert.deepEqual(map.valuesFrom('', 0), []);
  // Deleting everything gives an empty map.
  for (const [key] of expected) map = map.delete(key);
  assert.equal(map.size, 0);
  assert.deepEqual(entries(map), []);
});

void test('sorted map: fromSorted builds the same map as repeated sets; forEachFrom stops when asked', () => {
  const keys = Array.from({ length: 5000 }, (_, i) => `/k/${String(i).padStart(5, '0')}`);
  const built = SortedMap.fromSorted(keys, keys.map((_, i) => i));
  assert.equal(built.size, 5000);
  assert.equal(built.get('/k/04321'), 4321);
  assert.equal(built.countBelow('/k/02500'), 2500);
  const seen: string[] = [];
  built.forEachFrom('/k/00010\x00', (k) => {
    seen.push(k);
    return seen.length < 3;
  });
  assert.deepEqual(seen, ['/k/00011', '/k/00012', '/k/00013']);
  const grown = built.set('/k/00010a', -1);
  assert.equal(built.get('/k/00010a'), undefined);
  assert.equal(grown.get('/k/00010a'), -1);
  assert.equal(grown.size, 5001);
});

void test('key order is UTF-8 byte order', () => {
  const keys = ['b', 'a', '\uffff', '\u{10000}', 'ab', 'a\x00', '\ue000'];
  const sorted = [...keys].sort(compareKeys);
  const bytewise = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  assert.deepEqual(sorted, bytewise);
});

void test('sorted map: keys with and without units from U+D800 up are kept in UTF-8 byte order', () => {
  // Plain keys take JavaScript's own comparison, the others compareKeys; both must agree on one tree.
  const random = rng(7);
  const tails = ['a', 'z', '\u00e9', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1f600}', '~', '0'];
  let map = SortedMap.empty<number>();
  const reference = new Map<string, number>();
  for (let step = 0; step < 3000; step++) {
    const tail = Array.from({ length: 1 + Math.floor(random() * 3) }, () => tails[Math.floor(random() * tails.length)]!).join('');
    const key = `/registry/roles/ns/r-${tail}`;
    if (random() < 0.3) {
      map = map.delete(key);
      reference.delete(key);
    } else {
      map = map.set(key, step);
      reference.set(key, step);
    }
  }
  const bytewise = [...reference.entries()].sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  assert.deepEqual(entries(map), bytewise);
  for (const [key, value] of bytewise) assert.equal(map.get(key), value);
  for (let i = 0; i < bytewise.length; i += 7) {
    const probe = `${bytewise[i]![0]}${i % 2 === 0 ? '\x00' : ''}`;
    const below = bytewise.filter(([k]) => Buffer.compare(Buffer.from(k), Buffer.from(probe)) < 0).length;
    assert.equal(map.countBelow(probe), below);
    assert.deepEqual(entries(map, probe), bytewise.slice(below));
    assert.deepEqual(map.valuesFrom(probe, 40), bytewise.slice(below, below + 40).map(([, v]) => v));
  }
});
