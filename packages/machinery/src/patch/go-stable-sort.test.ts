import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goSliceStable } from './go-stable-sort.js';

void test('orders as Go 1.26 sort.SliceStable does, even for a comparator that is not a strict weak order', () => {
  // Strategic merge's lenient comparator: items without a position compare "less" both ways.
  const items = Array.from({ length: 60 }, (_, i) => (i * 37) % 60);
  const index = (v: number) => (v % 4 === 0 ? -1 : 59 - v);
  const less = (a: number, b: number) => {
    const ia = index(a);
    if (ia >= 0) {
      const ib = index(b);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  // `go run` of sort.SliceStable over the same items and comparator.
  const fromGo = [32, 4, 36, 59, 55, 8, 54, 12, 58, 50, 44, 16, 48, 57, 53, 49, 46, 45, 41, 39, 35, 52, 24, 56, 28, 51, 47, 43, 42, 38, 37, 34, 33, 31, 30, 29, 27, 26, 25, 23, 22, 21, 19, 18, 17, 15, 14, 13, 11, 10, 9, 40, 7, 6, 5, 3, 2, 20, 1, 0];
  assert.deepEqual(goSliceStable(items, less), fromGo);
});

void test('is a stable sort for a consistent comparator, at every size', () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 7;
  for (const n of [0, 1, 2, 19, 20, 21, 40, 41, 100, 1000]) {
    const items = Array.from({ length: n }, (_, i) => ({ key: random(), i }));
    const expected = [...items].sort((a, b) => a.key - b.key);
    assert.deepEqual(goSliceStable([...items], (a, b) => a.key < b.key), expected, `n=${n}`);
  }
});

void test('sorts 100,000 items in well under a second', () => {
  const items = Array.from({ length: 100_000 }, (_, i) => 100_000 - i);
  const start = performance.now();
  goSliceStable(items, (a, b) => a < b);
  assert.ok(performance.now() - start < 1000);
  assert.equal(items[0], 1);
});
